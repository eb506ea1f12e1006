#!/usr/bin/env bash
# Times installing an extension from an npm registry, side by side:
#   spirit   bin/spirit extension install npm:NAME --npm-registry URL (fresh data dir)
#   npm      npm install --no-save --ignore-scripts --no-audit --no-fund NAME (empty folder)
#   floor    curl -fsS TARBALL | tar xzf -   (the same bytes written to disk, nothing else)
# for a small package (10 files) and a large one (600 files, ~7 MB unpacked),
# published with `npm publish` to one real Verdaccio on 127.0.0.1; cold (empty
# caches) and from the cache (spirit's and npm's caches warm; the floor reads the
# .tgz from disk). Runs alternate between the tools; RUNS (default 5) each.
# Prints medians and ratios. Needs node, npm, curl, tar.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-5}
work=$(mktemp -d)
cleanup() { bash "$repo/scripts/verdaccio.sh" stop "$work/verdaccio" || true; rm -rf "$work"; }
trap cleanup EXIT

spirit=$repo/bin/spirit
if [ ! -x "$spirit" ]; then
  (cd "$repo" && go build -o "$work/spirit" ./cmd/spirit)
  spirit=$work/spirit
fi

read -r url _ < <(bash "$repo/scripts/verdaccio.sh" start "$work/verdaccio")
token=$(cat "$work/verdaccio/token")
hostkey=${url#http:}
printf 'registry=%s\n%s:_authToken=%s\n' "$url" "$hostkey" "$token" >"$work/publish.npmrc"

# make_pkg DIR NAME FILES BYTES_PER_FILE
make_pkg() {
  node - "$@" <<'JS'
const fs = require("fs"), path = require("path"), crypto = require("crypto");
const [dir, name, files, size] = process.argv.slice(2);
fs.mkdirSync(path.join(dir, "lib"), { recursive: true });
fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({
  name, version: "1.0.0", description: "benchmark package", main: "index.mjs",
  spiritExtension: { displayName: name, supportedHosts: ["cli", "desktop"] },
}, null, 2));
fs.writeFileSync(path.join(dir, "index.mjs"), "export function activate() {}\n");
for (let i = 0; i < Number(files) - 2; i++) {
  // Source-like text: compresses like real code, not like zeros.
  const words = [];
  while (words.join(" ").length < Number(size)) words.push(crypto.randomBytes(6).toString("base64url"));
  fs.writeFileSync(path.join(dir, "lib", `f${String(i).padStart(4, "0")}.js`), `// ${i}\nexport const v = ${JSON.stringify(words.join(" "))};\n`);
}
JS
}
make_pkg "$work/src-small" bench-small 10 2000
make_pkg "$work/src-large" bench-large 600 11600
for p in small large; do
  (cd "$work/src-$p" && npm publish --registry "$url" --userconfig "$work/publish.npmrc" \
    --no-audit --no-fund --loglevel=error >/dev/null)
done

now() { date +%s%N; }
ms() { echo $(( ($2 - $1) / 1000000 )); }

# Each tool gets its own clean target per run; caches are prepared outside the timing.
run_spirit() { # PKG MODE
  local data=$work/run/spirit-data
  rm -rf "$data"; mkdir -p "$data/extensions/cli/.spirit"
  if [ "$2" = cache ]; then cp -r "$work/warm-spirit/extensions/cli/.spirit/cache" "$data/extensions/cli/.spirit/"; fi
  local t0 t1; t0=$(now)
  SPIRIT_AGENT_DATA_DIR=$data HOME=$work/home "$spirit" extension install "npm:bench-$1" --npm-registry "$url" \
    >/dev/null 2>"$work/run/spirit.err" || { cat "$work/run/spirit.err" >&2; return 1; }
  t1=$(now); ms "$t0" "$t1"
}
run_npm() {
  local dir=$work/run/npm-dir cache=$work/run/npm-cache
  rm -rf "$dir" "$cache"; mkdir -p "$dir"
  if [ "$2" = cache ]; then cp -r "$work/warm-npm-cache" "$cache"; fi
  local t0 t1; t0=$(now)
  (cd "$dir" && npm_config_cache=$cache npm install --no-save --ignore-scripts --no-audit --no-fund \
    --registry "$url" --userconfig /dev/null --loglevel=error "bench-$1" >/dev/null)
  t1=$(now); ms "$t0" "$t1"
}
run_floor() {
  local dir=$work/run/floor-dir
  rm -rf "$dir"; mkdir -p "$dir"
  local t0 t1; t0=$(now)
  if [ "$2" = cache ]; then tar xzf "$work/bench-$1.tgz" -C "$dir"
  else curl -fsS "${url}bench-$1/-/bench-$1-1.0.0.tgz" | tar xzf - -C "$dir"; fi
  t1=$(now); ms "$t0" "$t1"
}

mkdir -p "$work/run" "$work/home"
# Warm caches, once.
for p in small large; do
  SPIRIT_AGENT_DATA_DIR=$work/warm-spirit HOME=$work/home "$spirit" extension install "npm:bench-$p" \
    --npm-registry "$url" >/dev/null 2>"$work/warm.err" || {
    echo "bench-npm: spirit cannot install from npm:" >&2; cat "$work/warm.err" >&2; exit 1; }
  (mkdir -p "$work/warm-npm-dir-$p" && cd "$work/warm-npm-dir-$p" && npm_config_cache=$work/warm-npm-cache \
    npm install --no-save --ignore-scripts --no-audit --no-fund --registry "$url" --userconfig /dev/null \
    --loglevel=error "bench-$p" >/dev/null)
  curl -fsS -o "$work/bench-$p.tgz" "${url}bench-$p/-/bench-$p-1.0.0.tgz"
done

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

files_small=$(tar tzf "$work/bench-small.tgz" | wc -l); files_large=$(tar tzf "$work/bench-large.tgz" | wc -l)
size_large=$(du -sk "$work/src-large" | cut -f1)
echo "bench-npm: $runs runs each, alternating; small = $files_small files, large = $files_large files (${size_large} KiB unpacked, $(( $(stat -c %s "$work/bench-large.tgz") / 1024 )) KiB packed)"
printf '%-6s %-6s %10s %10s %10s %12s %14s\n' package mode spirit_ms npm_ms floor_ms npm/spirit spirit/floor
for p in small large; do
  for mode in cold cache; do
    : >"$work/s"; : >"$work/n"; : >"$work/f"
    for _ in $(seq 1 "$runs"); do
      run_spirit "$p" "$mode" >>"$work/s"
      run_npm "$p" "$mode" >>"$work/n"
      run_floor "$p" "$mode" >>"$work/f"
    done
    s=$(median <"$work/s"); n=$(median <"$work/n"); f=$(median <"$work/f")
    awk -v p="$p" -v m="$mode" -v s="$s" -v n="$n" -v f="$f" 'BEGIN {
      printf "%-6s %-6s %10.0f %10.0f %10.0f %11.1fx %13.2fx\n", p, m, s, n, f, n/(s>0?s:1), s/(f>0?f:1) }'
  done
done
