#!/usr/bin/env bash
# Drop-in for SpiritAgents/registry's scripts/build-registry.sh: regenerate
# registry/catalog.json and every detail.json, then check them. Put it in the
# registry repository's scripts/ folder (the root is the folder above it, as
# upstream), or run it from anywhere with SPIRIT_REGISTRY_ROOT set.
# Extra arguments go to `spirit registry build` (for example --check,
# --since origin/main, --npm-registry URL, -j 32, --strict).
# Exit status: that of the first step to fail (build 1, validate 3).
set -euo pipefail
root=${SPIRIT_REGISTRY_ROOT:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
spirit=${SPIRIT:-spirit}
"$spirit" registry build --root "$root" "$@"
"$spirit" registry validate --root "$root"
