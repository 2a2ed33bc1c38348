/* hostcheck.c - `runcell --check-host`: can this machine run the sandbox?
 *
 * Each probe prints one line "ok|MISSING|warn  <what>: <detail>" and the
 * verdict is the last line.  Probes are side-effect free: syscalls are
 * called with arguments that make an implemented call fail with EBADF or
 * EINVAL, so only ENOSYS means "missing".  Only what the sandbox cannot do
 * without makes the check fail; the rest are warnings (defence in depth,
 * or a limit that would be clamped): there is one code path, and no
 * fallback for a missing feature.
 */
#include "config.h"

#include "sandbox/host/syscalls.h"
#include "sandbox/sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

struct check_state
{
  int missing;
  int warnings;
};

static void report (struct check_state *s, int level, const char *what, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

/* level: 0 ok, 1 warning, 2 missing */
static void
report (struct check_state *s, int level, const char *what, const char *fmt, ...)
{
  static const char *const tags[] = { "ok     ", "warn   ", "MISSING" };
  va_list ap;
  printf ("%s %s: ", tags[level], what);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
  if (level == 1)
    s->warnings++;
  else if (level == 2)
    s->missing++;
}

static bool
fs_supported (const char *name)
{
  FILE *f = fopen ("/proc/filesystems", "re");
  char line[256];
  bool found = false;
  if (f == NULL)
    return false;
  while (!found && fgets (line, sizeof line, f))
    {
      char *p = strrchr (line, '\t');
      p = p ? p + 1 : line;
      p[strcspn (p, "\n")] = '\0';
      found = strcmp (p, name) == 0;
    }
  fclose (f);
  return found;
}

/* Debian's kernels build overlayfs as a module that loads on the first
 * mount: fsopen() asks the kernel for the type (loading the module as
 * root) without mounting anything. */
static bool
overlay_available (void)
{
  if (fs_supported ("overlay"))
    return true;
#ifdef SYS_fsopen
  {
    long fd = syscall (SYS_fsopen, "overlay", 1 /* FSOPEN_CLOEXEC */);
    if (fd >= 0)
      close ((int)fd);
  }
#endif
  return fs_supported ("overlay");
}

static int
read_small (const char *path, char *buf, size_t size)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t k;
  if (fd < 0)
    return -1;
  k = read (fd, buf, size - 1);
  close (fd);
  if (k < 0)
    return -1;
  buf[k] = '\0';
  buf[strcspn (buf, "\n")] = '\0';
  return 0;
}

static void
check_kernel (struct check_state *s)
{
  struct utsname u;
  int major = 0, minor = 0;
  if (uname (&u) < 0 || sscanf (u.release, "%d.%d", &major, &minor) != 2)
    {
      report (s, 2, "kernel", "cannot read the version");
      return;
    }
  /* The oldest kernel runcell supports, Debian 12's: one code path on
   * every supported kernel (docs/design.md, "One init engine"). */
  report (s, major > 6 || (major == 6 && minor >= 1) ? 0 : 2, "kernel", "%s (need >= 6.1)",
          u.release);
}

static void
check_cgroup (struct check_state *s)
{
  enum rc_cgroup_mode mode = RC_CGROUP_UNKNOWN;
  rc_err_t err = NULL;
  if (rc_cgroup_detect_mode (&mode, &err) < 0)
    {
      report (s, 2, "cgroup", "%s", rc_error_text (err));
      rc_error_free (&err);
      return;
    }
  report (s, 0, "cgroup mode", "%s", rc_cgroup_mode_name (mode));
  /* The same discovery as the tree's setup: what passes here is what
   * runcell then finds. */
  if (rc_cgroup_check_controllers (mode, &err) < 0)
    {
      report (s, 2, "cgroup controllers", "%s", rc_error_text (err));
      rc_error_free (&err);
    }
  else
    report (s, 0, "cgroup controllers",
            mode == RC_CGROUP_UNIFIED ? "memory, pids, cpu" : "memory, pids, cpuacct, cpu");
}

