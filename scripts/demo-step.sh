#!/usr/bin/env bash
# step TITLE CMD…, for scripts/demo.sh (sourced): a heading, then the
# command as you would type it. Headings are bold on a terminal only:
# through a pipe, with NO_COLOR, or on a dumb terminal they are plain text.
bold='' plain=''
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
  bold=$'\033[1m' plain=$'\033[0m'
fi

step() {
  printf '\n%s== %s%s\n$' "$bold" "$1" "$plain"
  shift
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./@:=+-]+$ ]]; then printf ' %s' "$a"; else printf " '%s'" "$a"; fi
  done
  printf '\n'
}
