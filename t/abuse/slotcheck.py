"""slotcheck.py - host-side checks the abuse suite runs after every hostile job.

Everything here looks at the host from outside the sandbox:
  - processes of the slot uids (a /proc scan: real, effective, saved or fs uid);
  - the slot cgroups, in every hierarchy below our own cgroup
    (<own>/<RUN_CGROUP_NAME>/slot<N>/cgroup.procs: v1 memory, pids, cpu,
    cpuacct, or the v2 unified tree; on v1 a service of one slot has no
    slot level, <own>/<RUN_CGROUP_NAME> is the slot);
  - the host mount table (/proc/self/mountinfo: the jobs' mounts live in
    their own namespaces, so the host's must never change);
  - canary files under the host's /var/tmp (in the job's own root /var/tmp
    is the job's /tmp, so a job aiming at them by name finds nothing, and
    must not reach them), one standing in for a template file, plus kernel
    settings a job would love to change (core_pattern, hostname):
    content hash and metadata;
  - /proc/key-users: no key owned by a slot uid may outlive a job.
Only the Python standard library.
"""

import hashlib
import os
import secrets
import shutil
import stat

import rchttp


def procs_of_uids(uids):
    """[(pid, uid, comm)] of live processes with any uid in uids."""
    uids = set(uids)
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/status" % entry) as f:
                text = f.read()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        ids = {int(x) for x in fields.get("Uid", "").split()}
        state = fields.get("State", "").strip()
        if ids & uids and not state.startswith(("X",)):
            # The parent says who failed to reap a zombie (a leftover is
            # reported with it, so a rare one can be traced from the log).
            ppid = fields.get("PPid", "").strip()
            found.append((int(entry), sorted(ids & uids)[0], "%s %s, parent %s %s" % (
                fields.get("Name", "").strip(), state, ppid, _comm(ppid))))
    return found


