/* run.c - a job on a claimed slot, seen from the process that supervises
 * it: it connects to the slot's init, hands it the job (its spec in a
 * memfd, the child's ends of every pipe), releases each step and
 * supervises it (supervise.c) with the step's cgroup meter, and ends the
 * claim when the job is over.  The protocol is in slot/ctl.h.
 *
 * Step 0 is released together with the job, so the init starts it as
 * soon as the job's mounts are made, without a round trip.  The job is
 * killed by asking the init (its kill(-1) reaches every process of the
 * slot's pid namespace), and on v2 by the step's cgroup.kill as well.  An
 * init that cannot be reached any more (it died: an OOM kill of it, a
 * kernel refusal) ends the step as killed; the keeper restarts the slot.
 */
#include "config.h"

#include "common/log.h"
#include "sandbox/host/syscalls.h"
#include "sandbox/process/process.h"
#include "sandbox/sandbox_internal.h"
#include "sandbox/slot/ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_STEPS 16

struct rc_run
{
  struct rc_sandbox *sb;
  const struct rc_job_spec *spec;
  /* The spec as sent when the io changes which steps have stdin, or puts
   * the run step on a terminal. */
  struct rc_job_spec spec_copy;
  struct rc_step steps_copy[MAX_STEPS];
  int tty;                   /* a tty step's master, or -1 */
  unsigned short rows, cols; /* its size, as last asked (0: the init's) */
  uint32_t seq;
  int ctl;
  struct rc_run_io io;
  /* The worker's ends of each step's pipes. */
  int in_w[MAX_STEPS], out_r[MAX_STEPS], err_r[MAX_STEPS];
  size_t step;                  /* the step supervised now */
  bool started;                 /* its STARTED arrived */
  bool init_gone;               /* the control connection closed */
  struct rc_cgroup_meter meter; /* of the step supervised now */
  struct rc_watch w;
  struct rc_job_result res;
  uint64_t output_used;
  uint64_t t0, started_us;
  bool failed;
  rc_err_t fail;
};

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

/* A tty step's master came with its STARTED: the step's stdin and its one
 * output stream (a terminal merges stdout and stderr) are dups of it, so
 * the watch may close either; the original stays for resizes. */
static void
tty_take (struct rc_run *r, int master)
{
  r->tty = master;
  if (r->rows && r->cols)
    {
      struct winsize ws = { .ws_row = r->rows, .ws_col = r->cols };
      (void)ioctl (master, TIOCSWINSZ, &ws);
    }
  r->w.out_fd = fcntl (master, F_DUPFD_CLOEXEC, 3);
  if (r->w.stdin_live)
    r->w.stdin_fd = fcntl (master, F_DUPFD_CLOEXEC, 3);
}

/* ---- the watch's callbacks ---- */

/* A message from the init: STARTED (the meter), EXITED, FAIL. */
static int
run_read_exit (void *ctx, int *wstatus, rc_err_t *err)
{
  struct rc_run *r = ctx;
  int fds[RC_CG_METER_FDS + 2];
  size_t n = 0;
  struct rc_ctl m;
  int k = rc_ctl_recv (r->ctl, &m, fds, sizeof fds / sizeof fds[0], &n);

  if (k < 0 && errno == EAGAIN)
    return 0;
  if (k <= 0)
    {
      /* The init is gone: killed by the OOM killer or dead of a kernel
       * refusal; the step's processes died with its pid namespace. */
      r->init_gone = true;
      *wstatus = SIGKILL;
      return 1;
    }
  switch (m.type)
    {
    case RC_CTL_STARTED:
      rc_cgroup_meter_close (&r->meter);
      if (m.value == 1 && n > 0 && r->spec->steps[r->step].tty && r->tty < 0)
        tty_take (r, fds[--n]);
      if (rc_ctl_get_meter (&m, fds, n, &r->meter) < 0)
        {
          for (size_t i = 0; i < n; i++)
            close (fds[i]);
          return rc_error_set (err, EPROTO, "sandbox: step meter errno=%d", EPROTO);
        }
      r->started = true;
      if (r->started_us == 0)
        r->started_us = rc_now_us ();
      if (r->io.on_step)
        r->io.on_step (r->io.ud, r->step);
      return 0;
    case RC_CTL_EXITED:
      for (size_t i = 0; i < n; i++)
        close (fds[i]);
      if (m.flags & RC_CTL_UNMET)
        {
          /* Its memory limit could not be set: nothing ran, and the
           * verdict is the memory limit's. */
          r->w.fired = RC_OUTCOME_MEMORY;
          *wstatus = SIGKILL;
          return 1;
        }
      *wstatus = m.value;
      return 1;
    case RC_CTL_FAIL:
      for (size_t i = 0; i < n; i++)
        close (fds[i]);
      return rc_error_set (err, m.value ? m.value : EIO, "%s", m.text);
    default:
      for (size_t i = 0; i < n; i++)
        close (fds[i]);
      return rc_error_set (err, EPROTO, "sandbox: control message %u errno=%d", m.type, EPROTO);
    }
}

