/* cgroup.h - the slot cgroups: one interface, a v1 and a v2 backend.
 *
 * The mode is detected once (statfs of /sys/fs/cgroup): unified (pure
 * v2), hybrid (v1 controllers plus a controller-less cgroup2 at
 * /sys/fs/cgroup/unified, as on the development and CI machines) or legacy
 * (v1 only).  Hybrid and legacy take the v1 backend.  Everything is made
 * below the cgroup runcell starts in ("own"):
 *
 *   v2   own/<name>/slot<N>/init     the slot's init, alone
 *        own/<name>/slot<N>/step<I>  step I of the current job, made fresh
 *                                    for each job (every counter starts at
 *                                    zero, memory.peak included, on 6.1 too)
 *   v1   own/<name>/slot<N>[-<gen>]  the init and the job's processes, in
 *                                    memory, pids, cpuacct and cpu; reset
 *                                    per step; replaced (a new <gen>) after
 *                                    a job that left memory charged to it
 *
 * Who does what: the keeper (the master, or `runcell exec`) sets the tree
 * up, opens each slot before it clones the slot's init, and tears it down;
 * the init (slot/init.c) prepares each step, mounts the step's view at
 * /sys/fs/cgroup and clears the job away; the supervising process reads a
 * step through its meter, fds the init sends it.  Each backend implements
 * the calls of struct rc_cgroup_ops (cgroup_internal.h).
 */
#ifndef RUNCELL_SANDBOX_CGROUP_CGROUP_H
#define RUNCELL_SANDBOX_CGROUP_CGROUP_H

#include "common/error.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum rc_cgroup_mode
{
  RC_CGROUP_UNKNOWN = 0,
  RC_CGROUP_UNIFIED, /* pure v2 */
  RC_CGROUP_HYBRID,  /* v1 controllers + controller-less cgroup2 */
  RC_CGROUP_LEGACY,  /* v1 only */
};

int rc_cgroup_detect_mode (enum rc_cgroup_mode *mode, rc_err_t *err);
const char *rc_cgroup_mode_name (enum rc_cgroup_mode mode);
/* Whether every controller the sandbox needs is there for us, found the
 * way the tree's setup finds them (v2: memory, pids, cpu in our cgroup's
 * cgroup.controllers; v1: the memory, pids, cpuacct and cpu hierarchies
 * with our cgroup in each).  0 when all are; < 0 naming the first one
 * missing. */
int rc_cgroup_check_controllers (enum rc_cgroup_mode mode, rc_err_t *err);

/* One runcell cgroup tree: <own cgroup>/<name> and its slots.  The same
 * description goes to setup, slot_open and teardown. */
struct rc_cgroup_tree
{
  const char *name;   /* one path component */
  unsigned n_slots;   /* slots 0..n_slots-1 */
  uint64_t pids_max;  /* pids.max of each slot (0: max) */
  uint64_t total_max; /* memory cap of all slots together, 0: rc_cgroup_total_auto */
};

/* Creates the subtree and its slots (pids.max, swap off, equal CPU
 * weight, the all-slots memory cap).  Fails naming a missing controller:
 * runcell does not start without memory, pids and the CPU accounting. */
int rc_cgroup_setup_tree (const struct rc_cgroup_tree *tree, rc_err_t *err);
/* min(MemTotal, the tightest limit enclosing own_dir) minus a reserve for
 * the host of max(256 MiB, 1/8). */
uint64_t rc_cgroup_total_auto (const char *own_dir, bool v2);
/* Kills what is left and removes the subtree (best effort). */
void rc_cgroup_teardown_tree (const struct rc_cgroup_tree *tree);

/* ---- a slot, as its keeper and its init hold it ---------------------- */

struct rc_cgroup_slot;
/* Keeper side, before the init is cloned: the init inherits the handle. */
int rc_cgroup_slot_open (struct rc_cgroup_slot **slot, const struct rc_cgroup_tree *tree,
                         unsigned index, rc_err_t *err);
void rc_cgroup_slot_close (struct rc_cgroup_slot *slot);
/* v2: the init's own leaf, for the keeper's clone3(CLONE_INTO_CGROUP);
 * -1 on v1, where the init moves itself (rc_cgroup_slot_enter). */
int rc_cgroup_slot_init_fd (const struct rc_cgroup_slot *slot);
/* Keeper side: SIGKILLs everything in the slot, the init included, and
 * waits until it is empty (a broken slot); and whether it is. */
int rc_cgroup_slot_kill_all (struct rc_cgroup_slot *slot, unsigned timeout_ms, rc_err_t *err);
int rc_cgroup_slot_is_empty (struct rc_cgroup_slot *slot, bool *empty, rc_err_t *err);
/* Every fd the handle holds (a process forked from the keeper keeps
 * these and closes the rest); the count, at most max. */
size_t rc_cgroup_slot_fds (const struct rc_cgroup_slot *slot, int *out, size_t max);
/* The slot's directory in the hierarchy the job sees (v2: the slot, v1:
 * its memory cgroup). */
