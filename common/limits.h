/* limits.h - the one place a job's limits are decided.
 *
 * Every entry point (/run, /v1/execute and what builds on it, a session's
 * /execute, `runcell exec`) hands what its request asked to
 * rc_limits_resolve, which lays four layers over each other, each winning
 * over the one before:
 *
 *   1. the language's manifest: defaultLimits and tmpSize (a job without a
 *      language starts from the service's defaults);
 *   2. the operator: RUN_SANDBOX_MEM_MAX then RUN_MEM_MAX_<SLUG> (memory),
 *      RUN_SANDBOX_TMP_SIZE then RUN_TMP_SIZE_<SLUG> (the job's /tmp); for a
 *      session's job, the sessions' configuration (EXECUTION_TIMEOUT,
 *      MAX_MEMORY, CONTAINER_*) in place of the manifest's clocks;
 *   3. the request: the fields it sets (0: not asked);
 *   4. the ceilings: RUN_MAX_* for the /v1 API (a field above one is a 400
 *      naming it), RUN_TIMEOUT_MAX for /run's timeout.
 *
 * Then what every step has whatever its origin: pids (RUN_PIDS_MAX where
 * nothing set it), RLIMIT_AS (RUN_MEMORY_MAX) and the RLIMIT_CPU backstop.
 * A compile step's limits follow from the run step's: the language's memory
 * or the request's, whichever is larger, and clocks of its own; a /v1
 * request may ask its own (compileLimits), held to the same ceilings.
 */
#ifndef RUNCELL_COMMON_LIMITS_H
#define RUNCELL_COMMON_LIMITS_H

#include "common/config.h"
#include "common/error.h"
#include "common/job.h"
#include "common/lang.h"

enum rc_limits_origin
{
  RC_LIMITS_RUN,     /* /run: its timeout; the language's memory; RUN_OUTPUT_MAX per stream */
  RC_LIMITS_EXECUTE, /* /v1/execute, /v1/processes: defaultLimits, ceilings */
  RC_LIMITS_JUDGE,   /* /v1/judge: as EXECUTE, and outputKb caps each stream (output_limit) */
  RC_LIMITS_SESSION, /* a session's /execute: the sessions' configuration */
  RC_LIMITS_COMMAND, /* `runcell exec`: the command line, no ceilings */
};

/* Compile steps get clocks of their own: a compiler is trusted no more than
 * the program (it runs in the same sandbox), but its cost is the
 * language's, not the request's. */
#define RC_COMPILE_WALL_MS 60000
#define RC_COMPILE_CPU_MS 60000
#define RC_COMPILE_OUTPUT_BYTES (1u << 20)

struct rc_job_limits
{
  struct rc_limits run;     /* the run step's */
  struct rc_limits compile; /* a compile step's */
  uint64_t tmp_bytes;       /* size= of the job's /tmp */
};

/* lang may be NULL (a `runcell exec` command).  < 0 with an HTTP-status
 * error when a request field is above its ceiling. */
int rc_limits_resolve (const struct rc_config *cfg, const struct rc_lang *lang,
                       enum rc_limits_origin origin, const struct rc_limits *asked,
                       struct rc_job_limits *out, rc_err_t *err);

/* What a request asked for its run and its compile step, and the names its
 * errors give them ("limits" and "compileLimits" when NULL; a judged test's
 * are "tests[3].limits"). */
struct rc_limits_ask
{
  const struct rc_limits *run;     /* NULL: nothing asked */
  const struct rc_limits *compile; /* NULL: the compile step's defaults */
  const char *run_name;
  const char *compile_name;
};
/* rc_limits_resolve with the compile step's asked limits as well (the /v1
 * API only: another origin ignores them). */
int rc_limits_resolve_ask (const struct rc_config *cfg, const struct rc_lang *lang,
                           enum rc_limits_origin origin, const struct rc_limits_ask *ask,
                           struct rc_job_limits *out, rc_err_t *err);

/* The language's memory after the operator's overrides (layers 1 and 2). */
uint64_t rc_limits_lang_memory (const struct rc_config *cfg, const struct rc_lang *lang);

/* One RLIMIT_CPU for every step: a backstop behind the polled clocks.  It
 * counts the CPU of all a process's threads, so a runtime spinning on every
 * core must not reach it before the step's own clock (CPU, else wall)
 * fires: ceil(clock / 1 s) * cpus + 1 s; 0 when the step has no clock. */
uint64_t rc_limits_rlimit_cpu_s (const struct rc_limits *l, unsigned cpus);

#endif
