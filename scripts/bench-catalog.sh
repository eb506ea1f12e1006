#!/usr/bin/env bash
# Times `spirit extension marketplace search` as a whole process over a
# generated 10,000-item catalog served over HTTP from 127.0.0.1 and already
# in the on-disk cache (a warm list), in alternating runs (internal/benchpair)
# with `grep` counting the matches in the same catalog file (the floor:
# reading the same bytes). RUNS (default 15). Goal: < 150 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-15}
SPIRIT=${SPIRIT:-bin/spirit}
[ -x "$SPIRIT" ] || go build -o "$SPIRIT" ./cmd/spirit
SPIRIT=$(realpath "$SPIRIT")
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

python3 - "$work/reg" <<'PY'
import json, os, sys
root = sys.argv[1]; os.makedirs(root)
st = ["listed", "listed", "listed", "hidden", "deprecated", "blocked"]
items = []
for i in range(10000):
    eid = "vendor%04d.extension-%05d" % (i % 997, i)
    items.append({"extensionId": eid, "packageName": "@vendor%04d/extension-%05d" % (i % 997, i),
        "status": st[i % 6], "featured": i % 50 == 0, "defaultVersion": "%d.%d.0" % (i % 5, i % 13),
        "defaultChannel": "stable", "defaultReviewStatus": "verified", "detailPath": "extensions/%s/detail.json" % eid,
        "displayName": "Extension number %d" % i,
        "description": "Extension %d adds tools and a system prompt for workflow %d of team %d." % (i, i % 31, i % 7),
        "author": "Vendor %d" % (i % 997), "homepageUrl": "https://example.com/" + eid,
        "repositoryUrl": "https://github.com/example/" + eid,
        "keywords": ["spirit-agent", "extension", "topic-%d" % (i % 101)],
        "supportedHosts": ["cli", "desktop"], "requestedCapabilities": ["system-prompt", "tool-definitions"]})
json.dump({"schemaVersion": 1, "items": items}, open(os.path.join(root, "catalog.json"), "w"), indent=2)
PY

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/reg" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$port/catalog.json" -o /dev/null && break; sleep 0.1; done

export SPIRIT_AGENT_DATA_DIR="$work/data" SPIRIT_REGISTRY="http://127.0.0.1:$port/"
"$SPIRIT" extension marketplace search topic-42 >/dev/null   # warm the cache
go build -o "$work/benchpair" ./internal/benchpair
"$work/benchpair" -runs "$RUNS" -warmup 1 -dir "$work/runs" \
  -title "marketplace search over a 10,000-item catalog ($(wc -c <"$work/reg/catalog.json") bytes), warm cache, whole process (goal < 150 ms)" \
  "search=$SPIRIT extension marketplace search topic-42" \
  "grep-catalog=grep -c topic-42 $work/reg/catalog.json"
