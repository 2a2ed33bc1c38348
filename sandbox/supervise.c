/* supervise.c - the worker's side of one step: feed stdin, collect stdout
 * and stderr, run the clocks, enforce the output caps, kill on any limit.
 *
 * One poll(2) loop, no threads.  Stdin is written non-blocking in chunks
 * interleaved with draining the output pipes, so a program that writes a
 * lot before reading its input cannot deadlock with us.  The clocks are
 * those of reference 002: wall (CLOCK_MONOTONIC), idle (no output and no
 * stdin consumed), CPU (cgroup usage, sampled at most every 50 ms so a spin
 * loop overshoots by at most that).  The first clock to fire kills the
 * whole sandbox through w->kill; what was read so far is kept.
 *
 * Memory: the kernel's OOM kill is counted once the step ended; while it
 * runs, the cgroup is sampled every RC_THRASH_POLL_MS for a program stuck
 * at its limit re-reading its own pages (thrash.c), which would otherwise
 * only end at the wall clock.  Steps without a memory limit, and steps
 * shorter than one interval, read nothing.
 *
 * Output caps: stream_bytes per stream is a hard limit (kill, outcome
 * OUTPUT); output_bytes is a combined budget for the
 * job (bytes past it are dropped, truncated=true, the program keeps running
 * and its pipes keep being drained so it never blocks on a full pipe).
 *
 * After the main process ended we keep reading until both pipes reach EOF,
 * but at most RC_DRAIN_MS: a background process still holding a pipe
 * cannot stretch the step; it dies with the sandbox at the end of the job.
 *
 * The step's verdict (rc_outcome) is decided here and nowhere else:
 * rc_step_decide, once the step ended.
 */
#include "config.h"

#include "sandbox/sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RC_CPU_POLL_MS 50
#define RC_DRAIN_MS 100
#define RC_KILL_WAIT_MS 10000
#define RC_STDIN_CHUNK 65536

void
rc_step_set_status (struct rc_step_result *r, int wstatus)
{
  if (WIFSIGNALED (wstatus))
    {
      r->exited = false;
      r->term_signal = WTERMSIG (wstatus);
      r->exit_code = 0;
    }
  else
    {
      r->exited = true;
      r->exit_code = WEXITSTATUS (wstatus);
      r->term_signal = 0;
    }
}

enum rc_outcome
rc_step_decide (const struct rc_step_result *r, enum rc_outcome fired, uint64_t oom_kills)
{
  if (fired != RC_OUTCOME_NONE)
    return fired;
  if (oom_kills > 0)
    return RC_OUTCOME_MEMORY;
  if (!r->exited && r->term_signal == SIGXCPU)
    return RC_OUTCOME_CPU;
  return r->exited ? RC_OUTCOME_EXITED : RC_OUTCOME_SIGNALLED;
}

static void
watch_fire (struct rc_watch *w, enum rc_outcome kind)
{
  if (!w->killed)
    {
      w->kill (w->ctx);
      w->killed = true;
    }
  if (w->fired == RC_OUTCOME_NONE)
    w->fired = kind; /* the first limit to fire is the one reported */
}

/* Accounts n bytes read from one stream: the per-stream cap kills, the
 * combined budget drops. */
static int
watch_take (struct rc_watch *w, struct rc_buf *buf, uint64_t *stream_total, const char *data,
            size_t n)
{
  const struct rc_limits *l = w->limits;
  size_t keep = n;
  bool overflow = false;

  if (l->stream_bytes && *stream_total + n > l->stream_bytes)
    {
      /* Bytes may still arrive after the kill: the cap stays exact. */
      keep = *stream_total < l->stream_bytes ? (size_t)(l->stream_bytes - *stream_total) : 0;
      overflow = true;
    }
  *stream_total += n;
  if (l->output_bytes && *w->output_used + keep > l->output_bytes)
    {
      keep = (size_t)(l->output_bytes
                      - (*w->output_used < l->output_bytes ? *w->output_used : l->output_bytes));
      w->res->truncated = true;
    }
  *w->output_used += keep;
  if (keep && rc_buf_append (buf, data, keep) < 0)
    return -ENOMEM;
  if (overflow)
    watch_fire (w, RC_OUTCOME_OUTPUT);
  return 0;
}

/* Reads what one of the program's streams has ready into its buffer; at
 * end of file or on a hard error the stream is closed.  -1: out of memory.
 * Small reads, one per stream per round: when both streams flood, the
 * combined output budget is shared between them instead of going to
 * whichever is read first. */
static int
drain_stream (struct rc_watch *w, int *fd, struct rc_buf *buf, uint64_t *stream_total,
              uint64_t *last_activity)
{
  char chunk[8192];
  ssize_t k = read (*fd, chunk, sizeof chunk);
  if (k > 0)
    {
      *last_activity = rc_now_us ();
      return watch_take (w, buf, stream_total, chunk, (size_t)k);
    }
  if (k == 0 || (errno != EAGAIN && errno != EINTR))
    {
      close (*fd);
      *fd = -1;
    }
  return 0;
}

