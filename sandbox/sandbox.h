/* sandbox.h - the sandbox library: runs an rc_job_spec, fills rc_job_result.
 *
 * Knows nothing of HTTP or JSON.  Two implementations behind one interface:
 *   - the sandbox (euid 0): per-job namespaces, overlay workspace, slot uid
 *     and cgroup, seccomp, rlimits (see the theory of operation in
 *     sandbox/sandbox.c);
 *   - the unsandboxed fallback (not root, or RUN_SANDBOX=off): a copy of the
 *     template in a temp dir, a process group, rlimits.  Unsafe, for
 *     development only; it says so in the log at start.
 *
 * Life cycle:
 *   master:  rc_sandbox_host_setup()  once, before forking workers (creates
 *            the cgroup subtree, slot cgroups, state dir; fails closed)
 *   worker:  rc_sandbox_open()        once per worker (builds the seccomp
 *            filter, opens cgroup dirs)
 *            rc_sandbox_drop_bounding() once, before anything else runs
 *            (the first job does it if the caller did not)
 *            rc_sandbox_run()         per job, on a slot the worker claimed
 *            rc_sandbox_slot_clean()  after each job and before reusing a
 *            slot another process held: kills leftovers, verifies empty
 *   master:  rc_sandbox_host_teardown() at exit (removes the cgroup subtree)
 */
#ifndef RUNCELL_SANDBOX_SANDBOX_H
#define RUNCELL_SANDBOX_SANDBOX_H

#include "common/config.h"
#include "common/error.h"
#include "common/job.h"

#include <stdbool.h>

struct rc_sandbox;

enum rc_sandbox_mode
{
  RC_SANDBOX_UNSANDBOXED = 0, /* development fallback */
  RC_SANDBOX_ISOLATED,
};

/* Decides the mode from cfg and euid, checks the host, creates the cgroup
 * subtree and one cgroup per slot.  Returns < 0 (and refuses to start) when
 * the sandbox is required or euid is 0 but a needed feature is missing. */
int rc_sandbox_host_setup (const struct rc_config *cfg, enum rc_sandbox_mode *mode, rc_err_t *err);
void rc_sandbox_host_teardown (const struct rc_config *cfg);

int rc_sandbox_open (struct rc_sandbox **sb, const struct rc_config *cfg, enum rc_sandbox_mode mode,
                     rc_err_t *err);
void rc_sandbox_close (struct rc_sandbox *sb);
/* Empties this process's capability bounding set, once: a process that
 * runs jobs never execs anything that needs a capability, and its jobs
 * inherit the empty set.  Its effective capabilities stay. */
int rc_sandbox_drop_bounding (struct rc_sandbox *sb, rc_err_t *err);
/* Pre-started inits (spawn.c): a job takes the init started ahead of it,
 * if there is one.  RC_PRESTART_IDLE: the caller starts the next one with
 * rc_sandbox_prestart when it has nothing else to do (a worker, after its
 * reply); RC_PRESTART_DURING_JOB: the sandbox starts it while a job runs,
 * on the core the job leaves free (`runcell exec --repeat`). */
enum rc_prestart
{
  RC_PRESTART_OFF = 0,
  RC_PRESTART_IDLE,
  RC_PRESTART_DURING_JOB,
};
void rc_sandbox_set_prestart (struct rc_sandbox *sb, enum rc_prestart how);
/* Starts the next job's init now, unless one is waiting already. */
void rc_sandbox_prestart (struct rc_sandbox *sb);
/* Resident inits (spawn.c): a caller that runs many jobs keeps each
 * slot's namespace init from one job to the next of the same language
 * (cfg->resident_init can veto it).  Off by default: a one-job caller
 * gains nothing from it. */
void rc_sandbox_set_resident (struct rc_sandbox *sb, bool on);
/* The slot of this process's resident init, or -1. */
int rc_sandbox_resident_slot (const struct rc_sandbox *sb);
/* Once the job on slot is answered: when that slot's resident init is to
 * clear the job away, tells it to start and returns an fd that turns
 * readable when it is done (or died), so that rc_sandbox_slot_clean will
 * not wait; -1 otherwise. */
int rc_sandbox_clean_wait_fd (struct rc_sandbox *sb, int slot);

/* Runs every step of the job.  Returns 0 when the job ran (whatever the
 * user program did: verdicts are in res), < 0 on a sandbox failure: user
 * code did not run or its result cannot be trusted; err says
 * "sandbox: <step> errno=N" and the caller answers 500. */
int rc_sandbox_run (struct rc_sandbox *sb, const struct rc_job_spec *spec, struct rc_job_result *res,
                    rc_err_t *err);

/* Kills whatever is left in the slot (cgroup kill, waits until empty) and
 * verifies it is clean.  < 0: the slot must not be used. */
int rc_sandbox_slot_clean (struct rc_sandbox *sb, int slot, rc_err_t *err);

enum rc_sandbox_mode rc_sandbox_mode_of (const struct rc_sandbox *sb);

/* `runcell --check-host`: prints a report to stdout; returns 0 when runcell
 * can run safely here, 1 otherwise. */
int rc_sandbox_check_host (const struct rc_config *cfg, bool verbose);

#endif
