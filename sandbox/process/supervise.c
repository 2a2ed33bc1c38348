/* supervise.c - the supervising side of one step: feed stdin, collect
 * stdout and stderr, run the clocks, enforce the output caps, kill on any
 * limit.
 *
 * A state machine driven by poll(2), no threads: rc_watch_pollfds says
 * what to wait for and how long, rc_watch_handle acts on what came, so a
 * caller can wait for other things beside the step (a streaming client,
 * the interactor of a judged test, a process's subscribers) in the same
 * poll.  rc_watch_run is the plain loop.  Stdin is written non-blocking in
 * chunks interleaved with draining the output pipes, so a program that
 * writes a lot before reading its input cannot deadlock with us.  The
 * clocks are those of reference 002: wall (CLOCK_MONOTONIC), idle (no
 * output and no stdin consumed), CPU (cgroup usage, sampled at most every
 * 50 ms so a spin loop overshoots by at most that).  The first clock to
 * fire kills the step through w->kill; what was read so far is kept.
 *
 * Memory: the kernel's OOM kill is counted once the step ended; while it
 * runs, the cgroup is sampled every RC_THRASH_POLL_MS for a program stuck
 * at its limit re-reading its own pages (thrash.c), which would otherwise
 * only end at the wall clock.
 *
 * Output caps: stream_bytes per stream is a hard limit (kill, outcome
 * OUTPUT); output_bytes is a combined budget for the job (bytes past it
 * are dropped, truncated=true, the program keeps running and its pipes
 * keep being drained so it never blocks on a full pipe).
 *
 * After the main process ended we keep reading until both pipes reach EOF,
 * but at most RC_DRAIN_MS: a background process still holding a pipe
 * cannot stretch the step; it dies with the job.
 *
 * The step's verdict (rc_outcome) is decided here and nowhere else:
 * rc_step_decide, once the step ended.
 */
#include "config.h"

#include "sandbox/process/process.h"

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

enum
{
  SLOT_IN = 0,
  SLOT_OUT,
  SLOT_ERR,
  SLOT_EXIT
};

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
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

static void
watch_fire (struct rc_watch *w, enum rc_outcome kind)
{
  if (!w->killed)
    {
      w->kill (w->ctx);
      w->killed = true;
      w->killed_at_us = rc_now_us ();
    }
  if (w->fired == RC_OUTCOME_NONE)
    w->fired = kind; /* the first limit to fire is the one reported */
}

void
rc_watch_stop (struct rc_watch *w, enum rc_outcome why)
{
  if (!w->done && !w->exited)
    watch_fire (w, why);
}

/* Accounts n bytes read from one stream: the per-stream cap kills, the
 * combined budget drops. */
static int
watch_take (struct rc_watch *w, int stream, struct rc_buf *buf, uint64_t *stream_total,
            const char *data, size_t n)
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
  if (keep && w->on_output)
    w->on_output (w->output_ud, stream, data, keep);
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
drain_stream (struct rc_watch *w, int stream)
{
  int *fd = stream == 1 ? &w->out_fd : &w->err_fd;
  struct rc_buf *buf = stream == 1 ? &w->res->out : &w->res->err;
  uint64_t *total = stream == 1 ? &w->out_total : &w->err_total;
  char chunk[8192];
  ssize_t k = read (*fd, chunk, sizeof chunk);
  if (k > 0)
    {
      w->last_activity_us = rc_now_us ();
      return watch_take (w, stream, buf, total, chunk, (size_t)k);
    }
  if (k == 0 || (errno != EAGAIN && errno != EINTR))
    close_fd (fd);
  return 0;
}

static uint64_t
ms_until (uint64_t deadline_us, uint64_t now)
{
  if (deadline_us <= now)
    return 0;
  return (deadline_us - now + 999) / 1000;
}

void
rc_watch_begin (struct rc_watch *w)
{
  const struct rc_limits *l = w->limits;
  uint64_t now = rc_now_us ();

  w->killed = w->exited = w->done = w->stdin_eof = false;
  w->fired = RC_OUTCOME_NONE;
  w->wstatus = 0;
  w->start_us = w->last_activity_us = now;
  w->exited_at_us = w->killed_at_us = 0;
  w->out_total = w->err_total = 0;
  w->stdin_off = 0;
  memset (&w->stdin_live_buf, 0, sizeof w->stdin_live_buf);
  w->next_cpu_us = l->cpu_ms ? now + RC_CPU_POLL_MS * 1000 : 0;
  rc_thrash_reset (&w->thrash);
  w->next_mem_us = w->memory_sample && l->memory_bytes ? now + RC_THRASH_POLL_MS * 1000 : 0;
  if (w->stdin_fd >= 0 && !w->stdin_live && w->stdin_len == 0)
    close_fd (&w->stdin_fd);
}