static int
run_cpu_us (void *ctx, uint64_t *us)
{
  struct rc_run *r = ctx;
  if (!r->started)
    {
      *us = 0;
      return 0;
    }
  return rc_cgroup_meter_cpu_us (&r->meter, us, NULL);
}

static void
run_kill (void *ctx)
{
  struct rc_run *r = ctx;
  if (!r->init_gone)
    (void)rc_ctl_send_simple (r->ctl, RC_CTL_KILL, (uint32_t)r->step, 0, NULL);
  /* v2: the kernel kills the step's cgroup at once, whatever the init is
   * doing; v1 has no such file (0, nothing). */
  if (r->started)
    (void)rc_cgroup_meter_kill (&r->meter);
}

static int
run_oom_kills (void *ctx, uint64_t *n, rc_err_t *err)
{
  struct rc_run *r = ctx;
  if (!r->started)
    {
      *n = 0;
      return 0;
    }
  return rc_cgroup_meter_oom_kills (&r->meter, n, err);
}

static int
run_memory_sample (void *ctx, struct rc_memory_sample *s)
{
  struct rc_run *r = ctx;
  if (!r->started)
    return -1;
  return rc_cgroup_meter_sample (&r->meter, s, NULL);
}

static void
run_output (void *ud, int stream, const char *data, size_t len)
{
  struct rc_run *r = ud;
  if (r->io.on_output)
    r->io.on_output (r->io.ud, r->step, stream, data, len);
}

/* ---- the job ---- */

static int
connect_slot (struct rc_sandbox *sb, int slot, rc_err_t *err)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return rc_error_sys (err, "sandbox: control socket errno=%d", errno);
  snprintf (sa.sun_path, sizeof sa.sun_path, "%s", sb->sock_paths[slot]);
  if (connect (fd, (struct sockaddr *)&sa, sizeof sa) < 0)
    {
      int e = errno;
      close (fd);
      return rc_error_set (err, e, "sandbox: connect to slot %d's init errno=%d", slot, e);
    }
  return fd;
}

/* The caller's fd for the run step's stdin (0) or stdout (1), or -1. */
static int
given_fd (const struct rc_run *r, size_t i, int which)
{
  if (!r->io.given_stdio || i + 1 != r->spec->n_steps)
    return -1;
  return which == 0 ? r->io.stdin_fd : r->io.stdout_fd;
}

/* A copy of fd for the init (the caller keeps its own). */
static int
push_dup (int fd, int *child_fds, size_t *n, rc_err_t *err)
{
  int d = fcntl (fd, F_DUPFD_CLOEXEC, 3);
  if (d < 0)
    return rc_error_sys (err, "sandbox: dup errno=%d", errno);
  child_fds[(*n)++] = d;
  return 0;
}

