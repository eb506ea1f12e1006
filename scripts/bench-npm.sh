#!/usr/bin/env bash
# Times installing an extension from an npm registry, side by side:
#   spirit   bin/spirit extension install npm:NAME --npm-registry URL (fresh data dir)
#   npm      npm install --no-save --ignore-scripts --no-audit --no-fund NAME (empty folder;
#            on the huge package only with NPM_HUGE=1: it takes seconds there)
#   floor    curl -fsS TARBALL | tar xzf -   (the same bytes written to disk, nothing else)
# for a small package (10 files), a large one (600 files, ~7 MB unpacked) and a
# huge one (2,000 files of random bytes, ~20 MB packed and unpacked),
# published with `npm publish` to one real Verdaccio on 127.0.0.1; cold (empty
# caches) and from the cache (spirit's and npm's caches warm; the floor reads the
# .tgz from disk). Runs alternate between the tools (RUNS, default 5, each), every
# run writes into a fresh directory and nothing is deleted while timing.
# Prints min/median/max and ratios (internal/benchpair). Needs node, npm, curl, tar, go.
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

# make_pkg DIR NAME FILES BYTES_PER_FILE [random]
make_pkg() {
  node - "$@" <<'JS'
const fs = require("fs"), path = require("path"), crypto = require("crypto");
const [dir, name, files, size, random] = process.argv.slice(2);
fs.mkdirSync(path.join(dir, "lib"), { recursive: true });
fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({
  name, version: "1.0.0", description: "benchmark package", main: "index.mjs",
  spiritExtension: { displayName: name, supportedHosts: ["cli", "desktop"] },
}, null, 2));
fs.writeFileSync(path.join(dir, "index.mjs"), "export function activate() {}\n");
for (let i = 0; i < Number(files) - 2; i++) {
  if (random) { // incompressible: the packed size is the unpacked size
    fs.writeFileSync(path.join(dir, "lib", `f${String(i).padStart(4, "0")}.js`), crypto.randomBytes(Number(size)));
    continue;
  }
  // Source-like text: compresses like real code, not like zeros.
  const words = [];
  while (words.join(" ").length < Number(size)) words.push(crypto.randomBytes(6).toString("base64url"));
  fs.writeFileSync(path.join(dir, "lib", `f${String(i).padStart(4, "0")}.js`), `// ${i}\nexport const v = ${JSON.stringify(words.join(" "))};\n`);
}
JS
}
make_pkg "$work/src-small" bench-small 10 2000
make_pkg "$work/src-large" bench-large 600 11600
make_pkg "$work/src-huge" bench-huge 2000 10000 random
pkgs="small large huge"
for p in $pkgs; do
  (cd "$work/src-$p" && npm publish --registry "$url" --userconfig "$work/publish.npmrc" \
    --no-audit --no-fund --loglevel=error >/dev/null)
done

mkdir -p "$work/run" "$work/home"
# Warm caches, once.
for p in $pkgs; do
  SPIRIT_AGENT_DATA_DIR=$work/warm-spirit HOME=$work/home "$spirit" extension install "npm:bench-$p" \
    --npm-registry "$url" >/dev/null 2>"$work/warm.err" || {
    echo "bench-npm: spirit cannot install from npm:" >&2; cat "$work/warm.err" >&2; exit 1; }
  [ "$p" = huge ] && [ -z "${NPM_HUGE:-}" ] ||
  (mkdir -p "$work/warm-npm-dir-$p" && cd "$work/warm-npm-dir-$p" && npm_config_cache=$work/warm-npm-cache \
    npm install --no-save --ignore-scripts --no-audit --no-fund --registry "$url" --userconfig /dev/null \
    --loglevel=error "bench-$p" >/dev/null)
  curl -fsS -o "$work/bench-$p.tgz" "${url}bench-$p/-/bench-$p-1.0.0.tgz"
done

describe() { echo "$1 = $(tar tzf "$work/bench-$1.tgz" | wc -l) entries ($(du -sk "$work/src-$1" | cut -f1) KiB unpacked, $(( $(stat -c %s "$work/bench-$1.tgz") / 1024 )) KiB packed)"; }
echo "bench-npm: $runs alternating runs each; $(describe small); $(describe large); $(describe huge)"
(cd "$repo" && go build -o "$work/benchpair" ./internal/benchpair)
spirit_cache=$work/warm-spirit/extensions/cli/.spirit/cache
for p in $pkgs; do
  for mode in cold cache; do
    if [ "$mode" = cache ]; then
      s_setup="mkdir -p {dir}/extensions/cli/.spirit && cp -r $spirit_cache {dir}/extensions/cli/.spirit/ ;;"
      n_setup="cp -r $work/warm-npm-cache {dir}/.npm-cache ;;"
      floor="tar-xzf=tar xzf $work/bench-$p.tgz -C {dir}"
    else
      s_setup="" n_setup=""
      floor="curl-tar=curl -fsS ${url}bench-$p/-/bench-$p-1.0.0.tgz | tar xzf - -C {dir}"
    fi
    # The issue's goal is cold npm at tar's pace for the large and huge
    # packages: those rows are headlines, with the floor spirit itself has
    # (starting at all: `spirit --version`) before the same download.
    extra=() head=() goal=""
    if [ "$mode" = cold ] && [ "$p" != small ]; then
      extra=("version+curl-tar=$spirit --version >/dev/null; ${floor#curl-tar=}") head=(-headline) goal=" (goal: <= 1.1x curl-tar)"
    fi
    npm_cmd=("npm=$n_setup npm_config_cache={dir}/.npm-cache npm install --no-save --ignore-scripts --no-audit --no-fund --registry $url --userconfig /dev/null --loglevel=error bench-$p >/dev/null")
    # npm takes seconds on the huge package: it is timed there only with NPM_HUGE=1,
    # to keep the script within a few minutes (the goals compare with the floor).
    if [ "$p" = huge ] && [ -z "${NPM_HUGE:-}" ]; then npm_cmd=(); fi
    "$work/benchpair" -runs "$runs" -dir "$work/runs-$p-$mode" "${head[@]}" -title "npm install, $p package, $mode$goal" \
      "spirit=$s_setup SPIRIT_AGENT_DATA_DIR={dir} HOME=$work/home $spirit extension install npm:bench-$p --npm-registry $url >/dev/null" \
      "$floor" "${npm_cmd[@]}" "${extra[@]}"
  done
done
