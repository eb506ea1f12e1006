#!/usr/bin/env bash
# Installs the Debian packages the tests use when they are missing: dbus and
# gnome-keyring, for the test of secrets against a real Secret Service, and
# bubblewrap, the sandbox extensions run in (its tests skip without it); and
# chromium, the headless browser the marketplace site is tested in (make
# test sets SPIRIT_REQUIRE_BROWSER, so that test fails without it).
# Node packages (Verdaccio, the MCP TypeScript SDK) are installed by the
# tests themselves into .cache/. Best effort: without root or apt-get the
# Secret Service test says it is skipped and everything else still runs.
set -u
need=()
command -v dbus-daemon >/dev/null 2>&1 || need+=(dbus)
command -v gnome-keyring-daemon >/dev/null 2>&1 || need+=(gnome-keyring)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v chromium >/dev/null 2>&1 || need+=(chromium fonts-liberation)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "test-deps: ${need[*]} missing and cannot be installed here (needs root and apt-get); the Secret Service and sandbox tests will be skipped, the browser test fails under make test" >&2
  exit 0
fi
echo "test-deps: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
timeout 300 apt-get update -qq >/dev/null &&
  timeout 600 apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null ||
  echo "test-deps: could not install ${need[*]}; the tests that need them will be skipped" >&2
exit 0
