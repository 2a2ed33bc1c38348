/* supervisor.c - a process's supervisor: its start, the run and its
 * events, its end; see supervisor.h for who does what.
 *
 * Its life:
 *   1. forked twice from the worker that took POST /v1/processes, so that
 *      the master (PR_SET_CHILD_SUBREAPER) becomes its parent: it reaps
 *      it, frees its table entry and ends its slot claim however it dies,
 *      and SIGTERMs it when the service stops; it takes the claim and the
 *      entry over from the worker (rc_slot_claim_transfer) first, so the
 *      worker's next request or its death changes nothing for it;
 *   2. listens on <RUN_STATE_DIR>/proc/<id>, starts the run (rc_run_start)
 *      and tells the worker, which answers 201;
 *   3. one poll loop: the run's pipes and clocks, the workers' requests;
 *      each stage and output chunk is an event of the numbered log;
 *   4. the program ends: its result is the exit event and the status, the
 *      claim ends (the slot's init clears the job away), a session is
 *      released, and the table counts it kept, not alive;
 *   5. it answers for RUN_PROCESS_KEEP_S more (or until a DELETE, or the
 *      master asks it to leave), then removes its socket and exits.
 */
#include "config.h"

#include "common/clock.h"
#include "common/fds.h"
#include "common/log.h"
#include "fcgi/metrics.h"
#include "fcgi/processes/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long the worker waits for the supervisor's word (the run's start
 * is a connect and a few messages to the slot's init). */
#define WORD_WAIT_MS 15000
/* Subscribers still reading when the process is forgotten get this long
 * to take the rest of the log. */
#define LEAVE_GRACE_MS 5000

struct word
{
  int32_t ok;          /* the run started */
  int32_t transferred; /* the claim and the entry are the supervisor's */
  char why[200];
};

static volatile sig_atomic_t got_term;

static void
on_term (int sig)
{
  (void)sig;
  got_term = 1;
}

/* ---- the run's events --------------------------------------------------- */

static void
flush_text (struct rc_sup *s)
{
  for (int stream = 1; stream <= 2; stream++)
    if (rc_sse_output_flush (&s->text, stream, s->a->base64, &s->data))
      (void)rc_sup_event (s, rc_sse_stream_name (stream), &s->data);
}

static void
on_step (void *ud, size_t step)
{
  struct rc_sup *s = ud;
  bool compile = s->a->ej->job.has_compile && step == 0;
  flush_text (s);
  s->state = compile ? RC_SUP_COMPILING : RC_SUP_RUNNING;
  s->run_started = !compile;
  rc_sse_stage (&s->data, compile ? "compile" : "run");
  (void)rc_sup_event (s, "stage", &s->data);
}

static void
on_output (void *ud, size_t step, int stream, const char *data, size_t len)
{
  struct rc_sup *s = ud;
  (void)step;
  if (rc_sse_output (&s->text, stream, data, len, s->a->base64, &s->data))
    (void)rc_sup_event (s, rc_sse_stream_name (stream), &s->data);
}

int
rc_sup_stdin (struct rc_sup *s, const char *data, size_t len, bool eof, const char **why)
{
  size_t max = s->a->app->cfg->input_max;
  if (s->pending_eof)
    {
      *why = "stdin is closed";
      return -1;
    }
  if (!s->run_started || s->pending.len)
    {
      /* The program has not started (it compiles, or its terminal is not
       * made yet): kept for it, in order. */
      if (s->pending.len + len > max)
        {
          *why = "stdin is full";
          return -1;
        }
      if (len && rc_buf_append (&s->pending, data, len) < 0)
        {
          *why = "stdin is full";
          return -1;
        }
      s->pending_eof = eof;
      return 0;
    }
  if (rc_run_stdin (s->run, data, len, eof) == 0)
    return 0;
  *why = errno == ENOSPC ? "stdin is full" : "stdin is closed";
  return -1;
}

void
rc_sup_stop (struct rc_sup *s)
{
  /* Reads as exited by SIGKILL, the signal it gets. */
  if (s->run)
    rc_run_stop (s->run, RC_OUTCOME_SIGNALLED);
}

