#!/bin/bash
# deb.sh - the packaging CI job as a TAP test (issue 6).
#
# Builds runcell's Debian packages from this tree (packaging/build-deb,
# DEB_BUILD_OPTIONS=nocheck: the unit tests run elsewhere in the suite),
# lints them (lintian --fail-on=warning,error), installs them on this
# machine with apt, then does what an administrator would:
#   - runcell --check-host;
#   - nginx -t with the shipped site included by a private nginx
#     configuration (the system nginx and /etc/nginx/sites-enabled are not
#     touched);
#   - starts runcell-fcgi the way runcell.service does (there is no systemd
#     as PID 1 here): the unit's EnvironmentFile, ExecStartPre and
#     ExecStart lines, read from the installed unit, in systemd's clean
#     environment, with the RuntimeDirectory made as systemd would, and
#     under an emulation of the unit's hardening (NoNewPrivileges,
#     ProtectSystem=full, ProtectHome, PrivateTmp: a private mount
#     namespace, read-only binds, no_new_privs), so a /run that works here
#     shows those directives leave the sandbox working;
#   - puts a private nginx (workers as www-data, as in production) with the
#     shipped site on a free loopback port in front, sends GET /health and
#     one POST /run whose answer can only come from running the code;
#   - stops it with SIGTERM (KillMode=mixed: the master first) and checks
#     that it exits cleanly;
#   - purges both packages and checks that postrm removed the user and the
#     directories.
# Everything is bounded (timeout(1) on each long step) and cleaned up on
# any exit; processes are stopped by the PIDs this test recorded.
#
# Deviations from the unit, both to coexist with other tests running at the
# same time: RUN_CGROUP_NAME and RUN_UID_BASE are made unique.  If the
# runcell package was already installed before the test, the test refuses
# to replace and purge it (it would destroy someone's deployment).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_root
plan 23

tmp=$(mktemp -d /tmp/runcell-debtest.XXXXXX)
chmod 0755 "$tmp"
installed_by_us=0
cgroup_name=runcell-debtest-$$
export DEBIAN_FRONTEND=noninteractive
APT_OPTS=(-y -q -o DPkg::Lock::Timeout=300 --no-install-recommends)