static void
check_syscalls (struct check_state *s)
{
  struct rc_mount_attr attr = { 0 };
  struct rc_clone_args args = { 0 };
  int r;

  /* Each is required: there is one code path, no fallback. */
  r = rc_mount_setattr (-1, "", 0, &attr);
  report (s, r < 0 && errno == ENOSYS ? 2 : 0, "mount_setattr", "%s",
          r < 0 && errno == ENOSYS ? "missing" : "present");
  /* An invalid exit signal makes an implemented clone3 fail with EINVAL
   * before anything is created. */
  args.exit_signal = 0xffff;
  r = rc_clone3 (&args);
  if (r == 0)
    _exit (0); /* cannot happen; never run our code twice */
  report (s, r < 0 && errno == ENOSYS ? 2 : 0, "clone3", "%s",
          r < 0 && errno == ENOSYS ? "missing" : "present");
  r = rc_close_range (~0U, 0, 0);
  report (s, r < 0 && errno == ENOSYS ? 2 : 0, "close_range", "%s",
          r < 0 && errno == ENOSYS ? "missing" : "present");
  r = rc_pidfd_open (-1, 0);
  report (s, r < 0 && errno == ENOSYS ? 2 : 0, "pidfd_open", "%s",
          r < 0 && errno == ENOSYS ? "missing" : "present");
}

static void
check_seccomp (struct check_state *s)
{
  unsigned int action = SECCOMP_RET_KILL_PROCESS;
  int r = prctl (PR_GET_SECCOMP, 0, 0, 0, 0);
  if (r < 0)
    report (s, 2, "seccomp", "prctl(PR_GET_SECCOMP) failed: %s", strerror (errno));
  else if (r != 0)
    report (s, 1, "seccomp", "runcell itself runs under a seccomp filter (mode %d)", r);
  else
    report (s, 0, "seccomp", "available, runcell not filtered");
  r = (int)syscall (SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action);
  report (s, r == 0 ? 0 : 2, "seccomp KILL_PROCESS", r == 0 ? "available" : "not available");
}

static void
check_userns (struct check_state *s)
{
  char buf[64];
  if (read_small ("/proc/sys/user/max_user_namespaces", buf, sizeof buf) == 0)
    report (s, strcmp (buf, "0") == 0 ? 0 : 1, "user namespaces",
            "user.max_user_namespaces=%s (the seccomp filter blocks them; 0 closes them for good)",
            buf);
  if (read_small ("/proc/sys/kernel/unprivileged_userns_clone", buf, sizeof buf) == 0)
    report (s, strcmp (buf, "0") == 0 ? 0 : 1, "user namespaces",
            "kernel.unprivileged_userns_clone=%s", buf);
  if (read_small ("/proc/sys/dev/tty/legacy_tiocsti", buf, sizeof buf) == 0)
    report (s, strcmp (buf, "0") == 0 ? 0 : 1, "tty", "dev.tty.legacy_tiocsti=%s", buf);
  /* A piped core_pattern runs its helper as host root, outside the job's
   * cgroup, and the kernel ignores RLIMIT_CORE 0 for pipes.  Jobs run with
   * a hard RLIMIT_CORE of 1, which the kernel takes as "abort" for a pipe
   * and as too small for a file, and seccomp refuses any change of it:
   * so a pipe is reported, not refused (t/isolation/coredump.py). */
  if (read_small ("/proc/sys/kernel/core_pattern", buf, sizeof buf) == 0)
    report (s, buf[0] == '|' ? 1 : 0, "core dumps", "kernel.core_pattern=%s%s", buf,
            buf[0] == '|' ? " (piped: jobs never reach it, RLIMIT_CORE is locked at 1;"
                            " other crashing host processes do)"
                          : "");
}

/* A step's first process shares the init's memory until it execs; its
 * uid change resets that memory's dumpable flag to fs.suid_dumpable, and
 * with 1 a process of the slot uid could open /proc/<pid>/mem on it in the
 * microsecond before the child makes it non-dumpable again (child.c).
 * 0 and 2 never let the slot uid in: 1 is refused. */