/* The clocks, checked before sleeping so a late wake-up still fires. */
static void
check_clocks (struct rc_watch *w, uint64_t now)
{
  const struct rc_limits *l = w->limits;
  uint64_t cpu = 0;

  if (w->exited || w->killed)
    return;
  if (l->wall_ms && now >= w->start_us + l->wall_ms * 1000)
    watch_fire (w, RC_OUTCOME_WALL);
  else if (l->idle_ms && now >= w->last_activity_us + l->idle_ms * 1000)
    watch_fire (w, RC_OUTCOME_IDLE);
  else if (l->cpu_ms && now >= w->next_cpu_us)
    {
      if (w->cpu_us (w->ctx, &cpu) == 0 && cpu >= l->cpu_ms * 1000)
        watch_fire (w, RC_OUTCOME_CPU);
      w->next_cpu_us = now + RC_CPU_POLL_MS * 1000;
    }
  if (!w->killed && w->next_mem_us && now >= w->next_mem_us)
    {
      struct rc_memory_sample ms;
      if (w->memory_sample (w->ctx, &ms) == 0 && rc_thrash_feed (&w->thrash, now, &ms))
        {
          watch_fire (w, RC_OUTCOME_MEMORY);
          w->res->thrashed = w->fired == RC_OUTCOME_MEMORY;
          w->res->thrash_rate = w->thrash.rate;
        }
      w->next_mem_us = now + RC_THRASH_POLL_MS * 1000;
    }
}

static bool
stdin_pending (const struct rc_watch *w)
{
  if (w->stdin_live)
    return w->stdin_live_buf.len > w->stdin_off || w->stdin_eof;
  return w->stdin_off < w->stdin_len;
}

size_t
rc_watch_pollfds (struct rc_watch *w, struct pollfd *pfd, int *timeout_ms)
{
  const struct rc_limits *l = w->limits;
  uint64_t now = rc_now_us (), t = UINT64_MAX;
  size_t n = 0;

  for (int i = 0; i < 4; i++)
    w->slots[i] = -1;
  if (!w->exited && !w->killed)
    {
      if (l->wall_ms)
        t = ms_until (w->start_us + l->wall_ms * 1000, now);
      if (l->idle_ms && ms_until (w->last_activity_us + l->idle_ms * 1000, now) < t)
        t = ms_until (w->last_activity_us + l->idle_ms * 1000, now);
      if (l->cpu_ms && ms_until (w->next_cpu_us, now) < t)
        t = ms_until (w->next_cpu_us, now);
      if (w->next_mem_us && ms_until (w->next_mem_us, now) < t)
        t = ms_until (w->next_mem_us, now);
    }
  else if (w->exited)
    t = ms_until (w->exited_at_us + RC_DRAIN_MS * 1000, now);
  else
    t = 1000; /* killed: the exit notice comes promptly */
  if (w->exit_fd < 0 && !w->exited && t > 10)
    t = 10;
  if (t > 60000)
    t = 60000;
  *timeout_ms = (int)t;

  if (w->stdin_fd >= 0 && stdin_pending (w))
    {
      w->slots[SLOT_IN] = (int)n;
      pfd[n++] = (struct pollfd){ .fd = w->stdin_fd, .events = POLLOUT };
    }
  if (w->out_fd >= 0)
    {
      w->slots[SLOT_OUT] = (int)n;
      pfd[n++] = (struct pollfd){ .fd = w->out_fd, .events = POLLIN };
    }
  if (w->err_fd >= 0)
    {
      w->slots[SLOT_ERR] = (int)n;
      pfd[n++] = (struct pollfd){ .fd = w->err_fd, .events = POLLIN };
    }
  if (!w->exited && w->exit_fd >= 0)
    {
      w->slots[SLOT_EXIT] = (int)n;
      pfd[n++] = (struct pollfd){ .fd = w->exit_fd, .events = POLLIN };
    }
  return n;
}

static void
write_stdin (struct rc_watch *w)
{
  const char *data = w->stdin_live ? w->stdin_live_buf.data : w->stdin_data;
  size_t len = w->stdin_live ? w->stdin_live_buf.len : w->stdin_len;
  size_t left = len - w->stdin_off;
  ssize_t k = 0;

  if (left > 0)
    {
      k = write (w->stdin_fd, data + w->stdin_off, left > RC_STDIN_CHUNK ? RC_STDIN_CHUNK : left);
      if (k > 0)
        {
          w->stdin_off += (size_t)k;
          w->last_activity_us = rc_now_us ();
        }
    }
  /* EPIPE: the program closed its stdin; it simply did not read it. */
  if (k < 0 && errno != EAGAIN && errno != EINTR)
    {
      close_fd (&w->stdin_fd);
      return;
    }
  if (w->stdin_off == len)
    {
      if (w->stdin_live)
        {
          rc_buf_reset (&w->stdin_live_buf);
          w->stdin_off = 0;
          if (w->stdin_eof)
            close_fd (&w->stdin_fd);
        }
      else
        close_fd (&w->stdin_fd);
    }
}

