/* cgroup.h - slot cgroups, one small interface over cgroup v1 and v2.
 *
 * The mode is detected once (statfs of /sys/fs/cgroup): unified (pure v2),
 * hybrid (v1 controllers plus a cgroup2 at /sys/fs/cgroup/unified, as on the
 * development and CI machines) or legacy (v1 only).  v2 uses the unified
 * tree; hybrid and legacy use the v1 memory, pids, cpu and cpuacct
 * hierarchies.  Everything is created below the cgroup runcell starts in:
 *   <own cgroup>/<cfg->cgroup_name>/slot<N>       (v1: in each hierarchy)
 * v2: when the kernel's "no internal processes" rule requires it (our own
 * cgroup holds processes and must delegate controllers), only our own pid
 * is moved into <name>/service; teardown moves it back.
 */
#ifndef RUNCELL_SANDBOX_CGROUP_H
#define RUNCELL_SANDBOX_CGROUP_H

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

/* One runcell cgroup tree: <own cgroup>/<name> and its slots.  The same
 * description is handed to setup, slot_open and teardown, so every opener
 * agrees on the shape (a v1 tree of one slot is flat, cgroup_v1.c). */
struct rc_cgroup_tree
{
  const char *name;   /* one path component */
  unsigned n_slots;   /* slots 0..n_slots-1 */
  uint64_t pids_max;  /* pids.max of each slot at setup (0: max) */
  uint64_t total_max; /* memory cap of all slots together, 0: rc_cgroup_total_auto */
};

/* Creates the subtree and its slot cgroups with pids.max, swap off, oom
 * group (v2), equal cpu weight, and the all-slots memory cap.  Fails naming
 * a missing controller. */
int rc_cgroup_setup_tree (const struct rc_cgroup_tree *tree, rc_err_t *err);
/* The automatic cap: min(MemTotal, the tightest limit of the cgroups
 * enclosing own_dir) minus a reserve for the host of max(256 MiB, 1/8). */
uint64_t rc_cgroup_total_auto (const char *own_dir, bool v2);
/* Kills and removes the subtree (best effort). */
void rc_cgroup_teardown_tree (const struct rc_cgroup_tree *tree);

/* Handle on one slot cgroup (opened per worker, reused per job). */
struct rc_cgroup_slot;
int rc_cgroup_slot_open (struct rc_cgroup_slot **slot, const struct rc_cgroup_tree *tree,
                         unsigned index, rc_err_t *err);
void rc_cgroup_slot_close (struct rc_cgroup_slot *slot);

/* Before each job: memory limit (swap off), pids limit, reset counters
 * (v1 max_usage, failcnt; v2 remembers the baseline). */
int rc_cgroup_slot_prepare (struct rc_cgroup_slot *slot, uint64_t memory_bytes, uint64_t pids_max,
                            rc_err_t *err);
/* v2: an O_DIRECTORY fd for clone3(CLONE_INTO_CGROUP); -1 on v1. */
int rc_cgroup_slot_dirfd (const struct rc_cgroup_slot *slot);
/* Moves pid into the slot (v1: every hierarchy; v2: cgroup.procs).  pid 0
 * on v1: the calling single-threaded process moves itself (through `tasks`,
 * which spares the kernel's global threadgroup lock; see cgroup.c). */
int rc_cgroup_slot_attach (struct rc_cgroup_slot *slot, pid_t pid, rc_err_t *err);
/* The fds rc_cgroup_slot_attach (slot, 0, NULL) uses, for a process that
 * closes all others before it attaches itself (a pre-started init). */
size_t rc_cgroup_slot_attach_fds (const struct rc_cgroup_slot *slot, int *out, size_t max);
/* CPU used since prepare, in microseconds. */
int rc_cgroup_slot_cpu_usage_us (struct rc_cgroup_slot *slot, uint64_t *usage_us, rc_err_t *err);
/* Peak memory since prepare, in bytes (v2: memory.peak where present, else
 * sampled memory.current). */
int rc_cgroup_slot_memory_peak (struct rc_cgroup_slot *slot, uint64_t *bytes, rc_err_t *err);
/* OOM kills since prepare (v2 memory.events oom_kill, v1 memory.oom_control). */
int rc_cgroup_slot_oom_kills (struct rc_cgroup_slot *slot, uint64_t *count, rc_err_t *err);
/* What the thrash watch (sandbox/thrash.c) samples while a step runs. */
struct rc_memory_sample
{
  uint64_t usage;    /* bytes charged now (v1 usage_in_bytes, v2 memory.current) */
  uint64_t limit;    /* the limit prepare set, tmpfs base included; 0: none */
  uint64_t refaults; /* file pages evicted and read back, ever (memory.stat) */
  bool has_refaults; /* false: this kernel's memory.stat has no such counter */
};
int rc_cgroup_slot_memory_sample (struct rc_cgroup_slot *slot, struct rc_memory_sample *s,
                                  rc_err_t *err);
/* SIGKILLs every process in the slot (v2 cgroup.kill) and waits until the
 * slot is empty, at most timeout_ms.  < 0 when processes remain. */
int rc_cgroup_slot_kill_all (struct rc_cgroup_slot *slot, unsigned timeout_ms, rc_err_t *err);
/* True when no process is left in the slot. */
int rc_cgroup_slot_is_empty (struct rc_cgroup_slot *slot, bool *empty, rc_err_t *err);
/* True when the slot holds nothing but namespace inits between jobs: the
 * process known (a resident init of the caller's, or 0) and any idle
 * init of another worker's (spawn.c, "The resident init"). */
int rc_cgroup_slot_holds_only_inits (struct rc_cgroup_slot *slot, pid_t known, bool *only,
                                     rc_err_t *err);
/* Path of the slot in the hierarchy that a sandbox mounts at /sys/fs/cgroup
 * (v2 unified path; v1 the memory hierarchy path). */
const char *rc_cgroup_slot_path (const struct rc_cgroup_slot *slot);

#endif
