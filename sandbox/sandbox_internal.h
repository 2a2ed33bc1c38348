/* sandbox_internal.h - the sandbox handle, shared by the rooms of sandbox/
 * (never included outside it):
 *
 *   sandbox.c       life cycle, host setup, the theory of operation
 *   slot/           the slot table, the keeper, the init, the control
 *                   protocol, the per-job reset
 *   process/        the child's privilege drop and exec, supervision with
 *                   its clocks, a job run seen from its supervisor, the
 *                   development fallback
 *   root/           the job's root, its per-job mounts, the safe host-file
 *                   layer, the sessions' workspaces
 *   cgroup/         one table of operations, a v1 and a v2 backend
 *   seccomp/        the filter, compiled at build time
 *   host/           the host check, syscalls.h, clone onto a stack
 */
#ifndef RUNCELL_SANDBOX_SANDBOX_INTERNAL_H
#define RUNCELL_SANDBOX_SANDBOX_INTERNAL_H

#include "common/config.h"
#include "sandbox/cgroup/cgroup.h"
#include "sandbox/root/root.h"
#include "sandbox/sandbox.h"
#include "sandbox/seccomp/seccomp_filter.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The keeper's own record of one slot. */
struct rc_keeper_slot
{
  struct rc_cgroup_slot *cg; /* opened before each init's clone */
  pid_t init;                /* 0: none */
  uint64_t started_ms;       /* when the last init was started */
  unsigned restarts;
};

struct rc_sandbox
{
  const struct rc_config *cfg;
  enum rc_sandbox_mode mode;
  enum rc_cgroup_mode cgmode;
  struct rc_seccomp_program seccomp;
  bool have_seccomp;
  unsigned n_slots;
  unsigned cap_last;   /* /proc/sys/kernel/cap_last_cap, read at open */
  bool bounding_empty; /* rc_sandbox_drop_bounding ran in this process */
  char **sock_paths;   /* per slot: where its init listens */
  /* Control connections of finished jobs whose claims are not ended yet
   * (rc_sandbox_end_claims). */
  int ending[16];
  int ending_slot[16]; /* the slot of each */
  size_t n_ending;

  /* Keeper only: the slots' inits and what their root holds. */
  bool keeper;
  int keeper_pidfd; /* inherited by the inits: they leave when it ends */
  struct rc_keeper_slot *ks;
  struct rc_root_plan plan;
  uint64_t plan_stamp;       /* rc_root_plan_stamp when the inits were started */
  uint64_t stamp_checked_ms; /* when it was last compared */
  struct rc_root_lang *plan_langs;
  char **plan_host_paths;
};

/* sandbox.c: the service's cgroup tree, as setup, the keeper and
 * teardown see it. */
struct rc_cgroup_tree rc_sandbox_cgroup_tree (const struct rc_config *cfg);

/* keeper.c */
int rc_keeper_start_slot (struct rc_sandbox *sb, unsigned slot, rc_err_t *err);

/* process/unsandboxed.c: the development fallback, one job, blocking. */
int rc_unsandboxed_run (struct rc_sandbox *sb, const struct rc_job_spec *spec,
                        struct rc_job_result *res, rc_err_t *err);

#endif
