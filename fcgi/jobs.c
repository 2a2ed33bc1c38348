/* jobs.c - running a job on a slot: claim (at once or after a wait), run,
 * account, and end the claim once the answer is out.
 *
 * A slot is claimed with a compare-and-swap in the slot table the keeper
 * and every slot's init share with the workers (sandbox/slot/slot_table.h).
 * The slot's init clears the job away on its own once the claim ends, so
 * a worker never waits for a slot to be clean: it ends its claim after
 * FCGX_Finish_r (rc_app_after_reply), when its client has the answer, and
 * the clearing (a fresh /tmp, cgroups, IPC namespace, ...) runs beside the
 * worker's next request.  A claimer that finds no slot ready but one being
 * cleaned or started waits for it (sleeping on the table's futex), so 429
 * means every slot is running a job.
 *
 * /run answers 429 at once when every slot is busy (its client retries);
 * the sessions API waits up to its lock timeout and answers 503 after.
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

int
rc_app_claim (struct rc_app *app, uint64_t wait_ms, struct rc_http_response *res,
              struct rc_slot_claim *claim)
{
  *claim = rc_slot_claim_wait (wait_ms, CLEANING_WAIT_MS, &app->shutdown_requested);
  if (claim->slot >= 0)
    return 0;
  rc_metrics_count_rejection ();
  if (wait_ms == 0)
    rc_http_error (res, 429, "runner busy");
  else
    rc_http_error (res, 503, "no execution slot became free in time");
  res->log_outcome = "busy";
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

static int
run_job (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *result,
         struct rc_http_response *res, uint64_t wait_ms, int (*prepare) (int slot, void *ud),
         void *ud)
{
  struct rc_slot_claim claim;
  rc_err_t err = NULL;
  int ret;

  if (rc_app_claim (app, wait_ms, res, &claim) < 0)
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
rc_app_run_job_wait (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *result,
                     struct rc_http_response *res, uint64_t wait_ms,
                     int (*prepare) (int slot, void *ud), void *ud)
{
  return run_job (app, spec, result, res, wait_ms, prepare, ud);
}

int
rc_app_run_job (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *result,
                struct rc_http_response *res)
{
  return run_job (app, spec, result, res, 0, NULL, NULL);
}
