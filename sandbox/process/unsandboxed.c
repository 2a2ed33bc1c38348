/* unsandboxed.c - the development fallback: no namespaces, no slot uid, no
 * cgroup.  UNSAFE: the job runs as the service's own user and can read
 * whatever that user can.  Used when runcell is not root or RUN_SANDBOX=off;
 * rc_sandbox_open logs a warning saying so.
 *
 * The template is copied into a fresh mkdtemp directory under /tmp (without
 * .git), the files written there, and each step runs with that copy as its
 * cwd, in its own session and process group, stdin from a pipe or
 * /dev/null (never the caller's fd 0), with the same supervise loop as the
 * sandbox.  The CPU clock reads /proc/<pid>/stat of the step's main
 * process (its own time plus its waited-for children); any limit kills the
 * process group.  A setsid() daemon can escape that kill: one more reason
 * this mode is for development only.  The copy is removed afterwards
 * without following any symlink the job left.
 */
#include "config.h"

#include "sandbox/host/syscalls.h"
#include "sandbox/process/process.h"
#include "sandbox/root/root.h"
#include "sandbox/sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

struct rc_plain
{
  pid_t pid;
  int pidfd;
  struct rusage ru;
  bool reaped;
};

static void
plain_kill (void *ctx)
{
  struct rc_plain *p = ctx;
  if (p->pid > 0)
    {
      kill (-p->pid, SIGKILL);
      if (!p->reaped)
        kill (p->pid, SIGKILL);
    }
}

static int
plain_read_exit (void *ctx, int *wstatus, rc_err_t *err)
{
  struct rc_plain *p = ctx;
  pid_t r = wait4 (p->pid, wstatus, WNOHANG, &p->ru);
  if (r < 0)
    return rc_error_sys (err, "sandbox: wait errno=%d", errno);
  if (r == 0)
    return 0;
  p->reaped = true;
  return 1;
}