static void
check_ptrace (struct check_state *s)
{
  char buf[64];
  if (read_small ("/proc/sys/fs/suid_dumpable", buf, sizeof buf) == 0)
    report (s, strcmp (buf, "1") == 0 ? 2 : 0, "suid_dumpable", "fs.suid_dumpable=%s%s", buf,
            strcmp (buf, "1") == 0 ? " (set 0 or 2: with 1 the job's vfork window is ptraceable)"
                                   : "");
  else
    report (s, 1, "suid_dumpable", "cannot read /proc/sys/fs/suid_dumpable");
  /* Yama is defence in depth: ptrace_scope >= 1 lets a job trace only its
   * own descendants. */
  if (read_small ("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof buf) == 0)
    report (s, strcmp (buf, "0") == 0 ? 1 : 0, "ptrace_scope", "kernel.yama.ptrace_scope=%s%s", buf,
            strcmp (buf, "0") == 0 ? " (1 limits ptrace to descendants)" : "");
  else
    report (s, 1, "ptrace_scope",
            "no Yama (kernel.yama.ptrace_scope absent): any same-uid"
            " process of a job may ptrace another");
}

static void
check_caps (struct check_state *s)
{
  /* What the worker and the init use; a container that dropped one of the
   * required ones cannot build the sandbox. */
  static const struct
  {
    int bit;
    const char *name;
    bool required;
  } caps[] = {
    { 21, "SYS_ADMIN (namespaces, mounts)", true },
    { 6, "SETGID", true },
    { 7, "SETUID", true },
    { 27, "MKNOD (/dev nodes)", true },
    { 0, "CHOWN (input files)", true },
    { 5, "KILL (cleaning slots)", true },
    { 24, "SYS_RESOURCE (rlimits above the inherited hard limit are clamped)", false },
  };
  FILE *f = fopen ("/proc/self/status", "re");
  unsigned long long eff = 0;
  char line[256];
  size_t i;
  if (f == NULL)
    {
      report (s, 2, "capabilities", "cannot read /proc/self/status");
      return;
    }
  while (fgets (line, sizeof line, f))
    if (sscanf (line, "CapEff: %llx", &eff) == 1)
      break;
  fclose (f);
  for (i = 0; i < sizeof caps / sizeof caps[0]; i++)
    if (!(eff & (1ULL << caps[i].bit)))
      report (s, caps[i].required ? 2 : 1, "capability", "CAP_%s not effective", caps[i].name);
}

/* What the service checks at start (startcheck.c, instance.c): a
 * configuration under which no job could run is refused here too. */
static void
check_config (struct check_state *s, const struct rc_config *cfg, const struct rc_lang_table *langs,
              const char *langs_error)
{
  rc_err_t err = NULL;
  if (langs_error)
    report (s, 2, "languages", "%s", langs_error);
  else if (langs)
    {
      if (rc_sandbox_check_langs (langs, &err) < 0)
        report (s, 2, "languages", "%s", rc_error_text (err));
      else
        report (s, 0, "languages", "%zu in %s, every path fits a job's root", langs->n,
                cfg->langs_dir);
      rc_error_free (&err);
    }
  if (rc_sandbox_check_uids (cfg, false, &err) < 0)
    report (s, 2, "slot uids", "%s", rc_error_text (err));
  else
    report (s, 0, "slot uids", "%u-%u: no account or group, mapped", cfg->uid_base,
            cfg->uid_base + cfg->concurrency - 1);
  rc_error_free (&err);
  if (rc_sandbox_check_uids (cfg, true, &err) < 0)
    report (s, 1, "slot uids", "%s", rc_error_text (err));
  rc_error_free (&err);
  if (rc_sandbox_instance_lock (cfg, NULL, &err) < 0)
    report (s, 2, "instance", "%s", rc_error_text (err));
  else
    report (s, 0, "instance", "no other runcell holds uids %u-%u or cgroup '%s' (%s)",
            cfg->uid_base, cfg->uid_base + cfg->concurrency - 1, cfg->cgroup_name, RC_INSTANCE_DIR);
  rc_error_free (&err);
}

int
rc_sandbox_check_host (const struct rc_config *cfg, const struct rc_lang_table *langs,
                       const char *langs_error, bool verbose)
{
  struct check_state s = { 0, 0 };
  (void)verbose;
  report (&s, geteuid () == 0 ? 0 : 2, "root", "euid %ld", (long)geteuid ());
  if (geteuid () == 0)
    check_caps (&s);
  check_kernel (&s);
  check_cgroup (&s);
  report (&s, overlay_available () ? 0 : 2, "overlayfs",
          fs_supported ("overlay") ? "in /proc/filesystems" : "not in /proc/filesystems");
  report (&s, fs_supported ("tmpfs") ? 0 : 2, "tmpfs", "%s",
          fs_supported ("tmpfs") ? "available" : "missing");
  check_syscalls (&s);
  check_seccomp (&s);
  check_userns (&s);
  check_ptrace (&s);
  if (cfg && !cfg->sandbox)
    report (&s, 1, "RUN_SANDBOX", "off: jobs would run unsandboxed (unsafe)");
  if (cfg && geteuid () == 0)
    check_config (&s, cfg, langs, langs_error);
  printf ("%s: %d missing, %d warnings\n", s.missing ? "UNSAFE" : "OK", s.missing, s.warnings);
  fflush (stdout);
  return s.missing ? 1 : 0;
}