static uint64_t
ms_until (uint64_t deadline_us, uint64_t now)
{
  if (deadline_us <= now)
    return 0;
  return (deadline_us - now + 999) / 1000;
}

/* A program that closes its stdin early makes our write fail with EPIPE
 * and raise SIGPIPE, which would kill a worker (or `runcell exec`) that
 * did not ignore it.  The signal is blocked while we supervise and a
 * SIGPIPE we caused is consumed before the mask is restored; the
 * process-wide disposition is never touched. */
struct sigpipe_guard
{
  sigset_t old;
  bool was_pending;
};

static void
sigpipe_block (struct sigpipe_guard *g)
{
  sigset_t set, pending;
  sigemptyset (&set);
  sigaddset (&set, SIGPIPE);
  sigpending (&pending);
  g->was_pending = sigismember (&pending, SIGPIPE) == 1;
  sigprocmask (SIG_BLOCK, &set, &g->old);
}

static void
sigpipe_restore (struct sigpipe_guard *g)
{
  sigset_t set, pending;
  struct timespec zero = { 0, 0 };
  sigemptyset (&set);
  sigaddset (&set, SIGPIPE);
  sigpending (&pending);
  if (!g->was_pending && sigismember (&pending, SIGPIPE) == 1)
    while (sigtimedwait (&set, NULL, &zero) < 0 && errno == EINTR)
      ;
  sigprocmask (SIG_SETMASK, &g->old, NULL);
}

static int watch_loop (struct rc_watch *w, rc_err_t *err);

int
rc_watch_run (struct rc_watch *w, rc_err_t *err)
{
  struct sigpipe_guard g;
  int r;
  sigpipe_block (&g);
  r = watch_loop (w, err);
  sigpipe_restore (&g);
  return r;
}

