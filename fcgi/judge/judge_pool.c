/* judge_pool.c - the judge's jobs side by side on slots they claimed, in
 * one poll: every run's fds (rc_run_pollfds), the client's connection, the
 * caller's own deadline.  Nothing blocks on one job: a program that stops
 * reading, an interactor waiting for it, a checker and a dozen tests share
 * the worker's one loop.
 *
 * A job's claim is its own: taken when it starts, parked by rc_run_finish
 * when it ends; the caller gives the slot back at once when more work
 * waits for it (rc_sandbox_end_claim), or leaves it for after the answer
 * (rc_app_after_reply), as /v1/execute does.
 */
#include "config.h"

#include "common/log.h"
#include "fcgi/judge/judge.h"
#include "fcgi/metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct rc_slot_claim
rc_jpool_claim_now (bool *pending)
{
  return rc_slot_claim_now (pending);
}

int
rc_jpool_start (struct rc_jpool *p, struct rc_jjob *j, struct rc_slot_claim claim, rc_err_t *err)
{
  if (p->n_running >= RC_JPOOL_MAX)
    {
      rc_sandbox_release (p->app->sandbox, claim.slot, claim.seq);
      return rc_error_set (err, EAGAIN, "judge: more than %d jobs at once", RC_JPOOL_MAX);
    }
  j->job.spec.slot = claim.slot;
  j->slot = claim.slot;
  /* On failure rc_run_start has ended the claim itself. */
  if (rc_run_start (p->app->sandbox, &j->job.spec, claim.seq, &j->io, &j->run, err) < 0)
    {
      rc_metrics_count_sandbox_failure ();
      return rc_error_wrap (err, "slot %d", claim.slot);
    }
  j->started = true;
  p->running[p->n_running++] = j;
  return 0;
}

/* The job ended (or failed): its result, its claim parked. */
static int
finish (struct rc_jpool *p, size_t k, rc_err_t *err)
{
  struct rc_jjob *j = p->running[k];
  int r = rc_run_finish (j->run, &j->res, err);
  j->run = NULL;
  j->done = true;
  p->running[k] = p->running[--p->n_running];
  if (r == 0)
    rc_app_account_job (&j->job.spec, &j->res);
  return r;
}

int
rc_jpool_round (struct rc_jpool *p, int timeout_ms, struct rc_jjob **done, size_t *n_done,
                bool *gone, rc_err_t *err)
{
  struct pollfd pfd[RC_JPOOL_MAX * RC_RUN_POLLFDS + 1];
  size_t off[RC_JPOOL_MAX + 1], n = 0;
  const struct rc_http_stream *stream = p->res ? p->res->stream : NULL;
  int timeout = timeout_ms;

  *n_done = 0;
  *gone = false;
  for (size_t k = 0; k < p->n_running; k++)
    {
      int t;
      off[k] = n;
      n += rc_run_pollfds (p->running[k]->run, pfd + n, &t);
      if (timeout < 0 || t < timeout)
        timeout = t;
    }
  off[p->n_running] = n;
  /* The web server sends nothing more on a request's connection once it
   * has the body: anything there is its end (the client left). */
  if (stream && stream->fd >= 0)
    pfd[n++] = (struct pollfd){ .fd = stream->fd, .events = POLLIN };
  if (poll (pfd, (nfds_t)n, timeout < 0 ? 1000 : timeout) < 0 && errno != EINTR)
    return rc_error_sys (err, "judge: poll errno=%d", errno);
  if (stream && stream->fd >= 0 && pfd[n - 1].revents)
    *gone = true;
  /* Backwards: a finished job takes the last one's place. */
  for (size_t k = p->n_running; k-- > 0;)
    {
      struct rc_jjob *j = p->running[k];
      int r = rc_run_handle (j->run, pfd + off[k], off[k + 1] - off[k], err);
      if (r == 0)
        continue;
      if (r < 0)
        {
          rc_metrics_count_sandbox_failure ();
          rc_error_wrap (err, "slot %d", j->slot);
          /* The caller ends the request; this job is over all the same. */
          struct rc_job_result partial;
          (void)rc_run_finish (j->run, &partial, NULL);
          rc_job_result_free (&partial);
          j->run = NULL;
          j->done = true;
          p->running[k] = p->running[--p->n_running];
          return -1;
        }
      if (finish (p, k, err) < 0)
        return -1;
      done[(*n_done)++] = j;
    }
  return 0;
}

void
rc_jpool_stop_all (struct rc_jpool *p)
{
  for (size_t k = 0; k < p->n_running; k++)
    rc_run_stop (p->running[k]->run, RC_OUTCOME_WALL);
}

void
rc_jpool_drain (struct rc_jpool *p)
{
  struct rc_jjob *done[RC_JPOOL_MAX];
  rc_jpool_stop_all (p);
  while (p->n_running > 0)
    {
      size_t n = 0;
      bool gone;
      rc_err_t err = NULL;
      /* A killed step ends within the sandbox's kill bound; a failure
       * drops the job all the same. */
      if (rc_jpool_round (p, -1, done, &n, &gone, &err) < 0)
        {
          rc_log (RC_LOG_WARN, "judge_drain", "%s", rc_error_text (err));
          rc_error_free (&err);
        }
      for (size_t i = 0; i < n; i++)
        rc_job_result_free (&done[i]->res);
    }
}

void
rc_jjob_free (struct rc_jjob *j)
{
  if (j == NULL)
    return;
  rc_job_result_free (&j->res);
  rc_job_free (&j->job);
  free (j->files);
  free (j);
}
