/* jobs_wait.c - running a job on a slot: claim (waiting up to wait_ms),
 * run, clean, release or quarantine.
 *
 * The slot is released only after rc_sandbox_slot_clean verified it empty;
 * a slot that cannot be verified is quarantined (no job runs there until
 * the master manages to clean it), so a leftover process can never share a
 * uid or cgroup with the next request.
 *
 * /run and /v1/execute answer first and clean after: the sandbox kills the
 * job's init and leaves its reap (the teardown of the job's namespaces,
 * about a millisecond) to the clean, which rc_app_after_reply runs once the
 * response is with nginx; a resident init (sandbox/spawn.c) is told then
 * to clear its job away, and the worker cleans once it has (worker.c,
 * wait_for_work).  The slot of the worker's resident is marked in the
 * slot table, and its claims try that slot first.  Meanwhile the slot is marked "cleaning", and a
 * claimer that finds no free slot but one being cleaned waits for it
 * instead of answering 429: 429 still means every slot is running a job.
 * Sessions clean before answering (their next request may touch the same
 * directory at once).
 *
 * /run answers 429 at once when every slot is busy (wait_ms 0; its client
 * retries);
 * the sessions API instead waits up to SESSION_LOCK_WAIT_TIMEOUT_SECONDS,
 * as its document says, and answers 503 after that.  Slots are claimed
 * with a compare-and-swap in shared memory (slots.c), which has no
 * wake-up, so the wait polls: every 20 ms for a running job, every 0.2 ms
 * for one being cleaned.
 */
#include "config.h"

#include "common/clock.h"
#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/metrics.h"
#include "fcgi/sessions/session_exec.h"
#include "fcgi/slots.h"

/* A clean takes at most the cgroup kill's 2 s bound (sandbox.c). */
#define CLEANING_WAIT_MS 3000

/* Where this worker's resident init is now (sandbox/spawn.c), for the
 * claims of every worker: marked before the slot is released. */
static void
mark_resident (struct rc_app *app)
{
  int now = app->sandbox ? rc_sandbox_resident_slot (app->sandbox) : -1;
  if (app->resident_mark >= 0 && app->resident_mark != now)
    rc_slot_set_resident (app->resident_mark, false);
  if (now >= 0)
    rc_slot_set_resident (now, true);
  app->resident_mark = now;
}

static void
clean_and_release (struct rc_app *app, int slot)
{
  rc_err_t err = NULL;
  if (rc_sandbox_slot_clean (app->sandbox, slot, &err) < 0)
    {
      rc_log (RC_LOG_ERROR, "slot_quarantined", "slot %d: %s", slot, rc_error_text (err));
      rc_error_free (&err);
      mark_resident (app);
      rc_slot_quarantine (slot);
    }
  else
    {
      mark_resident (app);
      rc_slot_release (slot);
    }
}

static void
clean_pending (struct rc_app *app)
{
  if (app->slot_to_clean)
    {
      app->slot_to_clean = false;
      clean_and_release (app, app->clean_slot);
    }
}

void
rc_app_after_reply (struct rc_app *app)
{
  clean_pending (app);
  /* The next job's init, while this worker has nothing else to do
   * (sandbox/spawn.c, the pre-started init). */
  if (app->sandbox)
    rc_sandbox_prestart (app->sandbox);
}

int
rc_app_clean_wait_fd (struct rc_app *app)
{
  if (!app->slot_to_clean || app->sandbox == NULL)
    return -1;
  return rc_sandbox_clean_wait_fd (app->sandbox, app->clean_slot);
}

static int
claim_slot (struct rc_app *app, uint64_t wait_ms)
{
  uint64_t start = rc_now_ms ();
  uint64_t deadline = start + wait_ms;
  uint64_t cleaning_deadline = start + CLEANING_WAIT_MS;

  for (;;)
    {
      uint32_t releases = rc_slots_releases ();
      uint64_t now;
      int slot = rc_slot_claim (app->resident_mark);
      if (slot >= 0 || app->shutdown_requested)
        return slot;
      now = rc_now_ms ();
      if (now >= deadline && !(rc_slots_cleaning () > 0 && now < cleaning_deadline))
        /* A slot released between the claim above and the count just
         * read is free now (slots.c clears "cleaning" after "owner"). */
        return rc_slot_claim (app->resident_mark);
      /* Woken by the next release (a slot being cleaned after its reply
       * is free within a millisecond or two), not by polling: a poll of
       * 200 us cost the next job up to that much, and more with the
       * timer's slack.  The timeout bounds how late a shutdown request
       * or a passed deadline is noticed. */
      rc_slots_wait_release (releases, 20 * 1000);
    }
}

static int
run_job (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *result,
         struct rc_http_response *res, uint64_t wait_ms, int (*prepare) (int slot, void *ud),
         void *ud, bool clean_after_reply)
{
  rc_err_t err = NULL;
  int slot, ret;

  /* Never two slots at once: a job answered earlier is cleaned first. */
  clean_pending (app);
  slot = claim_slot (app, wait_ms);
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
          res->log_slot = slot;
          res->log_prestarted = result->prestarted;
          res->log_root_cloned = result->root_cloned;
          res->log_init = rc_job_init_kind (result);
          for (size_t i = 0; i < result->n_steps; i++)
            {
              if (result->steps[i].outcome == RC_OUTCOME_MEMORY)
                rc_metrics_count_oom ();
              if (rc_outcome_limit (result->steps[i].outcome))
                rc_metrics_count_clock_kill (result->steps[i].outcome);
            }
        }
      else
        {
          rc_metrics_count_sandbox_failure ();
          /* A sandbox failure has no HTTP status: logged, and a 500. */
          rc_error_wrap (&err, "slot %d", slot);
          rc_http_error_from (res, &err, "sandbox_failure");
          res->log_outcome = rc_outcome_name (RC_OUTCOME_SANDBOX);
        }
    }
  if (clean_after_reply)
    {
      rc_slot_mark_cleaning (slot);
      app->slot_to_clean = true;
      app->clean_slot = slot;
    }
  else
    clean_and_release (app, slot);
  return ret;
}

int
rc_app_run_job_wait (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *result,
                     struct rc_http_response *res, uint64_t wait_ms,
                     int (*prepare) (int slot, void *ud), void *ud)
{
  return run_job (app, spec, result, res, wait_ms, prepare, ud, false);
}

int
rc_app_run_job (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *result,
                struct rc_http_response *res)
{
  return run_job (app, spec, result, res, 0, NULL, NULL, true);
}
