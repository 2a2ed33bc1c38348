/* canary.c - the canary job: can this runner run a job at all?
 *
 * A shell in the sandbox prints a line it computed ($((6*7))), in an empty
 * workspace of no language: what every job needs (a slot, its init, the
 * root, the uid switch, seccomp, the cgroup limits) and nothing a language
 * adds.  The master runs it once at start, before any worker exists, and
 * refuses to start when it fails (a configuration under which no job can
 * run); GET /health?ready=1 runs it for a load balancer's readiness probe.
 */
#include "config.h"

#include "common/job_build.h"
#include "common/log.h"
#include "fcgi/app.h"

#include <errno.h>
#include <string.h>

#define CANARY_EXPECT "runcell-canary-42\n"

int
rc_app_canary (struct rc_app *app, uint64_t wait_ms, rc_err_t *err)
{
  static const char *const argv[] = { "/bin/sh", "-c", "echo runcell-canary-$((6 * 7))", NULL };
  struct rc_job_request jr;
  struct rc_job job;
  struct rc_job_result result = { 0 };
  struct rc_slot_claim claim;
  const struct rc_step_result *st;
  int ret = -1;

  memset (&jr, 0, sizeof jr);
  jr.kind = RC_JOB_COMMAND;
  jr.workspace = RC_WORKSPACE_TEMPLATE;
  jr.argv = argv;
  jr.limits.run = (struct rc_limits){ .wall_ms = 10000,
                                      .cpu_ms = 5000,
                                      .memory_bytes = 64ULL << 20,
                                      .pids = 16,
                                      .output_bytes = 4096,
                                      .stream_bytes = 4096 };
  jr.limits.tmp_bytes = 1ULL << 20;
  if (rc_job_build (&job, NULL, &jr, app->cfg, err) < 0)
    {
      rc_job_free (&job);
      return -1;
    }
  /* A full runner is not a broken one: no free slot at once (or within
   * wait_ms at start) is "busy", not a failure. */
  claim = wait_ms ? rc_slot_claim_wait (wait_ms, wait_ms, NULL) : rc_slot_claim_now (NULL);
  if (claim.slot < 0)
    {
      rc_job_free (&job);
      if (wait_ms)
        return rc_error_set (err, EBUSY, "canary: no slot became ready in %llu ms",
                             (unsigned long long)wait_ms);
      return 0;
    }
  job.spec.slot = claim.slot;
  if (rc_sandbox_run (app->sandbox, &job.spec, claim.seq, &result, err) < 0)
    rc_error_wrap (err, "canary on slot %d", claim.slot);
  else if (result.n_steps < 1 || !(st = &result.steps[0])->exited || st->exit_code != 0
           || st->out.len != strlen (CANARY_EXPECT)
           || memcmp (st->out.data, CANARY_EXPECT, st->out.len) != 0)
    {
      st = result.n_steps ? &result.steps[0] : NULL;
      rc_error_set (err, EIO,
                    "canary on slot %d: `sh -c 'echo ...'` %s %d, stdout '%.60s', stderr '%.200s'",
                    claim.slot, st && st->exited ? "exited" : "ended by signal",
                    st ? (st->exited ? st->exit_code : st->term_signal) : -1,
                    st && st->out.data ? st->out.data : "", st && st->err.data ? st->err.data : "");
    }
  else
    ret = 1;
  rc_job_result_free (&result);
  rc_job_free (&job);
  return ret;
}
