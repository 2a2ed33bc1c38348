#!/bin/bash
# layers_link.sh - the layers, checked on the built libraries: no object of
# libcommon.a needs a symbol that libsandbox.a or libfcgi.a defines, and no
# object of libsandbox.a one that libfcgi.a defines.  (A static link alone
# does not catch a wrong-way call: the archive that defines the symbol is
# on the command line anyway.)  A probe archive with one deliberate
# wrong-way call shows the check fails when it should.  TAP.
set -u
build=${RC_TOP_BUILDDIR:-$(pwd)}
for a in libcommon.a libsandbox.a libfcgi.a; do
  [ -f "$build/$a" ] || { echo "1..0 # SKIP $a not built in $build"; exit 0; }
done
command -v nm > /dev/null || { echo "not ok 1 - nm (binutils) is needed"; exit 1; }

defined () { nm --defined-only -g "$1" 2> /dev/null | awk 'NF == 3 { print $3 }' | sort -u; }
needed () { # symbols an archive's objects need from outside the archive
  comm -23 <(nm -u "$1" 2> /dev/null | awk 'NF >= 2 { print $NF }' | sort -u) <(defined "$1")
}
wrong_way () { # wrong_way LOWER HIGHER...: what LOWER needs that a HIGHER defines
  local low=$1
  shift
  for high in "$@"; do
    comm -12 <(needed "$low") <(defined "$high") | sed "s|^|$(basename "$low") needs $(basename "$high"): |"
  done
}

n=0
check () {
  n=$((n + 1))
  if [ -z "$2" ]; then echo "ok $n - $1"; else
    echo "not ok $n - $1"
    printf '%s\n' "$2" | sed 's/^/# /'
  fi
}
echo "1..4"
check "libcommon.a calls nothing of libsandbox.a or libfcgi.a" \
  "$(wrong_way "$build/libcommon.a" "$build/libsandbox.a" "$build/libfcgi.a")"
check "libsandbox.a calls nothing of libfcgi.a" "$(wrong_way "$build/libsandbox.a" "$build/libfcgi.a")"

# The probe: libcommon.a plus one object that calls rc_route (libfcgi.a)
# and one that calls rc_slot_uid (libsandbox.a).
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
cp "$build/libcommon.a" "$probe/libcommon.a"
printf 'void rc_route (void);\nvoid probe_up (void) { rc_route (); }\n' > "$probe/up.c"
printf 'int rc_slot_uid (void);\nint probe_side (void) { return rc_slot_uid (); }\n' > "$probe/side.c"
${CC:-cc} -c -o "$probe/up.o" "$probe/up.c" && ${CC:-cc} -c -o "$probe/side.o" "$probe/side.c" \
  && ar rc "$probe/libcommon.a" "$probe/up.o" "$probe/side.o"
found=$(wrong_way "$probe/libcommon.a" "$build/libsandbox.a" "$build/libfcgi.a")
check "a deliberate call from common to fcgi is caught" \
  "$(printf '%s\n' "$found" | grep -q 'needs libfcgi.a: rc_route$' || echo "not found in: $found")"
check "a deliberate call from common to sandbox is caught" \
  "$(printf '%s\n' "$found" | grep -q 'needs libsandbox.a: rc_slot_uid$' || echo "not found in: $found")"
exit 0
