/* sandbox.h - the sandbox library: runs an rc_job_spec on a slot, fills an
 * rc_job_result.
 *
 * Knows nothing of HTTP or JSON.  Two implementations behind one
 * interface: the sandbox (euid 0; sandbox.c has the theory of operation)
 * and the unsandboxed fallback (not root, or RUN_SANDBOX=off: a copy of the
 * template in a temp dir, a process group, rlimits; unsafe, for development
 * only, and it says so in the log at start).
 *
 * Who calls what:
 *   keeper (the master, or `runcell exec`):
 *     rc_sandbox_host_setup()     once: cgroup subtree, state dir; fails
 *                                 closed
 *     rc_sandbox_open()
 *     rc_sandbox_keeper_start()   the slot table, every slot's root plan,
 *                                 every slot's init started
 *     rc_sandbox_keeper_reaped()  for each child it reaps: an init died?
 *     rc_sandbox_keeper_tick()    restarts broken slots (rate-limited)
 *     rc_sandbox_keeper_stop()    the inits killed and reaped
 *     rc_sandbox_host_teardown()  at exit
 *   any process that runs jobs (a worker; the keeper itself in the CLI):
 *     rc_sandbox_open(), rc_sandbox_drop_bounding()
 *     rc_slot_claim_*()            (slot/slot_table.h, re-exported below)
 *     rc_run_start() .. rc_run_finish(), or rc_sandbox_run()
 */
#ifndef RUNCELL_SANDBOX_SANDBOX_H
#define RUNCELL_SANDBOX_SANDBOX_H

#include "common/config.h"
#include "common/error.h"
#include "common/job.h"
#include "common/lang.h"
#include "sandbox/slot/slot_table.h"

#include <poll.h>
#include <stdbool.h>

struct rc_sandbox;

enum rc_sandbox_mode
{
  RC_SANDBOX_UNSANDBOXED = 0, /* development fallback */
  RC_SANDBOX_ISOLATED,
};

/* Decides the mode from cfg and euid, checks the host, creates the cgroup
 * subtree and its slots and the state directory.  < 0 (and refuses to
 * start) when the sandbox is required or euid is 0 but something needed
 * is missing. */
int rc_sandbox_host_setup (const struct rc_config *cfg, enum rc_sandbox_mode *mode, rc_err_t *err);
void rc_sandbox_host_teardown (const struct rc_config *cfg);

int rc_sandbox_open (struct rc_sandbox **sb, const struct rc_config *cfg, enum rc_sandbox_mode mode,
                     rc_err_t *err);
void rc_sandbox_close (struct rc_sandbox *sb);
enum rc_sandbox_mode rc_sandbox_mode_of (const struct rc_sandbox *sb);
/* Empties this process's capability bounding set, once: a process that
 * runs jobs never execs anything that needs a capability. */
int rc_sandbox_drop_bounding (struct rc_sandbox *sb, rc_err_t *err);

/* ---- the keeper ---- */

/* Creates the slot table (before any fork), and starts every slot's init
 * with a root that serves langs (its available languages) and, for
 * `runcell exec --template`, extra_template.  Returns once every init is
 * started (not necessarily READY). */
int rc_sandbox_keeper_start (struct rc_sandbox *sb, const struct rc_lang_table *langs,
                             const char *extra_template, rc_err_t *err);
/* A child of the keeper was reaped: true when it was a slot's init (the
 * slot is then broken and restarted by the next tick). */
bool rc_sandbox_keeper_reaped (struct rc_sandbox *sb, pid_t pid, int status);
/* Restarts broken or cold slots (each at most every 100 ms), and ends the
 * claims of owners that died (dead_owner > 0: that process). */
void rc_sandbox_keeper_tick (struct rc_sandbox *sb, pid_t dead_owner);
/* Every slot gets a fresh init: idle ones at once, busy ones after their
 * job (a changed host file under the roots, a reload). */
void rc_sandbox_keeper_renew (struct rc_sandbox *sb);
/* A reload (SIGHUP): the roots follow langs (its available languages),
 * cfg replaces the configuration (whose restart-only values the caller
 * kept), and every slot gets a fresh init: idle ones at once, busy ones
 * after their job. */
int rc_sandbox_keeper_reload (struct rc_sandbox *sb, const struct rc_config *cfg,
                              const struct rc_lang_table *langs, rc_err_t *err);
/* Waits until every slot is READY (or timeout_ms): `runcell exec`, the
 * service's start. */
int rc_sandbox_keeper_wait_ready (struct rc_sandbox *sb, unsigned timeout_ms, rc_err_t *err);
void rc_sandbox_keeper_stop (struct rc_sandbox *sb);

/* ---- running a job ---- */

/* Interactive parts of a job, all optional. */
struct rc_run_io
{
  /* Each chunk of output as it is read (stream 1 stdout, 2 stderr), also
   * collected into the result. */
  void (*on_output) (void *ud, size_t step, int stream, const char *data, size_t len);
  /* A step started (its first process exec'd). */
  void (*on_step) (void *ud, size_t step);
  void *ud;
  /* The run step's stdin is fed by rc_run_stdin while it runs (the spec's
   * stdin_data is ignored), at most stdin_buffer bytes kept waiting. */
  bool live_stdin;
  size_t stdin_buffer;
  /* The run step's stdio is a terminal of its own (rc_step.tty): its
   * output comes as stream 1, rc_run_resize sets its size, and an eof of
   * rc_run_stdin is the terminal's EOF character.  Not with given_stdio. */
  bool tty;
  /* The run step's stdin and stdout are the caller's fds instead of pipes
   * of the sandbox (the judge joins a program and its interactor, each
   * one's stdout the other's stdin): what flows there is neither written
   * nor collected here, so the step's idle clock sees only its stderr.
   * Each is used when given_stdio is set and it is >= 0; the init gets a
   * copy, the caller keeps and closes its own. */
  bool given_stdio;
  int stdin_fd, stdout_fd;
};

