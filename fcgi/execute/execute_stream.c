/* execute_stream.c - POST /v1/execute as Server-Sent Events.
 *
 * The worker runs the job itself (rc_run_start .. rc_run_finish) instead
 * of rc_sandbox_run's blocking loop, so that it can poll its client's
 * connection in the same poll(2) as the job's pipes: every chunk of output
 * is an event written and flushed as it is read, and a client that goes
 * away (its connection readable, or a write failing) has the job killed at
 * once; its claim ends after the reply like any job's, so the slot is free
 * again within the init's clearing.
 *
 * Everything that can be refused is refused before the stream begins, as
 * JSON under its status (400, 413, 429, 501).  Once the 200 is out, a
 * failure of the sandbox can only be said in the stream: an `error` event
 * {"error":"internal"}, logged like any 500.
 */
#include "config.h"

#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/execute/execute_request.h"
#include "fcgi/metrics.h"
#include "fcgi/sse.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

struct stream
{
  struct rc_http_response *res;
  const struct rc_job *job;
  struct rc_sse_text text;
  struct rc_buf data;
  bool base64; /* "encoding": "base64" */
  bool gone;   /* the client went away: nothing more is written */
};

static void
send_event (struct stream *s, const char *event, const struct rc_buf *data)
{
  if (!s->gone && rc_http_sse (s->res, 0, event, data->data, data->len) < 0)
    s->gone = true;
}

/* Whatever a step's streams held back of a character, before the next
 * event. */
static void
flush_text (struct stream *s)
{
  for (int stream = 1; stream <= 2; stream++)
    if (rc_sse_output_flush (&s->text, stream, s->base64, &s->data))
      send_event (s, rc_sse_stream_name (stream), &s->data);
}

static void
on_step (void *ud, size_t step)
{
  struct stream *s = ud;
  flush_text (s);
  rc_sse_stage (&s->data, s->job->has_compile && step == 0 ? "compile" : "run");
  send_event (s, "stage", &s->data);
}

static void
on_output (void *ud, size_t step, int stream, const char *data, size_t len)
{
  struct stream *s = ud;
  (void)step;
  if (rc_sse_output (&s->text, stream, data, len, s->base64, &s->data))
    send_event (s, rc_sse_stream_name (stream), &s->data);
}

/* The job, polled beside the client.  1 when it ran, -1 on a sandbox
 * failure (err set). */
static int
run_polled (struct rc_run *run, struct stream *s, rc_err_t *err)
{
  bool stopped = false;
  int k = 0;

  while (k == 0)
    {
      struct pollfd pfd[RC_RUN_POLLFDS + 1];
      int timeout;
      size_t n = rc_run_pollfds (run, pfd, &timeout);
      size_t client = n;
      if (!s->gone && s->res->stream && s->res->stream->fd >= 0)
        pfd[n++] = (struct pollfd){ .fd = s->res->stream->fd, .events = POLLIN };
      if (poll (pfd, (nfds_t)n, timeout) < 0 && errno != EINTR)
        {
          rc_run_stop (run, RC_OUTCOME_SANDBOX);
          continue;
        }
      /* The web server sends nothing more on the request once it has the
       * body: anything readable is the end of it (rc_http_stream_gone). */
      if (client < n && pfd[client].revents)
        s->gone = true;
      k = rc_run_handle (run, pfd, client, err);
      if (s->gone && !stopped)
        {
          /* Killed as by a signal: the result (which nobody reads) says
           * SIGKILL, the log says why. */
          rc_run_stop (run, RC_OUTCOME_SIGNALLED);
          stopped = true;
        }
    }
  return k;
}

/* The explanation lines rc_app_account_job added to stderr, as stderr
 * events, so a streaming client reads why its program was stopped. */
static void
send_explanations (struct stream *s, struct rc_job_result *result, const size_t *err_len)
{
  for (size_t i = 0; i < result->n_steps; i++)
    {
      struct rc_buf *e = &result->steps[i].err;
      if (e->len > err_len[i]
          && rc_sse_output (&s->text, 2, e->data + err_len[i], e->len - err_len[i], s->base64,
                            &s->data))
        send_event (s, "stderr", &s->data);
    }
  flush_text (s);
}

void
rc_execute_stream (struct rc_app *app, struct rc_job *job, bool base64,
                   struct rc_http_response *res)
{
  struct stream s = { .res = res, .job = job, .base64 = base64 };
  struct rc_run_io io = { .on_output = on_output, .on_step = on_step, .ud = &s };
  struct rc_job_result result = { 0 };
  struct rc_slot_claim claim;
  struct rc_run *run = NULL;
  size_t err_len[2] = { 0, 0 };
  rc_err_t err = NULL;
  int k;

  if (app->sandbox == NULL || rc_sandbox_mode_of (app->sandbox) != RC_SANDBOX_ISOLATED)
    {
      /* The development fallback runs a job in one blocking call. */
      rc_http_error (res, 501, "streaming needs the sandbox (runcell runs without it here)");
      return;
    }
  if (rc_app_claim (app, res, &claim) < 0)
    return;
  job->spec.slot = claim.slot;
  res->log_slot = claim.slot;
  if (rc_http_stream_begin (res, 200, "text/event-stream") < 0)
    {
      rc_sandbox_release (app->sandbox, claim.slot, claim.seq);
      res->log_outcome = "client_gone";
      return;
    }
  if (rc_run_start (app->sandbox, &job->spec, claim.seq, &io, &run, &err) < 0)
    k = -1;
  else
    {
      k = run_polled (run, &s, &err);
      if (rc_run_finish (run, &result, NULL) < 0 && k >= 0)
        k = rc_error_set (&err, EIO, "sandbox: result errno=%d", EIO);
    }
  if (k < 0 || result.n_steps != job->spec.n_steps)
    {
      rc_metrics_count_sandbox_failure ();
      rc_error_wrap (&err, "slot %d", claim.slot);
      rc_log (RC_LOG_ERROR, "sandbox_failure", "%s", err ? rc_error_text (err) : "steps");
      rc_error_free (&err);
      rc_buf_reset (&s.data);
      rc_buf_append_str (&s.data, "{\"error\":\"internal\"}");
      send_event (&s, "error", &s.data);
      res->log_outcome = rc_outcome_name (RC_OUTCOME_SANDBOX);
      goto out;
    }
  res->log_setup_us = result.setup_us;
  for (size_t i = 0; i < result.n_steps && i < 2; i++)
    err_len[i] = result.steps[i].err.len;
  rc_app_account_job (&job->spec, &result);
  flush_text (&s);
  send_explanations (&s, &result, err_len);
  rc_execute_render (&s.data, &result, job->has_compile, base64);
  send_event (&s, "result", &s.data);
  rc_execute_log (res, &result, job->run_step, job->has_compile);
  if (s.gone)
    res->log_outcome = "client_gone";
out:
  rc_job_result_free (&result);
  rc_buf_free (&s.data);
}
