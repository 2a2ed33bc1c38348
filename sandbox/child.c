/* child.c - helpers for the code between fork and exec (both modes).
 *
 * Everything here is async-signal-safe: no malloc, no stdio, no locks.  A
 * failure is written as "sandbox: <step> errno=N" to the error pipe and the
 * child _exit()s; it never returns to the caller's code.
 */
#include "config.h"

#include "sandbox/sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
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
  if (set_rlimit (RLIMIT_CORE, 0) < 0)
    return -1;
  if (limits->rlimit_as && set_rlimit (RLIMIT_AS, (rlim_t)limits->rlimit_as) < 0)
    return -1;
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
