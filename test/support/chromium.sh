#!/bin/sh
# Debian's Chromium (/usr/bin/chromium) with every --disable-features switch it is given merged into one:
# Chromium keeps only the last, and Playwright passes its own list before the switches of
# test/support/chromium-server.ts, which would otherwise replace it.
disabled=""
for arg; do
  shift
  case $arg in
    --disable-features=*) disabled="$disabled,${arg#--disable-features=}" ;;
    *) set -- "$@" "$arg" ;;
  esac
done
exec /usr/bin/chromium "$@" ${disabled:+"--disable-features=${disabled#,}"}
