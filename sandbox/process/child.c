/* child.c - the first process of a step, between its clone and its
 * exec, and the helpers it (and the development fallback) use.
 *
 * Everything here is async-signal-safe: no malloc, no stdio, no locks.  A
 * failure is written as "sandbox: <step> errno=N" to the error pipe and the
 * child _exit()s; it never returns to the caller's code.  The child runs on
 * its parent's memory (the init clones it CLONE_VM | CLONE_VFORK) until it
 * execs: it writes nothing there but errno, which its suspended parent
 * does not read meanwhile.
 */
#include "config.h"

#include "sandbox/host/syscalls.h"
#include "sandbox/process/process.h"

#include <sched.h>
#include <signal.h>
#include <grp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static size_t
fmt_uint (char *p, unsigned long v)
{
  char tmp[24];
  size_t n = 0, i;
  do
    {
      tmp[n++] = (char)('0' + v % 10);
      v /= 10;
    }
  while (v && n < sizeof tmp);
  for (i = 0; i < n; i++)
    p[i] = tmp[n - 1 - i];
  return n;
}

void
rc_child_fail (int fd, const char *step, int errnum)
{
  char msg[160];
  size_t n = 0, len = strlen (step);
  if (len > 100)
    len = 100;
  memcpy (msg + n, "sandbox: ", 9);
  n += 9;
  memcpy (msg + n, step, len);
  n += len;
  memcpy (msg + n, " errno=", 7);
  n += 7;
  n += fmt_uint (msg + n, (unsigned long)(errnum < 0 ? -errnum : errnum));
  if (fd >= 0 && write (fd, msg, n) < 0)
    {
      /* nothing left to report to */
    }
  _exit (127);
}

static int
set_rlimit (int resource, rlim_t value)
{
  struct rlimit rl = { value, value };
  if (setrlimit (resource, &rl) == 0)
    return 0;
  /* Raising a hard limit needs CAP_SYS_RESOURCE, which a container may
   * have dropped: a lower limit than asked is stricter, so take it. */
  if (errno != EPERM || getrlimit (resource, &rl) < 0 || rl.rlim_max >= value)
    return -1;
  rl.rlim_cur = rl.rlim_max;
  return setrlimit (resource, &rl);
}

/* Every rlimit of the step comes from its rc_limits (rc_job_build fills
 * them); only the fixed ones are ours: no core dumps, and NPROC per uid. */
int
rc_child_set_rlimits (const struct rc_limits *limits)
{
  if (limits->rlimit_cpu_s && set_rlimit (RLIMIT_CPU, (rlim_t)limits->rlimit_cpu_s) < 0)
    return -1;
  if (set_rlimit (RLIMIT_NOFILE, (rlim_t)(limits->nofile ? limits->nofile : 256)) < 0)
    return -1;
  if (limits->fsize_bytes && set_rlimit (RLIMIT_FSIZE, (rlim_t)limits->fsize_bytes) < 0)
    return -1;
  /* Per uid system-wide; slot uids are not shared, so 256 only bounds this
   * job (the cgroup pids.max is the real limit). */
  if (set_rlimit (RLIMIT_NPROC, 256) < 0)
    return -1;
  /* 1, not 0: a core file needs at least a page, and for a piped
   * core_pattern the kernel takes RLIMIT_CORE 1 as "abort the dump" (its
   * recursion guard), where 0 is ignored and the host's helper (apport,
   * systemd-coredump) would run as root outside the job's cgroup.  The
   * job cannot raise a hard limit, and the seccomp filter refuses any
   * change of RLIMIT_CORE, so it cannot lower it to 0 either. */
  if (set_rlimit (RLIMIT_CORE, 1) < 0)
    return -1;
  if (limits->rlimit_as && set_rlimit (RLIMIT_AS, (rlim_t)limits->rlimit_as) < 0)
    return -1;
  return 0;
}

int
rc_child_lock_caps (unsigned last_cap)
{
  /* The bounding set was emptied once by the slot's init when it started
   * (slot/init.c) and came down with the clone; two reads
   * check it did, instead of dropping every capability again per job
   * (41 prctl calls, about 60 us on the development host).  EPERM, not
   * a silent pass, when it did not. */
  if (prctl (PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) != 0
      || prctl (PR_CAPBSET_READ, (unsigned long)last_cap, 0, 0, 0) != 0)
    {
      errno = EPERM;
      return -1;
    }
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
    return -1;
  /* Locked: uid 0 never means capabilities again (NOROOT), no one can
   * keep or re-raise them across a uid change or as ambient.  NO_SETUID_FIXUP
   * keeps the kernel from touching the sets at setresuid, which is why
   * rc_child_clear_caps empties them explicitly afterwards. */
  if (prctl (PR_SET_SECUREBITS,
             SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP
                 | SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED
                 | SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
             0, 0, 0)
      < 0)
    return -1;
  return 0;
}