/* A detached copy of dirfd's mount for the init. */
static int
push_tree (int dirfd, const char *what, int *child_fds, size_t *n, rc_err_t *err)
{
  int tree = rc_open_tree (dirfd, "", RC_OPEN_TREE_CLONE | RC_OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
  if (tree < 0)
    return rc_error_sys (err, "sandbox: %s tree errno=%d", what, errno);
  child_fds[(*n)++] = tree;
  return 0;
}

/* A send to the init failed: when the init refused the job it said why
 * (FAIL) before it closed the connection, and that is the error. */
static int
failed_send (int ctl, rc_err_t *err)
{
  int e = errno, fds[RC_CTL_MAX_FDS];
  size_t n = 0;
  struct rc_ctl m;
  struct pollfd p = { .fd = ctl, .events = POLLIN };
  if (poll (&p, 1, 0) > 0 && rc_ctl_recv (ctl, &m, fds, RC_CTL_MAX_FDS, &n) > 0)
    {
      for (size_t i = 0; i < n; i++)
        close (fds[i]);
      if (m.type == RC_CTL_FAIL)
        return rc_error_set (err, m.value ? m.value : EIO, "%s", m.text);
    }
  return rc_error_set (err, e, "sandbox: control socket errno=%d", e);
}

/* Stream `fd` (0, 1 or 2) of step i: the caller's descriptor when it gave
 * one, else a new pipe whose child end goes to the init and whose own end
 * (*ours, non-blocking) stays here. */
static int
step_stream (struct rc_run *r, size_t i, int fd, int *ours, int *child_fds, size_t *n,
             rc_err_t *err)
{
  int p[2];
  if (fd != 2 && given_fd (r, i, fd) >= 0)
    return push_dup (given_fd (r, i, fd), child_fds, n, err);
  if (pipe2 (p, O_CLOEXEC) < 0)
    return rc_error_sys (err, "sandbox: pipe errno=%d", errno);
  *ours = fd == 0 ? p[1] : p[0];
  child_fds[(*n)++] = fd == 0 ? p[0] : p[1];
  if (fcntl (*ours, F_SETFL, O_NONBLOCK) < 0)
    return rc_error_sys (err, "sandbox: pipe errno=%d", errno);
  return 0;
}

static int
make_pipes (struct rc_run *r, int *child_fds, size_t *n, rc_err_t *err)
{
  for (size_t i = 0; i < r->spec->n_steps; i++)
    {
      if (r->spec->steps[i].tty)
        continue; /* its terminal comes from the init, with STARTED */
      if ((r->spec->steps[i].stdin_data != NULL
           && step_stream (r, i, 0, &r->in_w[i], child_fds, n, err) < 0)
          || step_stream (r, i, 1, &r->out_r[i], child_fds, n, err) < 0
          || step_stream (r, i, 2, &r->err_r[i], child_fds, n, err) < 0)
        return -1;
    }
  return 0;
}

/* The init gives a step a stdin pipe when the spec it receives says the
 * step has input (stdin_data set): a run step fed live or from the caller's
 * fd has one whatever its stdin_data, so the spec is sent as a copy that
 * says so.  A run step on a terminal (io.tty) is marked in the copy too:
 * the init makes its terminal instead of expecting its pipes. */
static void
adjust_stdin (struct rc_run *r)
{
  size_t last = r->spec->n_steps - 1;
  bool fed = r->io.live_stdin || given_fd (r, last, 0) >= 0;
  bool mark = fed && r->spec->steps[last].stdin_data == NULL;
  if (!mark && !r->io.tty)
    return;
  r->spec_copy = *r->spec;
  memcpy (r->steps_copy, r->spec->steps, r->spec->n_steps * sizeof r->steps_copy[0]);
  if (mark)
    {
      r->steps_copy[last].stdin_data = "";
      r->steps_copy[last].stdin_len = 0;
    }
  r->steps_copy[last].tty = r->io.tty;
  r->spec_copy.steps = r->steps_copy;
  r->spec = &r->spec_copy;
}

/* The watch of step i, begun. */
static void
watch_step (struct rc_run *r, size_t i)
{
  const struct rc_step *st = &r->spec->steps[i];
  bool live = r->io.live_stdin && i + 1 == r->spec->n_steps;
  r->step = i;
  r->started = false;
  r->w = (struct rc_watch){
    .limits = &st->limits,
    .stdin_data = live ? NULL : st->stdin_data,
    .stdin_len = live ? 0 : st->stdin_len,
    .stdin_live = live,
    .stdin_fd = r->in_w[i],
    .out_fd = r->out_r[i],
    .err_fd = r->err_r[i],
    .exit_fd = r->ctl,
    .read_exit = run_read_exit,
    .cpu_us = run_cpu_us,
    .kill = run_kill,
    .oom_kills = run_oom_kills,
    .memory_sample = run_memory_sample,
    .ctx = r,
    .on_output = r->io.on_output ? run_output : NULL,
    .output_ud = r,
    .res = &r->res.steps[i],
    .output_used = &r->output_used,
  };
  /* The watch owns (and closes) them from here on. */
  r->in_w[i] = r->out_r[i] = r->err_r[i] = -1;
  rc_watch_begin (&r->w);
}

static void
run_free (struct rc_run *r)
{
  for (size_t i = 0; i < MAX_STEPS; i++)
    {
      close_fd (&r->in_w[i]);
      close_fd (&r->out_r[i]);
      close_fd (&r->err_r[i]);
    }
  rc_watch_end (&r->w);
  rc_cgroup_meter_close (&r->meter);
  close_fd (&r->ctl);
  close_fd (&r->tty);
  rc_error_free (&r->fail);
  free (r);
}

int
rc_run_start (struct rc_sandbox *sb, const struct rc_job_spec *spec, uint32_t claim_seq,
              const struct rc_run_io *io, struct rc_run **out, rc_err_t *err)
{
  struct rc_run *r = calloc (1, sizeof *r);
  int child_fds[RC_CTL_MAX_FDS];
  size_t n = 1;
  struct rc_ctl m = { .type = RC_CTL_JOB, .value = (int32_t)claim_seq };
  int memfd = -1;

  if (r == NULL)
    {
      rc_sandbox_release (sb, spec->slot, claim_seq);
      return rc_error_set (err, ENOMEM, "sandbox: run errno=%d", ENOMEM);
    }
  r->sb = sb;
  r->spec = spec;
  r->seq = claim_seq;
  r->ctl = -1;
  r->tty = -1;
  r->t0 = rc_now_us ();
  r->w.stdin_fd = r->w.out_fd = r->w.err_fd = -1;
  rc_cgroup_meter_init (&r->meter);
  for (size_t i = 0; i < MAX_STEPS; i++)
    r->in_w[i] = r->out_r[i] = r->err_r[i] = -1;
  if (io)
    r->io = *io;
  r->res.steps = calloc (spec->n_steps, sizeof (*r->res.steps));
  if (r->res.steps == NULL || spec->n_steps > MAX_STEPS)
    {
      rc_error_set (err, ENOMEM, "sandbox: result errno=%d", ENOMEM);
      goto fail;
    }
  r->res.n_steps = spec->n_steps;
  if (sb->mode != RC_SANDBOX_ISOLATED)
    {
      /* The development fallback runs a job in one blocking call only. */
      rc_error_set (err, ENOTSUP, "sandbox: interactive job errno=%d: needs the sandbox", ENOTSUP);
      goto fail;
    }
  adjust_stdin (r);
  spec = r->spec;
  if (rc_sandbox_drop_bounding (sb, err) < 0)
    goto fail;
  if (rc_ctl_spec_encode (spec, &memfd, err) < 0)
    goto fail;
  child_fds[0] = memfd;
  if (make_pipes (r, child_fds, &n, err) < 0)
    goto fail_fds;
  /* The session's directory and the build directory go as detached
   * copies of their mounts, which the init attaches in its own namespace
   * (a plain bind across mount namespaces is refused): the session's at
   * /sandbox, the build directory at /tmp or under its overlay. */
  if ((spec->workspace == RC_WORKSPACE_BIND
       && push_tree (spec->bind_dirfd, "session", child_fds, &n, err) < 0)
      || (spec->tmp != RC_TMP_FRESH && push_tree (spec->tmp_dirfd, "tmp", child_fds, &n, err) < 0))
    goto fail_fds;
  r->ctl = connect_slot (sb, spec->slot, err);
  if (r->ctl < 0)
    goto fail_fds;
  if (rc_ctl_send (r->ctl, &m, child_fds, n) < 0
      || rc_ctl_send_simple (r->ctl, RC_CTL_GO, 0, 0, NULL) < 0)
    {
      failed_send (r->ctl, err);
      goto fail_fds;
    }
  for (size_t i = 0; i < n; i++)
    close (child_fds[i]);
  watch_step (r, 0);
  *out = r;
  return 0;
fail_fds:
  for (size_t i = 0; i < n; i++)
    close (child_fds[i]);
fail:
  if (r->ctl < 0)
    rc_sandbox_release (sb, spec->slot, claim_seq);
  rc_job_result_free (&r->res);
  run_free (r);
  return -1;
}

size_t
rc_run_pollfds (struct rc_run *r, struct pollfd *pfd, int *timeout_ms)
{
  return rc_watch_pollfds (&r->w, pfd, timeout_ms);
}

int
rc_run_handle (struct rc_run *r, const struct pollfd *pfd, size_t n, rc_err_t *err)
{
  const struct rc_step *st = &r->spec->steps[r->step];
  struct rc_step_result *res = &r->res.steps[r->step];
  uint64_t peak = 0;
  int k = rc_watch_handle (&r->w, pfd, n, err);

  if (k <= 0)
    return k;
  /* The step is over: its memory figure, then the next step or the end. */
  if (r->started && rc_cgroup_meter_peak (&r->meter, &peak, NULL) == 0)
    res->memory_peak_kb = peak / 1024;

  if (res->outcome == RC_OUTCOME_MEMORY && res->memory_peak_kb < st->limits.memory_bytes / 1024)
    res->memory_peak_kb = st->limits.memory_bytes / 1024; /* it reached the limit */
  if (r->init_gone && res->outcome != RC_OUTCOME_MEMORY && !r->w.killed)
    /* Its init died under it, and not of the memory limit: the sandbox
     * failed, the step's result cannot be trusted. */
    return rc_error_set (err, EPIPE, "sandbox: the slot's init died errno=%d", EPIPE);
  if (r->w.killed || r->init_gone)
    return 1; /* the job is gone: later steps do not run */
  if (st->stop_on_failure && !(res->exited && res->exit_code == 0))
    return 1;
  if (r->step + 1 >= r->spec->n_steps)
    return 1;
  if (rc_ctl_send_simple (r->ctl, RC_CTL_GO, (uint32_t)r->step + 1, 0, NULL) < 0)
    return rc_error_sys (err, "sandbox: control socket errno=%d", errno);
  rc_cgroup_meter_close (&r->meter);
  watch_step (r, r->step + 1);
  return 0;
}

int
rc_run_stdin (struct rc_run *r, const void *data, size_t len, bool eof)
{
  size_t max = r->io.stdin_buffer ? r->io.stdin_buffer : 65536;
  if (!r->w.stdin_live || r->w.done)
    {
      errno = EPIPE;
      return -1;
    }
  if (r->spec->steps[r->step].tty && eof)
    {
      /* A terminal has no end of input to close: its EOF character makes
       * a read return what the line holds (nothing, at its start). */
      static const char veof = 4;
      if (len && rc_watch_stdin (&r->w, data, len, false, max - 1) < 0)
        return -1;
      return rc_watch_stdin (&r->w, &veof, 1, false, max);
    }
  return rc_watch_stdin (&r->w, data, len, eof, max);
}

int
rc_run_resize (struct rc_run *r, unsigned rows, unsigned cols)
{
  struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
  if (!r->io.tty || r->w.done)
    {
      errno = ENOTTY;
      return -1;
    }
  r->rows = ws.ws_row;
  r->cols = ws.ws_col;
  /* Before the terminal exists the size waits for it (tty_take). */
  return r->tty >= 0 ? ioctl (r->tty, TIOCSWINSZ, &ws) : 0;
}

int
rc_run_signal (struct rc_run *r, int sig)
{
  if (r->init_gone || r->w.done)
    {
      errno = ESRCH;
      return -1;
    }
  return rc_ctl_send_simple (r->ctl, RC_CTL_SIGNAL, (uint32_t)r->step, sig, NULL);
}

void
rc_run_stop (struct rc_run *r, enum rc_outcome why)
{
  rc_watch_stop (&r->w, why);
}

int
rc_run_cpu_us (struct rc_run *r, uint64_t *us)
{
  return run_cpu_us (r, us);
}

size_t
rc_run_step_index (const struct rc_run *r)
{
  return r->step;
}

int
rc_run_finish (struct rc_run *r, struct rc_job_result *res, rc_err_t *err)
{
  struct rc_sandbox *sb = r->sb;
  /* The job is over: cleaning from now on, for any claimer that comes
   * before the END (the slot will be ready soon, not busy).  The claim
   * ends with END (or the connection closing): the init then clears the
   * job away and marks the slot ready on its own. */
  (void)rc_slot_mark_cleaning ((unsigned)r->spec->slot, r->seq);
  if (!r->init_gone && sb->n_ending < sizeof sb->ending / sizeof sb->ending[0])
    {
      sb->ending_slot[sb->n_ending] = r->spec->slot;
      sb->ending[sb->n_ending++] = r->ctl;
      r->ctl = -1;
    }
  r->res.setup_us = r->started_us ? r->started_us - r->t0 : 0;
  *res = r->res;
  memset (&r->res, 0, sizeof r->res);
  run_free (r);
  (void)err;
  return 0;
}

/* Sends END on ending[i] and, with wait, waits for the init to close the
 * connection: it does once it has killed and reaped every process of the
 * job. */
static void
end_one (int fd, bool wait, uint64_t deadline)
{
  (void)rc_ctl_send_simple (fd, RC_CTL_END, 0, 0, NULL);
  while (wait)
    {
      struct pollfd p = { .fd = fd, .events = POLLIN };
      uint64_t now = rc_now_ms ();
      char c;
      if (now >= deadline || poll (&p, 1, (int)(deadline - now)) <= 0
          || recv (fd, &c, 1, MSG_DONTWAIT) <= 0)
        break;
    }
  close (fd);
}

void
rc_sandbox_end_claims (struct rc_sandbox *sb, bool wait)
{
  uint64_t deadline = rc_now_ms () + 3000;
  /* Every END first, so the inits clear their jobs at the same time. */
  for (size_t i = 0; i < sb->n_ending; i++)
    (void)rc_ctl_send_simple (sb->ending[i], RC_CTL_END, 0, 0, NULL);
  for (size_t i = 0; i < sb->n_ending; i++)
    end_one (sb->ending[i], wait, deadline);
  sb->n_ending = 0;
}

void
rc_sandbox_end_claim (struct rc_sandbox *sb, int slot, bool wait)
{
  for (size_t i = 0; i < sb->n_ending; i++)
    if (sb->ending_slot[i] == slot)
      {
        end_one (sb->ending[i], wait, rc_now_ms () + 3000);
        sb->n_ending--;
        sb->ending[i] = sb->ending[sb->n_ending];
        sb->ending_slot[i] = sb->ending_slot[sb->n_ending];
        return;
      }
}

void
rc_sandbox_release (struct rc_sandbox *sb, int slot, uint32_t claim_seq)
{
  struct rc_ctl m = { .type = RC_CTL_END, .value = (int32_t)claim_seq };
  rc_err_t err = NULL;
  int fd;

  if (slot < 0)
    return;
  if (sb->mode != RC_SANDBOX_ISOLATED)
    {
      if (rc_slot_mark_cleaning ((unsigned)slot, claim_seq))
        rc_slot_mark_ready ((unsigned)slot, 0);
      return;
    }
  fd = connect_slot (sb, slot, &err);
  if (fd < 0 || rc_ctl_send (fd, &m, NULL, 0) < 0)
    {
      rc_log (RC_LOG_WARN, "slot_release", "slot %d: %s", slot,
              err ? rc_error_text (err) : "cannot send END");
      rc_error_free (&err);
      rc_slot_mark_broken ((unsigned)slot);
    }
  if (fd >= 0)
    close (fd);
}