const char *rc_cgroup_slot_path (const struct rc_cgroup_slot *slot);

/* ---- in the init ------------------------------------------------------ */

/* Once, right after the clone and before the root is built: v1 moves the
 * init into the slot (it is born in the keeper's cgroups). */
int rc_cgroup_slot_enter (struct rc_cgroup_slot *slot, rc_err_t *err);
/* Once, before the pivot: what the views need from the init's own mount
 * namespace.  hidden_dir is a directory of the new root that a later
 * mount covers (v2 binds the slot there, for the per-step views). */
int rc_cgroup_slot_view_setup (struct rc_cgroup_slot *slot, const char *hidden_dir, rc_err_t *err);

/* What a step's supervisor reads: fds the init opens, sends over the
 * control socket and the supervisor closes, and the bases taken when the
 * step was prepared.  fd[RC_CG_FD_KILL] is -1 on v1 (no cgroup.kill: the
 * init's kill(-1) is the kill there). */
enum rc_cgroup_meter_fd
{
  RC_CG_FD_CPU = 0, /* v2 cpu.stat, v1 cpuacct.usage */
  RC_CG_FD_PEAK,    /* v2 memory.peak, v1 memory.max_usage_in_bytes */
  RC_CG_FD_OOM,     /* v2 memory.events, v1 memory.oom_control */
  RC_CG_FD_CURRENT, /* v2 memory.current, v1 memory.usage_in_bytes */
  RC_CG_FD_STAT,    /* memory.stat (the thrash watch's refaults) */
  RC_CG_FD_KILL,    /* v2 cgroup.kill */
  RC_CG_METER_FDS
};
struct rc_cgroup_meter
{
  int v2; /* 1: unified backend */
  int fd[RC_CG_METER_FDS];
  uint64_t base_bytes;  /* charged before the step (v1): out of its peak */
  uint64_t oom_base;    /* v1: oom_kill at prepare */
  uint64_t limit_bytes; /* the memory limit written, 0: none */
  int refault_key;      /* which memory.stat counter has refaults, 0: none */
};
void rc_cgroup_meter_init (struct rc_cgroup_meter *m);
void rc_cgroup_meter_close (struct rc_cgroup_meter *m);

/* Before step `step` of the job: its limits, its counters from zero, its
 * meter.  Where the step's first process goes: *clone_fd is the v2 leaf it
 * is cloned into (CLONE_INTO_CGROUP), -1 on v1; *join_fd is the v1 `tasks`
 * file it writes "0" to before it execs (the job's memory cgroup, below
 * the init's: a v1 process cannot be born into a cgroup), -1 on v2.  A
 * limit the kernel cannot meet (v1: usage above it) is not an error:
 * *unmet is set and the step must not run (the memory verdict). */
int rc_cgroup_step_prepare (struct rc_cgroup_slot *slot, unsigned step, uint64_t memory_bytes,
                            uint64_t pids, struct rc_cgroup_meter *meter, int *clone_fd,
                            int *join_fd, bool *unmet, rc_err_t *err);
/* The step's own cgroup at target (the job's /sys/fs/cgroup), read-only:
 * v2 binds the step leaf (the job's cgroup namespace is rooted there);
 * v1 has its memory and pids views mounted once (and again after a new
 * generation), with the counters that cannot be reset masked. */
int rc_cgroup_step_view (struct rc_cgroup_slot *slot, unsigned step, const char *target,
                         const char *mask_file, rc_err_t *err);
/* After the job, once its processes are gone: v2 removes the step leaves
 * and makes the next job's first one; v1 replaces the slot's memory cgroup
 * when the job left more than RC_CG1_NOISE (1 MiB) charged to it, moves
 * the init there, unshares its cgroup namespace again and has the view
 * remounted at the next step.  *renewed says it did. */
int rc_cgroup_job_clear (struct rc_cgroup_slot *slot, bool *renewed, rc_err_t *err);

/* ---- the supervisor's readings ---------------------------------------- */

int rc_cgroup_meter_cpu_us (const struct rc_cgroup_meter *m, uint64_t *usage_us, rc_err_t *err);
int rc_cgroup_meter_peak (const struct rc_cgroup_meter *m, uint64_t *bytes, rc_err_t *err);
int rc_cgroup_meter_oom_kills (const struct rc_cgroup_meter *m, uint64_t *count, rc_err_t *err);
/* What the thrash watch (process/thrash.c) samples while a step runs. */
struct rc_memory_sample
{
  uint64_t usage;    /* bytes charged now */
  uint64_t limit;    /* the limit prepare set; 0: none */
  uint64_t refaults; /* file pages evicted and read back, ever (memory.stat) */
  bool has_refaults; /* false: this kernel's memory.stat has no such counter */
};
int rc_cgroup_meter_sample (const struct rc_cgroup_meter *m, struct rc_memory_sample *s,
                            rc_err_t *err);
/* v2: cgroup.kill of the step (asynchronous); 0 and nothing on v1. */
int rc_cgroup_meter_kill (const struct rc_cgroup_meter *m);

#endif