int
rc_child_clear_caps (void)
{
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2];
  memset (d, 0, sizeof d);
  if (syscall (SYS_capset, &h, d) < 0)
    return -1;
  if (syscall (SYS_capget, &h, d) < 0)
    return -1;
  if (d[0].effective | d[0].permitted | d[0].inheritable | d[1].effective | d[1].permitted
      | d[1].inheritable)
    {
      errno = EPERM;
      return -1;
    }
  return 0;
}

int
rc_child_setup_stdio (int in, int out, int errfd)
{
  int fds[3] = { in, out, errfd }, i;
  if (fds[0] < 0)
    {
      fds[0] = open ("/dev/null", O_RDONLY | O_CLOEXEC);
      if (fds[0] < 0)
        return -1;
    }
  /* Lift the sources above 2 first, so dup2 cannot clobber a source that
   * happens to sit on a target number (fd 0 is the FastCGI listen socket in
   * a worker and must never survive as the child's stdin). */
  for (i = 0; i < 3; i++)
    {
      int moved = fcntl (fds[i], F_DUPFD_CLOEXEC, 3);
      if (moved < 0)
        return -1;
      fds[i] = moved;
    }
  for (i = 0; i < 3; i++)
    if (dup2 (fds[i], i) < 0)
      return -1;
  return 0;
}

void
rc_child_exec_failed (const char *argv0, int errnum)
{
  /* A missing or non-executable command is the program's failure, not the
   * sandbox's: say so on its stderr and exit like a shell does. */
  static const char pre[] = "runcell: cannot execute ";
  char num[24];
  size_t n = fmt_uint (num, (unsigned long)errnum);
  if (write (2, pre, sizeof pre - 1) < 0 || write (2, argv0, strnlen (argv0, 200)) < 0
      || write (2, ": errno=", 8) < 0 || write (2, num, n) < 0 || write (2, "\n", 1) < 0)
    _exit (127);
  _exit (errnum == ENOENT ? 127 : 126);
}

/* The job's PATH, or glibc's default where the job has none. */
static const char *
job_path (const char *const *envp)
{
  for (; envp && *envp; envp++)
    if (strncmp (*envp, "PATH=", 5) == 0)
      return *envp + 5;
  return "/bin:/usr/bin";
}

/* One execve, or the shell for a file without a #! line (ENOEXEC), as
 * execvp does.  Returns the errno of the failure. */
static int
exec_one (const char *path, const char *const *argv, const char *const *envp)
{
  long r = rc_raw_syscall4 (SYS_execve, (long)path, (long)argv, (long)envp, 0);
  const char *sh_argv[1024];
  size_t argc = 0;
  if (r != -ENOEXEC)
    return (int)-r;
  while (argv[argc])
    argc++;
  if (argc + 2 > sizeof sh_argv / sizeof sh_argv[0])
    return ENOEXEC; /* a #!-less script with a thousand arguments: not run */
  sh_argv[0] = "/bin/sh";
  sh_argv[1] = path;
  for (size_t i = 1; i <= argc; i++)
    sh_argv[i + 1] = argv[i];
  r = rc_raw_syscall4 (SYS_execve, (long)"/bin/sh", (long)sh_argv, (long)envp, 0);
  return (int)-r;
}

void
rc_child_exec (const char *const *argv, const char *const *envp)
{
  const char *file = argv[0], *p;
  size_t flen = strlen (file);
  bool denied = false;
  int e = ENOENT;

  if (flen == 0)
    rc_child_exec_failed (file, ENOENT);
  if (strchr (file, '/'))
    rc_child_exec_failed (file, exec_one (file, argv, envp));
  /* execvp's search, on the job's PATH: an empty entry is the current
   * directory; EACCES on one entry is remembered and reported if no later
   * entry runs; errors that mean "not here" go on to the next entry. */
  for (p = job_path (envp);; p++)
    {
      const char *end = strchrnul (p, ':');
      size_t dlen = (size_t)(end - p);
      char path[PATH_MAX];
      if (dlen + 1 + flen < sizeof path)
        {
          memcpy (path, p, dlen);
          path[dlen] = '/';
          memcpy (path + dlen + 1, file, flen + 1);
          e = exec_one (dlen ? path : path + 1, argv, envp);
          if (e == EACCES)
            denied = true;
          else if (e != ENOENT && e != ENOTDIR && e != ESTALE && e != ENODEV && e != ETIMEDOUT)
            break;
        }
      else
        e = ENAMETOOLONG;
      if (*end == '\0')
        break;
      p = end;
    }
  rc_child_exec_failed (file,
                        denied && (e == ENOENT || e == ENOTDIR || e == ENAMETOOLONG) ? EACCES : e);
}