int
rc_watch_stdin (struct rc_watch *w, const void *data, size_t len, bool eof, size_t max_buffered)
{
  if (w->stdin_fd < 0 || w->stdin_eof)
    {
      errno = EPIPE;
      return -1;
    }
  if (w->stdin_live_buf.len - w->stdin_off + len > max_buffered)
    {
      errno = ENOSPC;
      return -1;
    }
  if (len && rc_buf_append (&w->stdin_live_buf, data, len) < 0)
    return -1;
  w->stdin_eof = eof;
  /* Activity for the idle clock (reference 002: stdin counts). */
  w->last_activity_us = rc_now_us ();
  if (eof && w->stdin_live_buf.len == w->stdin_off)
    close_fd (&w->stdin_fd);
  else if (w->stdin_live_buf.len > w->stdin_off)
    /* Written now, not at the next turn of the caller's poll: the pipe
     * (non-blocking) takes what it can, the rest waits for POLLOUT.  A
     * program waiting on its stdin sees the bytes one loop sooner. */
    write_stdin (w);
  return 0;
}

void
rc_watch_end (struct rc_watch *w)
{
  close_fd (&w->stdin_fd);
  close_fd (&w->out_fd);
  close_fd (&w->err_fd);
  rc_buf_free (&w->stdin_live_buf);
}

/* The step is over: its result, from its wait status and the counters. */
static int
finish (struct rc_watch *w, rc_err_t *err)
{
  struct rc_step_result *r = w->res;
  uint64_t cpu = 0, ooms = 0;

  rc_watch_end (w);
  w->done = true;
  r->ran = true;
  r->wall_ms = ((w->exited_at_us ? w->exited_at_us : rc_now_us ()) - w->start_us) / 1000;
  rc_step_set_status (r, w->wstatus);
  if (w->cpu_us (w->ctx, &cpu) == 0)
    r->cpu_ms = cpu / 1000;
  if (w->oom_kills && w->oom_kills (w->ctx, &ooms, err) < 0)
    return rc_error_wrap (err, "sandbox: cgroup oom count errno=%d", (*err)->status);
  r->outcome = rc_step_decide (r, w->fired, ooms);
  return 1;
}

int
rc_watch_handle (struct rc_watch *w, const struct pollfd *pfd, size_t n, rc_err_t *err)
{
  uint64_t now = rc_now_us ();
  (void)n;

  if (w->done)
    return 1;
  /* SIGKILL ends anything but a task stuck in the kernel; the step must
   * end even then, with its result untrusted. */
  if (w->killed && !w->exited && now >= w->killed_at_us + RC_KILL_WAIT_MS * 1000)
    {
      rc_watch_end (w);
      return rc_error_set (err, ETIMEDOUT, "sandbox: kill errno=%d: the step did not end",
                           ETIMEDOUT);
    }
  if (w->slots[SLOT_IN] >= 0 && pfd[w->slots[SLOT_IN]].revents && w->stdin_fd >= 0)
    write_stdin (w);
  if ((w->slots[SLOT_OUT] >= 0 && pfd[w->slots[SLOT_OUT]].revents && w->out_fd >= 0
       && drain_stream (w, 1) < 0)
      || (w->slots[SLOT_ERR] >= 0 && pfd[w->slots[SLOT_ERR]].revents && w->err_fd >= 0
          && drain_stream (w, 2) < 0))
    {
      rc_watch_end (w);
      return rc_error_set (err, ENOMEM, "sandbox: output buffer errno=%d", ENOMEM);
    }
  if (!w->exited && (w->exit_fd < 0 || (w->slots[SLOT_EXIT] >= 0 && pfd[w->slots[SLOT_EXIT]].revents)))
    {
      int e = w->read_exit (w->ctx, &w->wstatus, err);
      if (e < 0)
        {
          rc_watch_end (w);
          return -1;
        }
      if (e > 0)
        {
          w->exited = true;
          w->exited_at_us = rc_now_us ();
          /* The stdin pipe is useless now. */
          close_fd (&w->stdin_fd);
        }
    }
  now = rc_now_us ();
  check_clocks (w, now);
  if (w->exited
      && ((w->out_fd < 0 && w->err_fd < 0) || now >= w->exited_at_us + RC_DRAIN_MS * 1000))
    return finish (w, err);
  return 0;
}

/* A program that closes its stdin early makes our write fail with EPIPE
 * and raise SIGPIPE, which would kill a process that did not ignore it.
 * The signal is blocked while we supervise and a SIGPIPE we caused is
 * consumed before the mask is restored; the process-wide disposition is
 * never touched. */
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

int
rc_watch_run (struct rc_watch *w, rc_err_t *err)
{
  struct sigpipe_guard g;
  int r = 0;

  sigpipe_block (&g);
  rc_watch_begin (w);
  while (r == 0)
    {
      struct pollfd pfd[4];
      int timeout;
      size_t n = rc_watch_pollfds (w, pfd, &timeout);
      if (poll (pfd, (nfds_t)n, timeout) < 0 && errno != EINTR)
        {
          rc_watch_end (w);
          r = rc_error_sys (err, "sandbox: poll errno=%d", errno);
          break;
        }
      r = rc_watch_handle (w, pfd, n, err);
    }
  sigpipe_restore (&g);
  return r < 0 ? -1 : 0;
}
