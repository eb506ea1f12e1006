#!/usr/bin/env bash
# Makes a Wine prefix under .cache/wine that runs Go Windows binaries:
# installs Debian's wine64 and the mingw-w64 compiler when missing, creates
# the prefix headless, and puts a bcryptprimitives.dll exporting ProcessPrng
# (scripts/wine/processprng.c) into its system32, which Go >= 1.24 needs and
# Wine 8 lacks. Idempotent: quick when all is there. Prints nothing on
# success; exits 1 (with the reason) when Wine cannot be made to work.
# scripts/test-windows.sh sources the environment: WINEPREFIX, WINEDEBUG.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export WINEPREFIX=$root/.cache/wine WINEDEBUG=-all WINEDLLOVERRIDES="bcryptprimitives=n;mscoree,mshtml=" DISPLAY=
need=()
command -v wine >/dev/null 2>&1 || need+=(wine wine64)
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || need+=(gcc-mingw-w64-x86-64)
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		echo "wine-setup: ${need[*]} missing and cannot be installed here (needs root and apt-get)" >&2
		exit 1
	fi
	echo "wine-setup: installing ${need[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	{ timeout 300 apt-get update -qq >/dev/null &&
		timeout 900 apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; } || {
		echo "wine-setup: could not install ${need[*]}" >&2
		exit 1
	}
fi
dll=$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll
src=$root/scripts/wine/processprng.c
if [ -f "$dll" ] && [ "$dll" -nt "$src" ]; then
	exit 0
fi
mkdir -p "$WINEPREFIX"
if [ ! -f "$WINEPREFIX/system.reg" ]; then
	timeout 300 wine wineboot -i >/dev/null 2>&1 || true
	wineserver -w
fi
if [ ! -d "$WINEPREFIX/drive_c/windows/system32" ]; then
	echo "wine-setup: wineboot made no prefix at $WINEPREFIX" >&2
	exit 1
fi
x86_64-w64-mingw32-gcc -shared -O2 -s -o "$dll.tmp" "$src" -ladvapi32
mv "$dll.tmp" "$dll"