/* The job's first process: what a fresh process of the job would be
 * (issue 29): its own session, stdio, rlimits, an empty signal mask (the
 * init's SIGCHLD was blocked; every disposition is the default already,
 * the init reset them all), oom_score_adj 1000 (under memory pressure the
 * job goes first, its init never: -1000), then the slot uid without
 * capabilities, no_new_privs, only fds 0-2, cwd /sandbox, seccomp, exec. */
int
rc_child_main (void *p)
{
  const struct rc_child_ctx *c = p;
  uid_t ru, eu, su;
  gid_t rg, eg, sg;
  sigset_t none;
  int errfd, r, fd;

  errfd = fcntl (c->errpipe, F_DUPFD_CLOEXEC, 3);
  if (errfd < 0)
    rc_child_fail (c->errpipe, "error pipe", errno);
  /* Own session, no controlling tty but its own terminal's when the step
   * has one: a TIOCSTI on an inherited terminal would need one, and
   * kill(-pgid) from the job cannot reach the init. */
  if (setsid () < 0)
    rc_child_fail (errfd, "setsid", errno);
  /* v1: into the job's memory cgroup ("0": this thread; it shares the
   * init's memory until it execs, and what the exec maps is charged where
   * it is then). */
  if (c->cgroup_join >= 0 && pwrite (c->cgroup_join, "0", 1, 0) != 1)
    rc_child_fail (errfd, "join the job's memory cgroup", errno);
  /* Born in its step's leaf (v2) or just moved (v1): its cgroup namespace
   * is rooted there, so /proc/self/cgroup says "/" as the view at
   * /sys/fs/cgroup does. */
  if (c->new_cgroupns && unshare (CLONE_NEWCGROUP) < 0)
    rc_child_fail (errfd, "unshare cgroup namespace", errno);
  if (rc_child_setup_stdio (c->in, c->out, c->err) < 0)
    rc_child_fail (errfd, "stdio", errno);
  /* A tty step: its terminal, as a login shell would have it (the session
   * it leads has it as controlling tty, so ^C and job control work). */
  if (c->ctty && ioctl (0, TIOCSCTTY, 0) < 0)
    rc_child_fail (errfd, "controlling tty", errno);
  if (rc_child_set_rlimits (&c->step->limits) < 0)
    rc_child_fail (errfd, "rlimits", errno);
  fd = open ("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write (fd, "1000", 4) != 4)
    rc_child_fail (errfd, "oom_score_adj", errno);
  close (fd);
  sigemptyset (&none);
  if (sigprocmask (SIG_SETMASK, &none, NULL) < 0)
    rc_child_fail (errfd, "signal mask", errno);
  if (rc_child_lock_caps (c->cap_last) < 0)
    rc_child_fail (errfd, "capability bounding set", errno);
  /* setgroups first: root's supplementary groups (disk, adm) must not
   * survive the uid change. */
  if (setgroups (0, NULL) < 0)
    rc_child_fail (errfd, "setgroups", errno);
  if (setresgid (c->gid, c->gid, c->gid) < 0)
    rc_child_fail (errfd, "setresgid", errno);
  if (setresuid (c->uid, c->uid, c->uid) < 0)
    rc_child_fail (errfd, "setresuid", errno);
  if (getresuid (&ru, &eu, &su) < 0 || getresgid (&rg, &eg, &sg) < 0 || ru == 0 || eu == 0
      || su == 0 || rg == 0 || eg == 0 || sg == 0 || getgroups (0, NULL) != 0)
    rc_child_fail (errfd, "verify uid", EPERM);
  /* The uid change reset the mm's dumpable flag to fs.suid_dumpable, and
   * this mm is still the init's: non-dumpable again, so no process of the
   * slot uid can open /proc/<pid>/mem on it before the exec (`runcell
   * --check-host` refuses suid_dumpable 1, where a microsecond between
   * setresuid and this call would remain).  The exec gives the program a
   * fresh mm, dumpable as usual. */
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    rc_child_fail (errfd, "dumpable", errno);
  if (rc_child_clear_caps () < 0)
    rc_child_fail (errfd, "clear capabilities", errno);
  /* The init works with umask 0 (its modes are explicit); the program gets
   * the usual 022. */
  umask (022);
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    rc_child_fail (errfd, "no_new_privs", errno);
  /* Only 0-2 may reach the program; errfd is CLOEXEC and goes at exec. */
  if (rc_close_range (3, (unsigned)errfd - 1, 0) < 0
      || rc_close_range ((unsigned)errfd + 1, ~0U, 0) < 0)
    rc_child_fail (errfd, "close_range", errno);
  if (chdir ("/sandbox") < 0)
    rc_child_fail (errfd, "chdir /sandbox", errno);
  if (c->seccomp)
    {
      r = rc_seccomp_load (c->seccomp);
      if (r < 0)
        rc_child_fail (errfd, "seccomp", -r);
    }
  rc_child_exec (c->step->argv, c->envp);
}
