#!/usr/bin/env bash
# A real npm registry for tests and benchmarks: Verdaccio 6.8.0 on 127.0.0.1.
#
#   scripts/verdaccio.sh install        install Verdaccio into $VERDACCIO_HOME (once)
#   scripts/verdaccio.sh start DIR      install if needed, write DIR/config.yaml (local storage,
#                                       no uplinks, htpasswd auth), start on a free port, wait
#                                       for /-/ping, create the user "spirit" and print
#                                       "URL PID" on stdout; DIR/{url,pid,token,log} are written
#   scripts/verdaccio.sh stop DIR       stop the server started in DIR, by its PID
#
# Packages under @private/ are readable and publishable only by the user
# "spirit" (token in DIR/token); all other packages are public to read and
# publishable by "spirit". VERDACCIO_HOME defaults to <repo>/.cache/verdaccio.
# Verdaccio 6.8 pulls node-fetch 3, which needs Node 22; an npm "overrides"
# entry pins node-fetch to 2.7.0 so that it runs on Node 20.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
home=${VERDACCIO_HOME:-$repo/.cache/verdaccio}
version=6.8.0

die() { echo "verdaccio.sh: $*" >&2; exit 1; }

install() {
  if [ -f "$home/node_modules/verdaccio/package.json" ] &&
     grep -q "\"version\": \"$version\"" "$home/node_modules/verdaccio/package.json"; then
    return 0
  fi
  command -v npm >/dev/null || die "npm is not installed"
  mkdir -p "$home"
  # One installer at a time (parallel test packages may start it together).
  exec 9>"$home/.install.lock"
  flock -w 600 9 || die "timed out waiting for another install"
  if [ -f "$home/node_modules/verdaccio/package.json" ] &&
     grep -q "\"version\": \"$version\"" "$home/node_modules/verdaccio/package.json"; then
    return 0
  fi
  cat >"$home/package.json" <<JSON
{
  "name": "spirit-verdaccio",
  "private": true,
  "dependencies": { "verdaccio": "$version" },
  "overrides": { "node-fetch": "2.7.0" }
}
JSON
  (cd "$home" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error >&2) ||
    die "npm install verdaccio@$version failed"
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

start() {
  local dir=${1:?usage: verdaccio.sh start DIR}
  install
  mkdir -p "$dir/storage"
  dir=$(cd "$dir" && pwd)
  : >"$dir/htpasswd"
  cat >"$dir/config.yaml" <<YAML
storage: $dir/storage
auth:
  htpasswd:
    file: $dir/htpasswd
    max_users: 10
uplinks: {}
packages:
  '@private/*':
    access: spirit
    publish: spirit
  '**':
    access: \$all
    publish: spirit
web:
  enable: false
max_body_size: 200mb
log: { type: stdout, format: json, level: warn }
YAML
  local port pid url i
  for attempt in 1 2 3; do
    port=$(free_port)
    url="http://127.0.0.1:$port/"
    node "$home/node_modules/verdaccio/bin/verdaccio" --config "$dir/config.yaml" --listen "127.0.0.1:$port" \
      >"$dir/log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$dir/pid"
    for i in $(seq 1 300); do # 30 s
      if curl -fsS -m 2 "${url}-/ping" >/dev/null 2>&1; then break; fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if curl -fsS -m 2 "${url}-/ping" >/dev/null 2>&1; then break; fi
    kill "$pid" 2>/dev/null || true
    pid=
  done
  [ -n "$pid" ] || { cat "$dir/log" >&2; die "Verdaccio did not answer /-/ping"; }
  echo "$url" >"$dir/url"
  # Create the user "spirit" and keep its token.
  local resp
  resp=$(curl -fsS -m 10 -X PUT -H 'Content-Type: application/json' \
    -d '{"name":"spirit","password":"spirit-pass"}' "${url}-/user/org.couchdb.user:spirit") ||
    { stop "$dir"; die "could not create the user"; }
  node -e 'const r=JSON.parse(process.argv[1]); if(!r.token) process.exit(1); console.log(r.token)' "$resp" \
    >"$dir/token" || { stop "$dir"; die "no token in: $resp"; }
  echo "$url $pid"
}

stop() {
  local dir=${1:?usage: verdaccio.sh stop DIR}
  [ -f "$dir/pid" ] || return 0
  local pid
  pid=$(cat "$dir/pid")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/pid"
}

case "${1:-}" in
  install) install ;;
  start) start "${2:-}" ;;
  stop) stop "${2:-}" ;;
  *) die "usage: verdaccio.sh install | start DIR | stop DIR" ;;
esac