static int
watch_loop (struct rc_watch *w, rc_err_t *err)
{
  const struct rc_limits *l = w->limits;
  struct rc_step_result *r = w->res;
  uint64_t start = rc_now_us (), last_activity = start, exited_at = 0, next_cpu = 0;
  uint64_t next_mem = 0, out_total = 0, err_total = 0, cpu = 0, killed_at = 0;
  struct rc_thrash thrash;
  size_t stdin_off = 0;
  bool exited = false;
  int wstatus = 0, ret = 0;

  if (w->stdin_fd >= 0 && w->stdin_len == 0)
    {
      close (w->stdin_fd);
      w->stdin_fd = -1;
    }
  if (l->cpu_ms)
    next_cpu = start + RC_CPU_POLL_MS * 1000;
  rc_thrash_reset (&thrash);
  if (w->memory_sample && l->memory_bytes)
    next_mem = start + RC_THRASH_POLL_MS * 1000;

  for (;;)
    {
      struct pollfd pfd[4];
      int nfd = 0, i_in = -1, i_out = -1, i_err = -1, i_exit = -1, n;
      uint64_t now = rc_now_us (), timeout_ms = UINT64_MAX;

      if (exited && ((w->out_fd < 0 && w->err_fd < 0) || now >= exited_at + RC_DRAIN_MS * 1000))
        break;
      /* SIGKILL ends anything but a task stuck in the kernel; the loop
       * must end even then, with the step's result untrusted. */
      if (w->killed && killed_at == 0)
        killed_at = now;
      if (w->killed && !exited && now >= killed_at + RC_KILL_WAIT_MS * 1000)
        {
          ret = rc_error_set (err, ETIMEDOUT, "sandbox: kill errno=%d: the step did not end",
                              ETIMEDOUT);
          break;
        }

      /* Clocks, checked before sleeping so a late wake-up still fires. */
      if (!exited && !w->killed)
        {
          if (l->wall_ms && now >= start + l->wall_ms * 1000)
            watch_fire (w, RC_OUTCOME_WALL);
          else if (l->idle_ms && now >= last_activity + l->idle_ms * 1000)
            watch_fire (w, RC_OUTCOME_IDLE);
          else if (l->cpu_ms && now >= next_cpu)
            {
              if (w->cpu_us (w->ctx, &cpu) == 0 && cpu >= l->cpu_ms * 1000)
                watch_fire (w, RC_OUTCOME_CPU);
              next_cpu = now + RC_CPU_POLL_MS * 1000;
            }
          if (!w->killed && next_mem && now >= next_mem)
            {
              struct rc_memory_sample ms;
              if (w->memory_sample (w->ctx, &ms) == 0 && rc_thrash_feed (&thrash, now, &ms))
                {
                  watch_fire (w, RC_OUTCOME_MEMORY);
                  r->thrashed = w->fired == RC_OUTCOME_MEMORY;
                  r->thrash_rate = thrash.rate;
                }
              next_mem = now + RC_THRASH_POLL_MS * 1000;
            }
        }
      if (!exited && !w->killed)
        {
          if (l->wall_ms)
            timeout_ms = ms_until (start + l->wall_ms * 1000, now);
          if (l->idle_ms && ms_until (last_activity + l->idle_ms * 1000, now) < timeout_ms)
            timeout_ms = ms_until (last_activity + l->idle_ms * 1000, now);
          if (l->cpu_ms && ms_until (next_cpu, now) < timeout_ms)
            timeout_ms = ms_until (next_cpu, now);
          if (next_mem && ms_until (next_mem, now) < timeout_ms)
            timeout_ms = ms_until (next_mem, now);
        }
      else if (exited)
        timeout_ms = ms_until (exited_at + RC_DRAIN_MS * 1000, now);
      else
        timeout_ms = 1000; /* killed: the exit notice comes promptly */
      if (w->exit_fd < 0 && !exited && timeout_ms > 10)
        timeout_ms = 10;

      if (w->stdin_fd >= 0)
        {
          i_in = nfd;
          pfd[nfd++] = (struct pollfd){ .fd = w->stdin_fd, .events = POLLOUT };
        }
      if (w->out_fd >= 0)
        {
          i_out = nfd;
          pfd[nfd++] = (struct pollfd){ .fd = w->out_fd, .events = POLLIN };
        }
      if (w->err_fd >= 0)
        {
          i_err = nfd;
          pfd[nfd++] = (struct pollfd){ .fd = w->err_fd, .events = POLLIN };
        }
      if (!exited && w->exit_fd >= 0)
        {
          i_exit = nfd;
          pfd[nfd++] = (struct pollfd){ .fd = w->exit_fd, .events = POLLIN };
        }

      n = poll (pfd, (nfds_t)nfd, timeout_ms > 60000 ? 60000 : (int)timeout_ms);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          ret = rc_error_sys (err, "sandbox: poll errno=%d", errno);
          break;
        }

      if (i_in >= 0 && pfd[i_in].revents)
        {
          size_t left = w->stdin_len - stdin_off;
          ssize_t k = write (w->stdin_fd, w->stdin_data + stdin_off,
                             left > RC_STDIN_CHUNK ? RC_STDIN_CHUNK : left);
          if (k > 0)
            {
              stdin_off += (size_t)k;
              last_activity = rc_now_us ();
            }
          /* EPIPE: the program closed its stdin; it simply did not read it. */
          if ((k < 0 && errno != EAGAIN && errno != EINTR) || stdin_off == w->stdin_len)
            {
              close (w->stdin_fd);
              w->stdin_fd = -1;
            }
        }
      if ((i_out >= 0 && pfd[i_out].revents
           && drain_stream (w, &w->out_fd, &r->out, &out_total, &last_activity) < 0)
          || (i_err >= 0 && pfd[i_err].revents
              && drain_stream (w, &w->err_fd, &r->err, &err_total, &last_activity) < 0))
        {
          ret = rc_error_set (err, ENOMEM, "sandbox: output buffer errno=%d", ENOMEM);
          break;
        }
      if (!exited && (w->exit_fd < 0 || (i_exit >= 0 && pfd[i_exit].revents)))
        {
          int e = w->read_exit (w->ctx, &wstatus, err);
          if (e < 0)
            {
              ret = -1;
              break;
            }
          if (e > 0)
            {
              exited = true;
              exited_at = rc_now_us ();
              /* The stdin pipe is useless now; closing it also unblocks
               * nothing but keeps the loop from polling a dead reader. */
              if (w->stdin_fd >= 0)
                {
                  close (w->stdin_fd);
                  w->stdin_fd = -1;
                }
            }
        }
    }

  if (w->stdin_fd >= 0)
    close (w->stdin_fd);
  if (w->out_fd >= 0)
    close (w->out_fd);
  if (w->err_fd >= 0)
    close (w->err_fd);
  w->stdin_fd = w->out_fd = w->err_fd = -1;
  if (ret < 0)
    return ret;

  r->ran = true;
  r->wall_ms = (rc_now_us () - start) / 1000;
  if (exited_at)
    r->wall_ms = (exited_at - start) / 1000;
  rc_step_set_status (r, wstatus);
  if (w->cpu_us (w->ctx, &cpu) == 0)
    r->cpu_ms = cpu / 1000;
  {
    uint64_t ooms = 0;
    if (w->oom_kills && w->oom_kills (w->ctx, &ooms, err) < 0)
      return rc_error_wrap (err, "sandbox: cgroup oom count errno=%d", (*err)->status);
    r->outcome = rc_step_decide (r, w->fired, ooms);
  }
  return 0;
}
