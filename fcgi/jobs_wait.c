/* jobs_wait.c - running a job on a slot: claim (waiting up to wait_ms),
 * run, clean, release or quarantine.
 *
 * The slot is released only after rc_sandbox_slot_clean verified it empty;
 * a slot that cannot be verified is quarantined (no job runs there until
 * the master manages to clean it), so a leftover process can never share a
 * uid or cgroup with the next request.
 *
 * /run answers 429 at once when every slot is busy (wait_ms 0; its client
 * retries);
 * the sessions API instead waits up to SESSION_LOCK_WAIT_TIMEOUT_SECONDS,
 * as its document says, and answers 503 after that.  Slots are claimed
 * with a compare-and-swap in shared memory (slots.c), which has no
 * wake-up, so the wait polls every 20 ms; the worker is blocked anyway.
 */
#include "config.h"

#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/metrics.h"
#include "fcgi/session_exec.h"
#include "fcgi/slots.h"

#include <time.h>

static uint64_t
mono_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int
rc_app_run_job_wait (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *result,
                     struct rc_http_response *res, uint64_t wait_ms,
                     int (*prepare) (int slot, void *ud), void *ud)
{
  rc_err_t err = NULL;
  uint64_t deadline = mono_ms () + wait_ms;
  int slot, ret;

  for (;;)
    {
      struct timespec pause = { 0, 20 * 1000 * 1000 };
      slot = rc_slot_claim ();
      if (slot >= 0 || app->shutdown_requested || mono_ms () >= deadline)
        break;
      nanosleep (&pause, NULL);
    }
  if (slot < 0)
    {
      rc_slots_count_rejection ();
      if (wait_ms == 0)
        rc_http_error (res, 429, "runner busy");
      else
        rc_http_error (res, 503, "no execution slot became free in time");
      res->log_outcome = "busy";
      return -1;
    }
  spec->slot = slot;
  ret = prepare ? prepare (slot, ud) : 0;
  if (ret < 0)
    {
      rc_http_error (res, 500, "internal");
      res->log_outcome = "session_prepare_failed";
    }
  else
    {
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
      else
        {
          rc_metrics_count_sandbox_failure ();
          rc_log (RC_LOG_ERROR, "sandbox_failure", "slot %d: %s", slot, rc_error_text (err));
          rc_error_free (&err);
          rc_http_error (res, 500, "internal");
          res->log_outcome = "sandbox_failure";
        }
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