cleanup () {
  stop_tracked
  remove_cgroups_named "$cgroup_name"
  if [ "$installed_by_us" = 1 ]; then
    timeout 300 apt-get purge "${APT_OPTS[@]}" runcell runcell-langs >/dev/null 2>&1 \
      && rm -f "$marker"
  fi
  [ "${RC_KEEP_TMP:-0}" = 1 ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

pkg_installed () {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# A run killed before its cleanup leaves the packages installed and this
# marker (on /run: gone at reboot); only then may the test purge first.
marker=/run/runcell-debtest.installed
if pkg_installed runcell || pkg_installed runcell-langs; then
  if [ -f "$marker" ]; then
    diag "purging the packages an interrupted earlier run left installed"
    timeout 300 apt-get purge "${APT_OPTS[@]}" runcell runcell-langs >/dev/null 2>&1
    rm -f "$marker"
  else
    bail "runcell is already installed on this machine: not replacing it (purge it first)"
  fi
fi

# The build and lint tools; CI installs them through ./quickstart deps.
missing=()
for p in dpkg-dev debhelper lintian go-md2man nginx-light curl; do
  [ "$p" = nginx-light ] && [ -x /usr/sbin/nginx ] && continue
  pkg_installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  diag "installing ${missing[*]}"
  timeout 600 apt-get install "${APT_OPTS[@]}" "${missing[@]}" >"$tmp/apt-tools.log" 2>&1 \
    || { diag_file "$tmp/apt-tools.log"; bail "cannot install ${missing[*]}"; }
fi

# ------------------------------------------------------------------ build
mkdir -p "$tmp/out"
DEB_BUILD_OPTIONS=nocheck timeout 1500 "$SRCDIR/packaging/build-deb" -o "$tmp/out" \
  >"$tmp/build.list" 2>"$tmp/build.log"
rc=$?
ok $rc "packaging/build-deb builds (exit $rc)" || diag_file "$tmp/build.log" 40
deb=$(ls "$tmp"/out/runcell_*_*.deb 2>/dev/null | head -n1)
langs_deb=$(ls "$tmp"/out/runcell-langs_*_all.deb 2>/dev/null | head -n1)
changes=$(ls "$tmp"/out/runcell_*.changes 2>/dev/null | head -n1)
[ -n "$deb" ] && [ -n "$langs_deb" ] && [ -n "$changes" ]
ok $? "runcell, runcell-langs and the .changes exist" || bail "no packages to test"

# ------------------------------------------------------------------ lint
timeout 900 lintian --fail-on=warning,error "$changes" >"$tmp/lintian.log" 2>&1
rc=$?
ok $rc "lintian --fail-on=warning,error passes (exit $rc)" || diag_file "$tmp/lintian.log" 40
! grep -E '^[EW]: ' "$tmp/lintian.log" >/dev/null
ok $? "lintian reports no error or warning tags"

# ------------------------------------------------------------------ contents
dpkg-deb -c "$deb" | awk '{print $6}' >"$tmp/contents"
dpkg-deb -c "$langs_deb" | awk '{print $6}' >"$tmp/langs-contents"
want=(./usr/sbin/runcell-fcgi ./usr/bin/runcell ./etc/default/runcell
      ./etc/nginx/sites-available/runcell ./lib/systemd/system/runcell.service
      ./lib/systemd/system/runcell.socket ./lib/systemd/system/runcell-socket.service
      ./usr/share/runcell/openapi.yaml ./etc/nginx/snippets/runcell-location.conf
      ./usr/share/man/man8/runcell-fcgi.8.gz ./usr/share/man/man1/runcell.1.gz
      ./usr/share/man/man5/runcell.conf.5.gz ./usr/share/man/man7/runcell-api.7.gz)
absent=()
for f in "${want[@]}"; do grep -qxF "$f" "$tmp/contents" || absent+=("$f"); done
[ ${#absent[@]} -eq 0 ]
ok $? "runcell ships binaries, man pages, default config, nginx site and snippet, units, openapi.yaml" \
  || diag "missing: ${absent[*]}"
n_manifests=$(grep -c '^./usr/share/runcell/langs/[a-z]*/manifest.json$' "$tmp/langs-contents")
[ "$n_manifests" -ge 10 ]
ok $? "runcell-langs ships the language directories ($n_manifests manifests)"

# ------------------------------------------------------------------ install
touch "$marker"
timeout 900 apt-get install "${APT_OPTS[@]}" "$deb" "$langs_deb" >"$tmp/apt.log" 2>&1
rc=$?
installed_by_us=1
ok $rc "apt-get install ./runcell_*.deb ./runcell-langs_*.deb (exit $rc)" || diag_file "$tmp/apt.log"
pkg_installed runcell && pkg_installed runcell-langs
ok $? "both packages are installed" || bail "install failed"

getent passwd runcell >/dev/null \
  && [ "$(stat -c %U:%a /var/lib/runcell 2>/dev/null)" = runcell:750 ] \
  && [ -d /run/runcell ]
ok $? "postinst made the runcell user, /var/lib/runcell (runcell, 0750) and /run/runcell"

# The installed unit and slice as systemd itself parses them (works without
# systemd as PID 1): unknown directives, bad values, missing binaries.
if command -v systemd-analyze >/dev/null; then
  (cd / && SYSTEMD_LOG_LEVEL=info timeout 60 systemd-analyze verify --man=no \
     /lib/systemd/system/runcell.service /lib/systemd/system/runcell.socket \
     /lib/systemd/system/runcell-socket.service) >"$tmp/verify.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] && ! grep -q . "$tmp/verify.log"
  ok $? "systemd-analyze verify runcell.service, runcell.socket, runcell-socket.service is clean (exit $rc)" || diag_file "$tmp/verify.log"
else
  skip "systemd-analyze not installed"
fi

# ------------------------------------------------------------------ host check
timeout 60 /usr/bin/runcell --check-host >"$tmp/check-host.log" 2>&1
rc=$?
ok $rc "runcell --check-host exits 0" || diag_file "$tmp/check-host.log"
tail -n1 "$tmp/check-host.log" | grep -q '^OK:'
ok $? "runcell --check-host verdict: $(tail -n1 "$tmp/check-host.log")"

# ------------------------------------------------------------------ nginx -t
# A private main configuration that includes the installed site file as is.
mk_nginx_prefix () {
  local dir=$1 site=$2
  mkdir -p "$dir/logs" "$dir/tmp"
  chown www-data "$dir/tmp"
  cat >"$dir/nginx.conf" <<EOF
user www-data;
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log notice;
events { worker_connections 256; }
http {
    access_log $dir/logs/access.log;
    client_body_temp_path $dir/tmp/client_body;
    fastcgi_temp_path $dir/tmp/fastcgi;
    proxy_temp_path $dir/tmp/proxy;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    include $site;
}
EOF
}
mk_nginx_prefix "$tmp/nginx-t" /etc/nginx/sites-available/runcell
timeout 30 /usr/sbin/nginx -t -p "$tmp/nginx-t/" -c "$tmp/nginx-t/nginx.conf" >"$tmp/nginx-t.log" 2>&1
rc=$?
ok $rc "nginx -t accepts the shipped site /etc/nginx/sites-available/runcell" \
  || diag_file "$tmp/nginx-t.log"

# ------------------------------------------------------------------ start as the unit does
unit=/lib/systemd/system/runcell.service
unit_value () { sed -n "s/^$1=//p" "$unit" | head -n1; }
env_file=$(unit_value EnvironmentFile); env_file=${env_file#-}
exec_pre=$(unit_value ExecStartPre)
exec_start=$(unit_value ExecStart)
[ -n "$env_file" ] && [ -n "$exec_pre" ] && [ -n "$exec_start" ] \
  && grep -qx 'Delegate=yes' "$unit" && grep -qx 'KillMode=mixed' "$unit" \
  && grep -qx 'Restart=on-failure' "$unit" && grep -qx 'Slice=runcell.slice' "$unit"
ok $? "unit: EnvironmentFile, ExecStartPre, ExecStart, Delegate, KillMode=mixed, Restart, Slice"

# systemd's environment for a system service: PATH and the EnvironmentFile
# (NAME=value lines, # comments), nothing inherited from this shell.
unit_env=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8)
while IFS= read -r line; do
  case $line in ''|'#'*) continue ;; *=*) unit_env+=("$line") ;; esac
done <"$env_file"
unit_env+=("RUN_CGROUP_NAME=$cgroup_name" "RUN_UID_BASE=$((300000 + ($$ % 1000) * 64))")
sock=$(printf '%s\n' "${unit_env[@]}" | sed -n 's/^RUN_LISTEN=unix://p' | tail -n1)
[ -n "$sock" ] || bail "the shipped /etc/default/runcell sets no unix RUN_LISTEN"
# RuntimeDirectory=runcell, RuntimeDirectoryMode=0755.
install -d -m 0755 /run/runcell

# The unit's file-system and privilege hardening, emulated the way systemd
# applies it (a private mount namespace per service, propagation slave):
# each directive the unit sets becomes a step of a wrapper script, so the
# service below runs with what the unit promises does not break it.
{
  echo 'set -e'
  echo 'mount --make-rslave /'
  if grep -qx 'ProtectSystem=full' "$unit"; then
    echo 'for d in /usr /boot /efi /etc; do [ -d $d ] || continue; mount --bind $d $d; mount -o remount,bind,ro $d; done'
  fi
  if grep -qx 'ProtectHome=yes' "$unit"; then
    echo 'for d in /home /root /run/user; do [ -d $d ] && mount -t tmpfs -o mode=000,size=4k tmpfs $d; done'
  fi
  if grep -qx 'PrivateTmp=yes' "$unit"; then
    echo 'mount -t tmpfs -o mode=1777 tmpfs /tmp; mount -t tmpfs -o mode=1777 tmpfs /var/tmp'
  fi
  if grep -qx 'NoNewPrivileges=yes' "$unit"; then
    echo 'exec setpriv --no-new-privs "$@"'
  else
    echo 'exec "$@"'
  fi
} >"$tmp/unit-sandbox.sh"
sandboxed=(unshare --mount /bin/bash "$tmp/unit-sandbox.sh")
other=$(grep -E '^(Protect|Private|Restrict|SystemCall|Capability|MemoryDeny|LockPersonality|ReadOnly|Inaccessible)[A-Za-z]*=' "$unit" \
        | grep -vxE 'ProtectSystem=full|ProtectHome=yes|PrivateTmp=yes' || true)
[ -z "$other" ] || diag "hardening not emulated here: $other"

# shellcheck disable=SC2086 # the unit's command lines are split on spaces, as systemd does
timeout 60 "${sandboxed[@]}" env -i "${unit_env[@]}" $exec_pre >"$tmp/execstartpre.log" 2>&1
ok $? "ExecStartPre ($exec_pre) succeeds in the unit's environment and hardening" \
  || diag_file "$tmp/execstartpre.log"
# shellcheck disable=SC2086
setsid "${sandboxed[@]}" env -i "${unit_env[@]}" $exec_start </dev/null >"$tmp/runcell.log" 2>&1 &
master=$!
track_pid "$master"
wait_for 60 test -S "$sock"
ok $? "ExecStart ($exec_start) listens on $sock" || diag_file "$tmp/runcell.log"
[ "$(stat -c %U:%G:%a "$sock" 2>/dev/null)" = root:www-data:660 ]
ok $? "the socket is root:www-data 0660 ($(stat -c %U:%G:%a "$sock" 2>/dev/null))"

# ------------------------------------------------------------------ one /run through nginx
port=$(free_port)
sed "s/listen 127\.0\.0\.1:4040;/listen 127.0.0.1:$port;/" /etc/nginx/sites-available/runcell \
  >"$tmp/site-test.conf"
mk_nginx_prefix "$tmp/nginx" "$tmp/site-test.conf"
/usr/sbin/nginx -p "$tmp/nginx/" -c "$tmp/nginx/nginx.conf" 2>"$tmp/nginx.stderr" &
nginx_pid=$!
track_pid "$nginx_pid"
health_ok () { [ "$(http GET "http://127.0.0.1:$port/health" | cut -d' ' -f1)" = 200 ]; }
wait_for 60 health_ok
ok $? "GET /health through nginx (www-data workers) answers 200" \
  || { diag_file "$tmp/nginx/logs/error.log" 5; diag_file "$tmp/runcell.log" 5
       # Anything started with the built-in RUN_STATE_DIR (/run/runcell,
       # e.g. `runcell exec` of another test) makes it 0700 and locks
       # nginx out of the socket; see packaging/README.md.
       diag "/run/runcell is $(stat -c '%U:%G %a' /run/runcell 2>&1)"; }
a=$((RANDOM % 900 + 100)); b=$((RANDOM % 900 + 100))
run_request_file "$tmp/run.json" "$a" "$b"
answer=$(http POST "http://127.0.0.1:$port/run" "$tmp/run.json")
run_result_ok "$answer" "$a" "$b"
ok $? "POST /run runs python in the sandbox: $a*$b=$((a * b))" \
  || { diag "answer: ${answer:0:300}"; diag_file "$tmp/runcell.log"; }

# ------------------------------------------------------------------ stop
stop_pid "$nginx_pid" 10
stop_pid "$master" 40
rc=$?
ok $rc "SIGTERM stops runcell-fcgi with exit status 0 (got $rc)" || diag_file "$tmp/runcell.log"
TRACKED_PIDS=()
[ ! -S "$sock" ]
ok $? "the socket is removed at exit"

# ------------------------------------------------------------------ purge
timeout 600 apt-get purge "${APT_OPTS[@]}" runcell runcell-langs >"$tmp/purge.log" 2>&1
rc=$?
installed_by_us=0
[ $rc -ne 0 ] || rm -f "$marker"
ok $rc "apt-get purge runcell runcell-langs (exit $rc)" || diag_file "$tmp/purge.log"
# /run/runcell itself may be recreated at once by any other runcell on this
# machine that uses the built-in state directory; what the package put
# there (socket, state) must be gone.
! pkg_installed runcell && ! getent passwd runcell >/dev/null \
  && [ ! -e /var/lib/runcell ] && [ ! -e /run/runcell/runcell.sock ] \
  && [ ! -e /run/runcell/state ] && [ ! -e /etc/default/runcell ]
ok $? "purge removed the user, /var/lib/runcell, /run/runcell's content and the configuration" \
  || diag "left: $(ls -d /var/lib/runcell /run/runcell/runcell.sock /run/runcell/state /etc/default/runcell 2>/dev/null | tr '\n' ' ')"

[ "$TAP_N" = 23 ] || diag "ran $TAP_N tests, planned 23"
exit $((TAP_FAILED > 0))