/* The explanation lines rc_app_account_job added, as stderr events. */
static void
send_explanations (struct rc_sup *s, const size_t *err_len)
{
  for (size_t i = 0; i < s->result.n_steps && i < 2; i++)
    {
      struct rc_buf *e = &s->result.steps[i].err;
      if (e->len > err_len[i]
          && rc_sse_output (&s->text, 2, e->data + err_len[i], e->len - err_len[i], s->a->base64,
                            &s->data))
        (void)rc_sup_event (s, "stderr", &s->data);
    }
  flush_text (s);
}

/* The run is over (k: 1, or -1 with err on a sandbox failure). */
static void
finish_run (struct rc_sup *s, int k, rc_err_t *err, uint64_t t0_us)
{
  const struct rc_sup_args *a = s->a;
  const struct rc_job *job = &a->ej->job;
  struct rc_http_response logged = { 0 };
  size_t err_len[2] = { 0, 0 };

  (void)rc_run_finish (s->run, &s->result, NULL);
  s->run = NULL;
  s->state = RC_SUP_EXITED;
  flush_text (s);
  if (k < 0 || s->result.n_steps != job->spec.n_steps)
    {
      /* No result to give: the stream and the status say so. */
      rc_metrics_count_sandbox_failure ();
      rc_log (RC_LOG_ERROR, "sandbox_failure", "process %s, slot %d: %s", a->id, a->claim.slot,
              err && *err ? rc_error_text (*err) : "steps");
      rc_error_free (err);
      s->failed = true;
      rc_buf_reset (&s->data);
      rc_buf_append_str (&s->data, "{\"error\":\"internal\"}");
      rc_buf_append_str (&s->status, "{\"state\":\"exited\",\"error\":\"internal\"}");
      (void)rc_sup_event (s, "error", &s->data);
      logged.log_outcome = rc_outcome_name (RC_OUTCOME_SANDBOX);
    }
  else
    {
      for (size_t i = 0; i < s->result.n_steps && i < 2; i++)
        err_len[i] = s->result.steps[i].err.len;
      rc_app_account_job (&job->spec, &s->result);
      send_explanations (s, err_len);
      rc_execute_render (&s->data, &s->result, job->has_compile, a->base64);
      /* The status: the same object, plus "state". */
      rc_buf_append (&s->status, s->data.data, s->data.len - 1);
      rc_buf_append_str (&s->status, ",\"state\":\"exited\"}");
      (void)rc_sup_event (s, "exit", &s->data);
      rc_execute_log (&logged, &s->result, job->run_step, job->has_compile);
    }
  rc_metrics_record_request (a->lang, logged.log_outcome, s->result.setup_us,
                             logged.log_wall_ms * 1000, rc_now_us () - t0_us);
  rc_log (RC_LOG_INFO, "process_exited",
          "process %s (%s, slot %d): %s, wall %llu ms, cpu %llu ms, %llu events", a->id, a->lang,
          a->claim.slot, logged.log_outcome ? logged.log_outcome : "?",
          (unsigned long long)logged.log_wall_ms, (unsigned long long)logged.log_cpu_ms,
          (unsigned long long)s->n_events);
  /* The slot goes back (a session's only once every process of the job is
   * gone: its directory is read next), and the process no longer counts. */
  rc_sandbox_end_claims (a->app->sandbox, a->session != NULL);
  rc_proc_table_exited (a->entry, getpid ());
  if (a->session)
    rc_session_release (a->session);
}

/* ---- the start ---------------------------------------------------------- */

/* Only what the supervisor needs survives the fork: stdio (the log), the
 * word to the worker, a session's lock and directory.  The worker's
 * FastCGI sockets must not: nginx would wait on a connection nobody
 * answers. */
static void
close_inherited (const struct rc_sup_args *a, int word_fd)
{
  int keep[8];
  size_t n = 0;
  keep[n++] = word_fd;
  if (a->session)
    {
      keep[n++] = a->session->lockfd;
      keep[n++] = a->session->dirfd;
    }
  if (a->ej->job.spec.bind_dirfd >= 0)
    keep[n++] = a->ej->job.spec.bind_dirfd;
  rc_close_fds_except (keep, n);
}

