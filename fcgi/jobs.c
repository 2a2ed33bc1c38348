/* jobs.c - running a job on a slot: claim (at once or through the queue),
 * run, account, and end the claim once the answer is out.
 *
 * A slot is claimed with a compare-and-swap in the slot table the keeper
 * and every slot's init share with the workers (sandbox/slot/slot_table.h).
 * The slot's init clears the job away on its own once the claim ends, so
 * a worker never waits for a slot to be clean: it ends its claim after
 * FCGX_Finish_r (rc_app_after_reply), when its client has the answer, and
 * the clearing (a fresh /tmp, cgroups, IPC namespace, ...) runs beside the
 * worker's next request.
 *
 * Two ways to a slot (docs/design.md, "A bounded queue, a growing pool"):
 *   - a route of RUN_QUEUE_ROUTES (/v1 and the sessions by default) takes
 *     a ticket in the table's queue and waits, first come first served, at
 *     most RUN_QUEUE_WAIT_MS, while at most RUN_QUEUE_MAX others wait;
 *     past either it answers 429 (503 for the sessions, whose contract
 *     says so) with Retry-After;
 *   - any other route (/run by default: the contest contract wants an
 *     immediate 429) takes a READY slot at once, waiting only for a slot
 *     being cleaned (so 429 means every slot runs a job), and never
 *     overtakes the queue.
 */
#include "config.h"

#include "common/clock.h"
#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/metrics.h"
#include "fcgi/sessions/session_exec.h"

/* A slot being cleaned or started is ready within milliseconds; this
 * bounds the wait for one when it takes longer (a broken slot's restart). */
#define CLEANING_WAIT_MS 3000

void
rc_app_after_reply (struct rc_app *app)
{
  if (app->sandbox)
    rc_sandbox_end_claims (app->sandbox, false);
}

/* A queued request whose client went away gives its ticket up. */
static bool
client_gone (void *ud)
{
  return rc_http_stream_gone (ud);
}

int
rc_app_claim (struct rc_app *app, struct rc_http_response *res, struct rc_slot_claim *claim)
{
  const struct rc_config *cfg = app->cfg;
  bool sessions = app->family == RC_FAMILY_SESSIONS;
  enum rc_queue_verdict why;
  uint64_t waited_us;

  if (!(cfg->queue_routes & RC_FAMILY_BIT (app->family)))
    {
      *claim = rc_slot_claim_wait (0, CLEANING_WAIT_MS, &app->shutdown_requested);
      if (claim->slot >= 0)
        return 0;
      rc_metrics_count_rejection ();
      if (sessions)
        rc_http_error (res, 503, "no execution slot is free");
      else
        rc_http_error (res, 429, "runner busy");
      res->log_outcome = "busy";
      return -1;
    }
  *claim = rc_slot_claim_queued (cfg->queue_max, cfg->queue_wait_ms, &app->shutdown_requested,
                                 client_gone, res, &why, &waited_us);
  rc_metrics_observe_queue_wait (why, waited_us);
  if (claim->slot >= 0)
    return 0;
  rc_metrics_count_rejection ();
  res->log_outcome = "busy";
  res->retry_after_s = 1;
  switch (why)
    {
    case RC_QUEUE_FULL:
      rc_http_errorf (res, sessions ? 503 : 429,
                      "runner busy: %u requests already wait for a slot (RUN_QUEUE_MAX)",
                      cfg->queue_max);
      break;
    case RC_QUEUE_TIMEOUT:
      rc_http_errorf (res, sessions ? 503 : 429,
                      "runner busy: no slot became free within %llu ms (RUN_QUEUE_WAIT_MS)",
                      (unsigned long long)cfg->queue_wait_ms);
      break;
    case RC_QUEUE_CLAIMED:
    case RC_QUEUE_GONE:
    default:
      /* The client went away, or the service is stopping: nobody reads
       * this answer. */
      rc_http_error (res, 503, "service unavailable");
      res->log_outcome = "gone";
      break;
    }
  return -1;
}

void
rc_app_account_job (const struct rc_job_spec *spec, struct rc_job_result *result)
{
  for (size_t i = 0; i < result->n_steps; i++)
    {
      rc_step_result_explain (&result->steps[i], &spec->steps[i].limits);
      if (result->steps[i].outcome == RC_OUTCOME_MEMORY)
        rc_metrics_count_oom ();
      if (rc_outcome_limit (result->steps[i].outcome))
        rc_metrics_count_clock_kill (result->steps[i].outcome);
    }
}

int
rc_app_run_job_prepared (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *result,
                         struct rc_http_response *res, int (*prepare) (int slot, void *ud),
                         void *ud)
{
  struct rc_slot_claim claim;
  rc_err_t err = NULL;
  int ret;

  if (rc_app_claim (app, res, &claim) < 0)
    return -1;
  spec->slot = claim.slot;
  if (prepare && prepare (claim.slot, ud) < 0)
    {
      rc_sandbox_release (app->sandbox, claim.slot, claim.seq);
      rc_http_internal (res, "job_prepare", "slot %d: the session could not be prepared",
                        claim.slot);
      res->log_outcome = "session_prepare_failed";
      return -1;
    }
  ret = rc_sandbox_run (app->sandbox, spec, claim.seq, result, &err);
  res->log_slot = claim.slot;
  /* A session's directory is read next: every process of the job must be
   * gone first.  Other jobs' claims end after the answer. */
  if (spec->workspace == RC_WORKSPACE_BIND)
    rc_sandbox_end_claims (app->sandbox, true);
  if (ret == 0)
    {
      res->log_setup_us = result->setup_us;
      rc_app_account_job (spec, result);
      return 0;
    }
  rc_metrics_count_sandbox_failure ();
  /* A sandbox failure has no HTTP status: logged, and a 500. */
  rc_error_wrap (&err, "slot %d", claim.slot);
  rc_http_error_from (res, &err, "sandbox_failure");
  res->log_outcome = rc_outcome_name (RC_OUTCOME_SANDBOX);
  return -1;
}

int
rc_app_run_job (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *result,
                struct rc_http_response *res)
{
  return rc_app_run_job_prepared (app, spec, result, res, NULL, NULL);
}
