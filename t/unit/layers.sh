#!/bin/bash
# layers.sh - the layering the architecture promises, checked on the sources.
#
# The layers are common/ <- sandbox/ <- fcgi/ (cli/ uses common/ and
# sandbox/).  layers_link.sh checks the built libraries' symbols; this test
# holds what no linker sees: privileged host work (mounts, namespaces, uid
# and owner changes) lives in sandbox/ only, no header is included against
# the direction of the layers, and fcgi/ and cli/ use the sandbox through
# its public headers (sandbox/*.h), never a room's (sandbox/<room>/*.h).
# TAP.
set -u
top=${srcdir:-$(dirname "$0")/../..}
cd "$top" || { echo "1..0 # SKIP no source tree"; exit 0; }

n=0
fails=0
check () { # check NAME OUTPUT: ok when OUTPUT is empty
  n=$((n + 1))
  if [ -z "$2" ]; then
    echo "ok $n - $1"
  else
    echo "not ok $n - $1"
    printf '%s\n' "$2" | sed 's/^/# /'
    fails=$((fails + 1))
  fi
}

# C sources without comments, so that prose that names a call is not one.
strip_comments () {
  sed -e 's://.*$::' "$1" | awk -v name="$1" '
    { line = $0; out = "";
      while (length (line)) {
        if (inc) { i = index (line, "*/"); if (!i) { line = ""; break } line = substr (line, i + 2); inc = 0 }
        else { i = index (line, "/*"); if (!i) { out = out line; line = ""; break }
               out = out substr (line, 1, i - 1); line = substr (line, i + 2); inc = 1 } }
      print name ":" NR ": " out }'
}

calls_in () { # calls_in DIR: privileged calls found in DIR
  for f in $(find "$1" -name '*.[ch]' | sort); do
    strip_comments "$f"
  done | grep -E '(^|[^A-Za-z0-9_>.])(mount|umount|umount2|unshare|setns|setresuid|setresgid|setuid|setgid|chown|fchown|fchownat|lchown|pivot_root|mount_setattr|fsmount|move_mount)[[:space:]]*\(' || true
}

includes_in () { # includes_in DIR FORBIDDEN-PREFIX...
  local dir=$1
  shift
  for p in "$@"; do
    grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]$p/" --include='*.[ch]' "$dir" || true
  done
}

[ -d fcgi ] && [ -d sandbox ] && [ -d common ] || { echo "1..0 # SKIP no fcgi/ sandbox/ common/ below $top"; exit 0; }
echo "1..7"
check "no file in fcgi/ calls mount, umount, unshare, setns, setresuid, chown or their kin" "$(calls_in fcgi)"
check "no file in common/ does privileged host work either" "$(calls_in common)"
check "common/ includes no sandbox/ or fcgi/ header" "$(includes_in common sandbox fcgi)"
check "sandbox/ includes no fcgi/ header" "$(includes_in sandbox fcgi)"
check "cli/ (the runcell command) includes no fcgi/ header" "$( [ -d cli ] && includes_in cli fcgi)"
check "fcgi/ and cli/ include only the sandbox's public headers, no room's" \
  "$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"sandbox/[a-z_]+/' --include='*.[ch]' fcgi cli || true)"
# The checker itself must see a call, or every check above is vacuous.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int f (void) { /* mount ( in a comment */ return umount2 ("/x", 0); }\n' > "$probe/p.c"
check "the check finds a privileged call when there is one" \
  "$(out=$(calls_in "$probe"); [ -n "$out" ] || echo 'umount2 in a probe file was not found')"
exit 0