def _comm(pid):
    try:
        with open("/proc/%s/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return "?"


def slot_dirs(base, slots):
    """The slot directories of one hierarchy's service tree: base/slot<N>.
    (base itself when no slot<N> is below it: a flat one-slot tree, which
    runcell no longer makes; the check is kept harmless.)"""
    dirs = [os.path.join(base, "slot%d" % slot) for slot in slots]
    dirs = [d for d in dirs if os.path.isdir(d)]
    if not dirs and list(slots) == [0] and not any(
            e.startswith("slot") for e in os.listdir(base)):
        return [base]
    return dirs


def idle_resident(pid):
    """Whether pid is a slot's init between jobs (sandbox/slot/init.c):
    root, pid 1 of a pid namespace of its own, and no child left.  Anything
    else in a slot after its clean is a leak."""
    try:
        with open("/proc/%d/status" % pid) as f:
            status = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            children = f.read().split()
    except (OSError, ValueError):
        return False
    nspid = status.get("NSpid", "").split()
    return (status.get("Uid", "").split()[:1] == ["0"] and len(nspid) >= 2 and nspid[-1] == "1"
            and not children)


def slot_cgroup_procs(cgroup_name, slots):
    """{path: [pids]} for every slot cgroup of the service holding more than
    one idle init, and the list of slot directories looked at (to
    prove the check saw something)."""
    busy, seen = {}, []
    for base in rchttp.leftover_cgroups(cgroup_name):
        for d in slot_dirs(base, slots):
            seen.append(d)
            try:
                with open(os.path.join(d, "cgroup.procs")) as f:
                    pids = [int(x) for x in f.read().split()]
            except OSError:
                continue
            if len(pids) == 1 and idle_resident(pids[0]):
                continue
            if pids:
                busy[d] = pids
    return busy, seen


def mount_table():
    """The host mount table as a sorted list of (mount point, root, type,
    source, per-mount options), without the ids that a remount changes."""
    rows = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.rstrip("\n").partition(" - ")
            a, b = left.split(), right.split()
            rows.append((a[4], a[3], b[0] if b else "", b[1] if len(b) > 1 else "", a[5]))
    return sorted(rows)


# Mount points a leaked job mount would show up at on the host: the
# sandbox's own mount targets and what lies below them.  Other changes
# (another test on the machine mounting below its own build tree) are not
# the sandbox's doing and are returned separately, for a diagnostic only.
SANDBOX_MOUNT_POINTS = ("/", "/tmp", "/var/tmp", "/dev", "/dev/shm", "/dev/pts", "/dev/mqueue",
                        "/proc", "/sys", "/run", "/app", "/home", "/root", "/usr", "/etc", "/opt")
SANDBOX_MOUNT_PREFIXES = ("/sandbox", "/proc/", "/sys/fs/cgroup", "/run/runcell", "/run/secrets",
                          "/var/run/secrets", "/opt/")


def _relevant(row, extra_prefixes):
    point = row[0]
    return (point in SANDBOX_MOUNT_POINTS or point.startswith(SANDBOX_MOUNT_PREFIXES)
            or any(p and point.startswith(p) for p in extra_prefixes))


def mount_diff(before, after, extra_prefixes=()):
    """(gone, new, ignored): changes at places a job could have leaked a
    mount to, and the other changes."""
    gone = [r for r in before if r not in after]
    new = [r for r in after if r not in before]
    ignored = [r for r in gone + new if not _relevant(r, extra_prefixes)]
    gone = [r for r in gone if r not in ignored]
    new = [r for r in new if r not in ignored]
    return gone, new, ignored


def key_users(uids):
    """Lines of /proc/key-users for the given uids (keys they still own)."""
    out = []
    try:
        with open("/proc/key-users") as f:
            for line in f:
                uid = line.split(":", 1)[0].strip()
                if uid.isdigit() and int(uid) in uids:
                    out.append(line.strip())
    except OSError:
        pass
    return out


class Canaries:
    """Files outside the sandbox that must never change.  The directory is
    under the host's /var/tmp; hostile programs aim at it by name (in the
    job's own root that name resolves inside the job's /tmp)."""

    def __init__(self, extra=()):
        self.dir = None
        self.secret = "CANARY-SECRET-" + secrets.token_hex(12)
        self.extra = [p for p in extra if os.path.exists(p)]

    def create(self):
        self.dir = "/var/tmp/rc-abuse-%s" % secrets.token_hex(6)
        os.mkdir(self.dir, 0o755)
        os.chmod(self.dir, 0o755)
        with open(os.path.join(self.dir, "public.txt"), "w") as f:
            f.write("public canary %s\n" % secrets.token_hex(8))
        os.chmod(os.path.join(self.dir, "public.txt"), 0o644)
        fd = os.open(os.path.join(self.dir, "secret.txt"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, (self.secret + "\n").encode())
        os.close(fd)
        os.mkdir(os.path.join(self.dir, "sub"), 0o755)
        # stands in for a language template file (read-only lower layer)
        with open(os.path.join(self.dir, "template.py"), "w") as f:
            f.write("def solution(a, b):\n    return a + b\n")
        os.chmod(os.path.join(self.dir, "template.py"), 0o644)
        return self

    def remove(self):
        if self.dir and os.path.isdir(self.dir):
            shutil.rmtree(self.dir, ignore_errors=True)

    def paths(self):
        out = []
        for root, dirs, files in os.walk(self.dir):
            out.append(root)
            out.extend(os.path.join(root, n) for n in files + dirs)
        return sorted(set(out)) + self.extra

    @staticmethod
    def _state(path):
        try:
            st = os.lstat(path)
        except OSError as e:
            return ("missing", e.errno)
        meta = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, st.st_ino)
        if stat.S_ISREG(st.st_mode):
            try:
                with open(path, "rb") as f:
                    data = f.read(1 << 22)
            except OSError as e:
                return meta + ("unreadable", e.errno)
            # /proc files have no meaningful mtime; regular files do
            mtime = 0 if path.startswith("/proc/") else st.st_mtime_ns
            return meta + (hashlib.sha256(data).hexdigest(), mtime)
        if stat.S_ISDIR(st.st_mode):
            return meta + (tuple(sorted(os.listdir(path))), st.st_mtime_ns)
        return meta + (os.readlink(path) if stat.S_ISLNK(st.st_mode) else "",)

    def snapshot(self):
        return {p: self._state(p) for p in self.paths()}

    @staticmethod
    def diff(before, after):
        out = []
        for p in sorted(set(before) | set(after)):
            if before.get(p) != after.get(p):
                out.append("%s: %r -> %r" % (p, before.get(p), after.get(p)))
        return out
