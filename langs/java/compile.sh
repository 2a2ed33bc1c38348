#!/bin/sh
# compile.sh - the java compile step of /v1/execute and the sessions API
# (the manifest's execute.compile):  sh compile.sh MAIN
# Compiles with Compile.java (beside this script) into /tmp/classes and
# writes the class to run into /tmp/main-class (the run step's
# `java -cp /tmp/classes @/tmp/main-class`).  install-toolchains compiles
# Compile.java into /opt/runcell/java ahead of time; the JDK's source
# launcher compiles it on every call (~0.3 s more) where that copy is
# missing or is not of this very source.
here=${0%/*}
pre=/opt/runcell/java
if cmp -s "$pre/Compile.java" "$here/Compile.java" 2>/dev/null; then
  set -- -cp "$pre" Compile "$@"
else
  set -- "$here/Compile.java" "$@"
fi
exec java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto "$@" \
  -d /tmp/classes -main-class /tmp/main-class
