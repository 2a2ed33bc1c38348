#!/bin/sh
# Regenerates the build system from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
# automake does not install the TAP driver by itself.
for dir in /usr/share/automake-*; do
  if [ -f "$dir/tap-driver.sh" ]; then
    cp -f "$dir/tap-driver.sh" build-aux/tap-driver.sh
    break
  fi
done
autoreconf -fi
