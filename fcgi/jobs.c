/* jobs.c - runs a job on a slot: claim, run, clean, release.
 *
 * The slot is released only after rc_sandbox_slot_clean verified it empty;
 * a slot that cannot be verified is quarantined (no job runs there until
 * the master manages to clean it), so a leftover process can never share a
 * uid or cgroup with the next request.
 */
#include "config.h"

#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/metrics.h"
#include "fcgi/slots.h"

int
rc_app_run_job (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *result,
                struct rc_http_response *res)
{
  rc_err_t err = NULL;
  int slot = rc_slot_claim ();
  int ret;

  if (slot < 0)
    {
      rc_slots_count_rejection ();
      rc_http_error (res, 429, "runner busy");
      res->log_outcome = "busy";
      return -1;
    }
  spec->slot = slot;
  ret = rc_sandbox_run (app->sandbox, spec, result, &err);
  if (ret == 0)
    {
      res->log_setup_us = result->setup_us;
      for (size_t i = 0; i < result->n_steps; i++)
        {
          if (result->steps[i].oom_killed)
            rc_metrics_count_oom ();
          if (result->steps[i].limit != RC_LIMIT_NONE)
            rc_metrics_count_clock_kill (result->steps[i].limit);
        }
    }
  if (ret < 0)
    {
      rc_metrics_count_sandbox_failure ();
      rc_log (RC_LOG_ERROR, "sandbox_failure", "slot %d: %s", slot, rc_error_text (err));
      rc_error_free (&err);
      rc_http_error (res, 500, "internal");
      res->log_outcome = "sandbox_failure";
    }
  if (rc_sandbox_slot_clean (app->sandbox, slot, &err) < 0)
    {
      rc_log (RC_LOG_ERROR, "slot_quarantined", "slot %d: %s", slot, rc_error_text (err));
      rc_error_free (&err);
      rc_slot_quarantine (slot);
    }
  else
    rc_slot_release (slot);
  return ret;
}