static int
plain_cpu_us (void *ctx, uint64_t *us)
{
  struct rc_plain *p = ctx;
  char path[64], buf[1024], *s;
  unsigned long long ut = 0, st = 0, cut = 0, cst = 0;
  long hz = sysconf (_SC_CLK_TCK);
  ssize_t k;
  int fd;

  if (p->reaped)
    {
      *us = (uint64_t)p->ru.ru_utime.tv_sec * 1000000 + (uint64_t)p->ru.ru_utime.tv_usec
            + (uint64_t)p->ru.ru_stime.tv_sec * 1000000 + (uint64_t)p->ru.ru_stime.tv_usec;
      return 0;
    }
  snprintf (path, sizeof path, "/proc/%ld/stat", (long)p->pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  k = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (k <= 0)
    return -1;
  buf[k] = '\0';
  /* Fields after the command name, which may contain spaces: skip to the
   * last ')'; utime is field 14. */
  s = strrchr (buf, ')');
  if (s == NULL
      || sscanf (s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu", &ut, &st,
                 &cut, &cst)
             != 4
      || hz <= 0)
    return -1;
  *us = (ut + st + cut + cst) * 1000000ULL / (unsigned long long)hz;
  return 0;
}

static void __attribute__ ((noreturn))
plain_child (const struct rc_job_spec *spec, size_t i, int in_r, int out_w, int err_w,
             const char *cwd, int errpipe)
{
  const struct rc_step *st = &spec->steps[i];
  int errfd = fcntl (errpipe, F_DUPFD_CLOEXEC, 3);
  if (errfd < 0)
    rc_child_fail (errpipe, "error pipe", errno);
  if (setsid () < 0)
    rc_child_fail (errfd, "setsid", errno);
  if (rc_child_setup_stdio (in_r, out_w, err_w) < 0)
    rc_child_fail (errfd, "stdio", errno);
  if (rc_child_set_rlimits (&st->limits) < 0)
    rc_child_fail (errfd, "rlimits", errno);
  if (rc_close_range (3, (unsigned)errfd - 1, 0) < 0
      || rc_close_range ((unsigned)errfd + 1, ~0U, 0) < 0)
    {
      int fd;
      for (fd = 3; fd < 65536; fd++)
        if (fd != errfd)
          close (fd);
    }
  if (chdir (cwd) < 0)
    rc_child_fail (errfd, "chdir", errno);
  rc_child_exec (st->argv, spec->envp);
}

static int
plain_step (const struct rc_job_spec *spec, size_t i, const char *cwd, struct rc_step_result *r,
            uint64_t *output_used, bool *killed, rc_err_t *err)
{
  const struct rc_step *st = &spec->steps[i];
  int in[2] = { -1, -1 }, out[2] = { -1, -1 }, errp[2] = { -1, -1 }, ep[2] = { -1, -1 };
  struct rc_plain p = { .pid = -1, .pidfd = -1 };
  struct rc_watch w;
  char buf[160];
  ssize_t k;
  int ret = -1;

  if ((st->stdin_data && pipe2 (in, O_CLOEXEC) < 0) || pipe2 (out, O_CLOEXEC) < 0
      || pipe2 (errp, O_CLOEXEC) < 0 || pipe2 (ep, O_CLOEXEC) < 0)
    {
      rc_error_sys (err, "sandbox: pipe errno=%d", errno);
      goto out;
    }
  p.pid = fork ();
  if (p.pid < 0)
    {
      rc_error_sys (err, "sandbox: fork errno=%d", errno);
      goto out;
    }
  if (p.pid == 0)
    {
      close (ep[0]);
      plain_child (spec, i, in[0], out[1], errp[1], cwd, ep[1]);
    }
  close (ep[1]);
  ep[1] = -1;
  if (in[0] >= 0)
    close (in[0]);
  close (out[1]);
  close (errp[1]);
  in[0] = out[1] = errp[1] = -1;
  do
    k = read (ep[0], buf, sizeof buf - 1);
  while (k < 0 && errno == EINTR);
  if (k > 0)
    {
      buf[k] = '\0';
      rc_error_set (err, 0, "%s", buf);
      waitpid (p.pid, NULL, 0);
      p.pid = -1;
      goto out;
    }
  p.pidfd = rc_pidfd_open (p.pid, 0);
  if ((in[1] >= 0 && fcntl (in[1], F_SETFL, O_NONBLOCK) < 0)
      || fcntl (out[0], F_SETFL, O_NONBLOCK) < 0 || fcntl (errp[0], F_SETFL, O_NONBLOCK) < 0)
    {
      rc_error_sys (err, "sandbox: pipe errno=%d", errno);
      goto out;
    }
  w = (struct rc_watch){
    .limits = &st->limits,
    .stdin_data = st->stdin_data,
    .stdin_len = st->stdin_len,
    .stdin_fd = in[1],
    .out_fd = out[0],
    .err_fd = errp[0],
    .exit_fd = p.pidfd,
    .read_exit = plain_read_exit,
    .cpu_us = plain_cpu_us,
    .kill = plain_kill,
    .ctx = &p,
    .res = r,
    .output_used = output_used,
  };
  in[1] = out[0] = errp[0] = -1;
  ret = rc_watch_run (&w, err);
  *killed = w.killed;
  if (ret == 0)
    r->memory_peak_kb = (uint64_t)p.ru.ru_maxrss;
out:
  if (p.pid > 0)
    {
      /* Whatever the step left in its process group goes now. */
      kill (-p.pid, SIGKILL);
      if (!p.reaped)
        {
          kill (p.pid, SIGKILL);
          waitpid (p.pid, NULL, 0);
        }
    }
  if (p.pidfd >= 0)
    close (p.pidfd);
  for (int j = 0; j < 2; j++)
    {
      if (in[j] >= 0)
        close (in[j]);
      if (out[j] >= 0)
        close (out[j]);
      if (errp[j] >= 0)
        close (errp[j]);
      if (ep[j] >= 0)
        close (ep[j]);
    }
  return ret;
}

static int
plain_steps (const struct rc_job_spec *spec, const char *cwd, struct rc_job_result *res,
             rc_err_t *err)
{
  uint64_t output_used = 0;
  size_t i;
  res->steps = calloc (spec->n_steps, sizeof (*res->steps));
  if (res->steps == NULL)
    return rc_error_set (err, ENOMEM, "sandbox: result errno=%d", ENOMEM);
  res->n_steps = spec->n_steps;
  for (i = 0; i < spec->n_steps; i++)
    {
      struct rc_step_result *r = &res->steps[i];
      bool killed = false;
      if (plain_step (spec, i, cwd, r, &output_used, &killed, err) < 0)
        return -1;
      if (killed)
        break;
      if (spec->steps[i].stop_on_failure && !(r->exited && r->exit_code == 0))
        break;
    }
  return 0;
}

/* A session: the steps run in the session directory itself. */
static int
plain_session (const struct rc_job_spec *spec, struct rc_job_result *res, rc_err_t *err)
{
  char link[64], cwd[4096];
  const char *step = NULL;
  uint64_t t0 = rc_now_us ();
  ssize_t k;
  snprintf (link, sizeof link, "/proc/self/fd/%d", spec->bind_dirfd);
  k = readlink (link, cwd, sizeof cwd - 1);
  if (k <= 0)
    return rc_error_sys (err, "sandbox: session dir errno=%d", errno);
  cwd[k] = '\0';
  if (rc_hostfs_write_files (spec->bind_dirfd, spec->files, spec->n_files, 0755, (uid_t)-1,
                                (gid_t)-1, &step)
      < 0)
    return rc_error_sys (err, "sandbox: %s errno=%d", step, errno);
  res->setup_us = rc_now_us () - t0;
  if (plain_steps (spec, cwd, res, err) < 0)
    {
      rc_job_result_free (res);
      return -1;
    }
  return 0;
}

int
rc_unsandboxed_run (struct rc_sandbox *sb, const struct rc_job_spec *spec,
                    struct rc_job_result *res, rc_err_t *err)
{
  char dir[] = "/tmp/runcell-XXXXXX";
  cleanup_close int dirfd = -1, tmpfd = -1;
  const char *step = NULL;
  uint64_t t0 = rc_now_us ();
  int ret = -1;

  (void)sb;
  if (spec->workspace == RC_WORKSPACE_BIND)
    return plain_session (spec, res, err);
  if (mkdtemp (dir) == NULL)
    return rc_error_sys (err, "sandbox: mkdtemp errno=%d", errno);
  dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  tmpfd = open ("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0 || tmpfd < 0)
    {
      rc_error_sys (err, "sandbox: open workspace errno=%d", errno);
      goto out;
    }
  if (spec->template_dir && rc_hostfs_copy_tree (spec->template_dir, dirfd, err) < 0)
    goto out;
  if (rc_hostfs_write_files (dirfd, spec->files, spec->n_files, 0755, (uid_t)-1, (gid_t)-1,
                                &step)
      < 0)
    {
      rc_error_sys (err, "sandbox: %s errno=%d", step, errno);
      goto out;
    }
  res->setup_us = rc_now_us () - t0;
  if (plain_steps (spec, dir, res, err) < 0)
    goto out;
  ret = 0;
out:
  if (tmpfd >= 0)
    {
      rc_err_t e2 = NULL;
      (void)rc_hostfs_remove_tree (tmpfd, dir + 5, &e2);
      rc_error_free (&e2);
    }
  if (ret < 0)
    rc_job_result_free (res);
  return ret;
}