static void
signals_setup (void)
{
  struct sigaction sa;
  sigset_t none;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_term; /* no SA_RESTART: the poll returns */
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  sa.sa_handler = SIG_IGN;
  sigaction (SIGPIPE, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
  sa.sa_handler = SIG_DFL;
  sigaction (SIGCHLD, &sa, NULL);
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
}

static int
listen_socket (const struct rc_sup_args *a)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int fd;
  if (rc_proc_sock_path (a->app->cfg, a->id, sa.sun_path, sizeof sa.sun_path) < 0)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  (void)unlink (sa.sun_path);
  if (bind (fd, (struct sockaddr *)&sa, sizeof sa) < 0 || chmod (sa.sun_path, 0600) < 0
      || listen (fd, 64) < 0)
    {
      int e = errno;
      close (fd);
      errno = e;
      return -1;
    }
  return fd;
}

/* Once re-parented to the master: a supervisor never outlives it. */
static int
adopted (pid_t master)
{
  for (int i = 0; i < 2000 && getppid () != master; i++)
    usleep (1000);
  if (prctl (PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid () != master)
    return -1;
  return 0;
}

static void __attribute__ ((noreturn, format (printf, 4, 5)))
sup_fail (const struct rc_sup_args *a, int word_fd, struct word *w, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (w->why, sizeof w->why, fmt, ap);
  va_end (ap);
  w->ok = 0;
  (void)!write (word_fd, w, sizeof *w);
  if (w->transferred)
    rc_proc_table_release (a->entry, getpid ());
  _exit (1);
}

/* ---- the loop ----------------------------------------------------------- */

static void
sup_loop (struct rc_sup *s, uint64_t t0_us)
{
  const struct rc_config *cfg = s->a->app->cfg;
  uint64_t keep_until = 0, leave_by = 0;

  for (;;)
    {
      struct pollfd pfd[RC_RUN_POLLFDS + 1 + RC_SUP_CLIENTS];
      int timeout = 1000;
      size_t nrun = 0, n;
      uint64_t now;
      rc_err_t err = NULL;

      if (s->run)
        nrun = rc_run_pollfds (s->run, pfd, &timeout);
      n = rc_sup_clients_pollfds (s, pfd, nrun);
      if (poll (pfd, (nfds_t)n, timeout) < 0 && errno != EINTR)
        rc_sup_stop (s);
      if (got_term)
        {
          /* The service stops, or too many are kept: the program ends (a
           * running one as if DELETEd), the process goes. */
          rc_sup_stop (s);
          s->leave = true;
        }
      if (s->run)
        {
          int k = rc_run_handle (s->run, pfd, nrun, &err);
          if (k != 0)
            {
              finish_run (s, k, &err, t0_us);
              keep_until = rc_now_ms () + cfg->process_keep_s * 1000;
            }
        }
      if (s->run && s->run_started && (s->pending.len || s->pending_eof))
        {
          /* What was typed while it compiled; rc_run_stdin takes all or
           * nothing, so it is retried until the pipe has room. */
          if (rc_run_stdin (s->run, s->pending.data, s->pending.len, s->pending_eof) == 0
              || errno != ENOSPC)
            {
              rc_buf_free (&s->pending);
              s->pending_eof = false;
            }
        }
      rc_sup_clients_handle (s, pfd, nrun, n);
      if (s->run)
        continue;
      now = rc_now_ms ();
      if (s->leave || now >= keep_until)
        {
          /* Subscribers still reading get the rest of the log first. */
          if (leave_by == 0)
            leave_by = now + LEAVE_GRACE_MS;
          if (!rc_sup_clients_busy (s) || now >= leave_by)
            return;
        }
    }
}

static void __attribute__ ((noreturn))
sup_main (const struct rc_sup_args *a, int word_fd, pid_t worker, pid_t master)
{
  struct rc_sup s = { .a = a, .listen = -1 };
  struct rc_run_io io = { .on_output = on_output,
                          .on_step = on_step,
                          .ud = &s,
                          .live_stdin = true,
                          .stdin_buffer = a->app->cfg->input_max,
                          .tty = a->tty };
  struct word w = { 0 };
  uint64_t t0 = rc_now_us ();
  char path[sizeof ((struct sockaddr_un *)0)->sun_path];
  rc_err_t err = NULL;

  setsid ();
  prctl (PR_SET_NAME, "runcell-proc");
  signals_setup ();
  close_inherited (a, word_fd);
  for (int i = 0; i < RC_SUP_CLIENTS; i++)
    s.clients[i].fd = -1;
  if (!rc_slot_claim_transfer ((unsigned)a->claim.slot, a->claim.seq, worker, getpid ())
      || !rc_proc_table_transfer (a->entry, worker, getpid ()))
    sup_fail (a, word_fd, &w, "process %s: the claim is not the worker's", a->id);
  w.transferred = 1;
  if (adopted (master) < 0)
    {
      rc_sandbox_release (a->app->sandbox, a->claim.slot, a->claim.seq);
      sup_fail (a, word_fd, &w, "process %s: not adopted by the master", a->id);
    }
  s.listen = listen_socket (a);
  if (s.listen < 0)
    {
      rc_sandbox_release (a->app->sandbox, a->claim.slot, a->claim.seq);
      sup_fail (a, word_fd, &w, "process %s: socket: %s", a->id, strerror (errno));
    }
  s.state = a->ej->job.has_compile ? RC_SUP_COMPILING : RC_SUP_RUNNING;
  if (rc_run_start (a->app->sandbox, &a->ej->job.spec, a->claim.seq, &io, &s.run, &err) < 0)
    {
      (void)rc_proc_sock_path (a->app->cfg, a->id, path, sizeof path);
      unlink (path);
      sup_fail (a, word_fd, &w, "process %s: %s", a->id, rc_error_text (err));
    }
  w.ok = 1;
  (void)!write (word_fd, &w, sizeof w);
  close (word_fd);
  rc_log (RC_LOG_INFO, "process_started", "process %s (%s, slot %d%s)", a->id, a->lang,
          a->claim.slot, a->tty ? ", tty" : "");

  sup_loop (&s, t0);

  rc_sup_clients_close (&s);
  close (s.listen);
  if (rc_proc_sock_path (a->app->cfg, a->id, path, sizeof path) == 0)
    unlink (path);
  rc_proc_table_release (a->entry, getpid ());
  _exit (0);
}

int
rc_sup_spawn (const struct rc_sup_args *a, struct rc_http_response *res)
{
  struct word w = { 0 };
  pid_t worker = getpid (), master = getppid (), mid;
  int p[2], st;
  ssize_t k = -1;

  if (pipe2 (p, O_CLOEXEC) < 0)
    goto not_started;
  mid = fork ();
  if (mid == 0)
    {
      pid_t sup;
      close (p[0]);
      sup = fork ();
      if (sup != 0)
        _exit (sup < 0 ? 1 : 0);
      sup_main (a, p[1], worker, master);
    }
  close (p[1]);
  if (mid < 0)
    {
      close (p[0]);
      goto not_started;
    }
  while (waitpid (mid, &st, 0) < 0 && errno == EINTR)
    ;
  {
    struct pollfd pf = { .fd = p[0], .events = POLLIN };
    if (poll (&pf, 1, WORD_WAIT_MS) > 0)
      k = read (p[0], &w, sizeof w);
  }
  close (p[0]);
  if (k == (ssize_t)sizeof w && w.ok)
    return 0;
  if (k == (ssize_t)sizeof w)
    {
      w.why[sizeof w.why - 1] = '\0';
      rc_http_internal (res, "process_start", "%s", w.why);
      return -1;
    }
not_started:
  /* No word: the supervisor never took over (or died at once); what the
   * worker claimed is given back.  A supervisor that did take over is the
   * master's to clear (it reaps it), and a second END is ignored. */
  rc_sandbox_release (a->app->sandbox, a->claim.slot, a->claim.seq);
  rc_proc_table_release (a->entry, worker);
  rc_http_internal (res, "process_start", "process %s: the supervisor did not start", a->id);
  return -1;
}