struct rc_run;
/* Starts the job on the slot claimed for it (spec->slot, claim_seq): its
 * init takes it and runs step 0.  On failure the claim is ended (the slot
 * goes back to be cleaned) and err says why (ENOTSUP: the unsandboxed
 * fallback, which only runs rc_sandbox_run). */
int rc_run_start (struct rc_sandbox *sb, const struct rc_job_spec *spec, uint32_t claim_seq,
                  const struct rc_run_io *io, struct rc_run **out, rc_err_t *err);
/* What to poll and for how long (at most RC_RUN_POLLFDS fds). */
#define RC_RUN_POLLFDS 4
size_t rc_run_pollfds (struct rc_run *r, struct pollfd *pfd, int *timeout_ms);
/* After the poll: 1 when the job is over, 0 to go on, -1 on a sandbox
 * failure (err set). */
int rc_run_handle (struct rc_run *r, const struct pollfd *pfd, size_t n, rc_err_t *err);
/* Live stdin (io->live_stdin): all of data is taken or none; -1 with
 * ENOSPC when the buffer cannot hold it, EPIPE once stdin is closed or
 * the step is over (or, on a terminal, before it exists: its STARTED). */
int rc_run_stdin (struct rc_run *r, const void *data, size_t len, bool eof);
/* A tty job's terminal size (TIOCSWINSZ); ENOTTY without one. */
int rc_run_resize (struct rc_run *r, unsigned rows, unsigned cols);
/* A signal to the running step's process group. */
int rc_run_signal (struct rc_run *r, int sig);
/* Ends the job now (a client gone, a DELETE), reported as `why`. */
void rc_run_stop (struct rc_run *r, enum rc_outcome why);
/* The step running now (for stage events). */
size_t rc_run_step_index (const struct rc_run *r);
/* The CPU time the running step has used so far (its cgroup's), 0 before
 * it started: a caller's own clock over several runs (the judge's idle
 * clock of a program and its interactor together). */
int rc_run_cpu_us (struct rc_run *r, uint64_t *us);
/* The result (res owns its buffers).  Frees r.  The claim stays held (the
 * job's leftover processes alive) until rc_sandbox_end_claims: a worker
 * answers first and ends its claims after, so the init's clearing does not
 * compete with the answer. */
int rc_run_finish (struct rc_run *r, struct rc_job_result *res, rc_err_t *err);
/* Ends every claim this process still holds: the slots' inits kill what
 * is left of the jobs and clear them away.  wait: return only once every
 * process of those jobs is gone (a session reads its directory next). */
void rc_sandbox_end_claims (struct rc_sandbox *sb, bool wait);
/* The same for the finished job of one slot alone, now: a request that
 * runs many jobs (the judge) gives each slot back as its job ends. */
void rc_sandbox_end_claim (struct rc_sandbox *sb, int slot, bool wait);

/* The whole job, blocking: start, poll, finish.  Returns 0 when the job
 * ran (whatever the user program did: verdicts are in res), < 0 on a
 * sandbox failure ("sandbox: <step> errno=N"; the caller answers 500). */
int rc_sandbox_run (struct rc_sandbox *sb, const struct rc_job_spec *spec, uint32_t claim_seq,
                    struct rc_job_result *res, rc_err_t *err);
/* Ends a claim on which no job was started (a request that failed before
 * its job ran). */
void rc_sandbox_release (struct rc_sandbox *sb, int slot, uint32_t claim_seq);

/* The uid of slot i: RUN_UID_BASE + i. */
uid_t rc_slot_uid (const struct rc_config *cfg, int slot);

/* `runcell --check-host`: prints a report to stdout; 0 when runcell can
 * run safely here, 1 otherwise.  The languages are checked too: langs, or
 * when they could not be loaded, langs_error (one more thing missing). */
int rc_sandbox_check_host (const struct rc_config *cfg, const struct rc_lang_table *langs,
                           const char *langs_error, bool verbose);

/* ---- what must hold before the service starts (host/startcheck.c) ---- */

/* Every language's host paths and cache directories can be in a job's
 * root (none at or below /tmp, /proc, ... which every job mounts over). */
int rc_sandbox_check_langs (const struct rc_lang_table *langs, rc_err_t *err);
/* The slot uids are usable: mapped in this user namespace, no account's
 * or group's, and (processes) run by no process at all. */
int rc_sandbox_check_uids (const struct rc_config *cfg, bool processes, rc_err_t *err);

/* ---- one owner of a uid range and a cgroup subtree (host/instance.c) ---- */

#define RC_INSTANCE_DIR "/run/lock/runcell"
/* Takes this instance's lock, or fails naming the pid of the runcell that
 * holds the same cgroup subtree or an overlapping uid range.  *fd is held
 * until rc_sandbox_instance_unlock (and by every process forked since).
 * fd NULL: only the look (`runcell --check-host`). */
int rc_sandbox_instance_lock (const struct rc_config *cfg, int *fd, rc_err_t *err);
void rc_sandbox_instance_unlock (int fd);

/* ---- the workers' memory cgroup ---- */

/* Keeper, after rc_sandbox_host_setup: <name>/workers with
 * RUN_WORKERS_MEMORY_MAX; a worker then calls rc_sandbox_workers_enter
 * (no-ops without the sandbox). */
int rc_sandbox_workers_setup (const struct rc_config *cfg, rc_err_t *err);
int rc_sandbox_workers_enter (rc_err_t *err);

#endif
