/* cgroup_internal.h - what cgroup.c shares with the v1 and v2 backends.
 *
 * cgroup.c owns mode detection, the lookup of our own cgroup (from
 * /proc/self/cgroup and /proc/self/mountinfo), small helpers that read and
 * write cgroup files through kept fds, the freeze-free "read procs, SIGKILL
 * each" loop, and the public calls of cgroup.h, which go through the
 * backend's table of operations (crun's manager, in small).  A slot handle
 * keeps every directory it works in open, so the init, once pivoted into
 * the job's root, still reaches the host's cgroup tree.
 */
#ifndef RUNCELL_SANDBOX_CGROUP_CGROUP_INTERNAL_H
#define RUNCELL_SANDBOX_CGROUP_CGROUP_INTERNAL_H

#include "common/clock.h"
#include "sandbox/cgroup/cgroup.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The v1 hierarchies we use.  cpu and cpuacct are often co-mounted
 * ("cpu,cpuacct"); a slot then holds one directory for both. */
enum rc_cg1_ctl
{
  RC_CG1_MEMORY = 0,
  RC_CG1_PIDS,
  RC_CG1_CPUACCT,
  RC_CG1_CPU,
  RC_CG1_COUNT
};

#define RC_CG_MAX_STEPS 16

/* v2: one step's leaf, its meter's files, and its two limits. */
struct rc_cg2_leaf
{
  int dir; /* O_DIRECTORY, the step's clone target; -1: not made */
  int fd[RC_CG_METER_FDS];
  int memory_max, pids_max;
};

struct rc_cgroup_slot
{
  const struct rc_cgroup_ops *ops;
  enum rc_cgroup_mode mode;
  unsigned index;
  char *path; /* rc_cgroup_slot_path */

  /* Directories of the slot, one per distinct hierarchy (v2: one), as
   * O_PATH fds; the parent (<name>) of each, for a v1 new generation. */
  int dirs[RC_CG1_COUNT];
  int parents[RC_CG1_COUNT];
  size_t n_dirs;

  /* v2 */
  int v2_slot;   /* O_DIRECTORY fd of own/<name>/slot<N> (mkdirat, openat) */
  int v2_init;   /* O_DIRECTORY fd of .../init: the init's clone target */
  int v2_kill;   /* slot's cgroup.kill (5.14+), -1 when absent */
  int v2_events; /* slot's cgroup.events (populated) */
  struct rc_cg2_leaf v2_steps[RC_CG_MAX_STEPS]; /* the current job's step leaves */
  int v2_view;          /* the slot bound in the init's own namespace (hidden), -1 */
  char view_target[64]; /* where the step's view is mounted, "" before the first */

  /* v1: which hierarchy each controller is in (index into dirs), the
   * slot's generation, and the files a step touches. */
  int v1_hier[RC_CG1_COUNT];
  unsigned v1_gen;
  int v1_tasks[RC_CG1_COUNT]; /* `tasks` of each hierarchy (the init's move) */
  int v1_job;                 /* the job's memory cgroup below the slot's (j<gen>) */
  int v1_job_tasks;           /* its `tasks`: a step's first process joins it */
  int v1_limit, v1_memsw, v1_max_usage, v1_failcnt, v1_oom, v1_usage, v1_stat;
  int v1_pids_max, v1_cpu_usage;
  int v1_memsw_max_usage, v1_memsw_failcnt;
  bool v1_viewed;    /* the job's view is mounted for this generation */
  int v1_mem_view;   /* the memory hierarchy mounted hidden in the init's namespace */
  int v1_pids_view;  /* the pids hierarchy, likewise */
  uint64_t pids_max; /* the tree's per-slot pids.max */
};

/* The backend's side of cgroup.h. */
struct rc_cgroup_ops
{
  int (*setup_tree) (const struct rc_cgroup_tree *tree, rc_err_t *err);
  void (*teardown_tree) (const struct rc_cgroup_tree *tree);
  int (*slot_open) (struct rc_cgroup_slot *slot, const struct rc_cgroup_tree *tree, rc_err_t *err);
  void (*slot_close) (struct rc_cgroup_slot *slot);
  int (*slot_enter) (struct rc_cgroup_slot *slot, rc_err_t *err);
  int (*view_setup) (struct rc_cgroup_slot *slot, const char *hidden_dir, rc_err_t *err);
  int (*step_prepare) (struct rc_cgroup_slot *slot, unsigned step, uint64_t memory_bytes,
                       uint64_t pids, struct rc_cgroup_meter *meter, int *clone_fd, int *join_fd,
                       bool *unmet, rc_err_t *err);
  int (*step_view) (struct rc_cgroup_slot *slot, unsigned step, const char *target,
                    const char *mask_file, rc_err_t *err);
  int (*job_clear) (struct rc_cgroup_slot *slot, bool *renewed, rc_err_t *err);
  int (*kill_all) (struct rc_cgroup_slot *slot, unsigned timeout_ms, rc_err_t *err);
  int (*is_empty) (struct rc_cgroup_slot *slot, bool *empty, rc_err_t *err);
  /* Readings of a meter (the file formats differ). */
  int (*cpu_us) (const struct rc_cgroup_meter *m, uint64_t *usage_us, rc_err_t *err);
  int (*oom_kills) (const struct rc_cgroup_meter *m, uint64_t *count, rc_err_t *err);
};
extern const struct rc_cgroup_ops rc_cgroup_v1_ops;
extern const struct rc_cgroup_ops rc_cgroup_v2_ops;

/* --- cgroup.c: shared helpers --- */

/* Filesystem directory of our own cgroup in the v1 hierarchy holding
 * controller, or in the cgroup2 hierarchy when controller is NULL;
 * *mount_dir gets that hierarchy's mount point. */
int rc_cg_own_dir (const char *controller, char **dir, char **mount_dir, rc_err_t *err);
/* /proc/self/cgroup and /proc/self/mountinfo, read once (both freed by the
 * caller). */
int rc_cg_read_self (char **cgroup_text, char **mountinfo_text, rc_err_t *err);
/* The same from literal texts (unit tests). */
int rc_cg_dir_from (const char *cgroup_text, const char *mountinfo_text, const char *controller,
                    char **dir, char **mount_dir, rc_err_t *err);
bool rc_cg_name_ok (const char *name);

int rc_cg_open (int dirfd, const char *dir, const char *file, int flags, rc_err_t *err);
int rc_cg_write_fd (int fd, const char *value, const char *what, rc_err_t *err);
int rc_cg_write_file (const char *dir, const char *file, const char *value, rc_err_t *err);
int rc_cg_write_at (int dirfd, const char *file, const char *value, rc_err_t *err);
int rc_cg_read_fd (int fd, char *buf, size_t size, const char *what, rc_err_t *err);
int rc_cg_read_file (const char *dir, const char *file, char *buf, size_t size, rc_err_t *err);
int rc_cg_read_u64_fd (int fd, uint64_t *value, const char *what, rc_err_t *err);
/* "key value" lines (cpu.stat, memory.events, memory.stat): *found says
 * whether the key exists. */
int rc_cg_read_key_fd (int fd, const char *key, uint64_t *value, bool *found, const char *what,
                       rc_err_t *err);
bool rc_cg_list_has (const char *list, const char *word);
/* The refault counter this kernel's memory.stat has (1-based index into
 * the backend's key list, 0: none). */
int rc_cg_find_refault_key (int stat_fd, bool v2);
const char *rc_cg_refault_key_name (int key, bool v2);

/* SIGKILLs every pid in cgroup.procs of the dirs until they are empty, at
 * most timeout_ms; a pid recycled outside the cgroup is never hit
 * (pidfds). */
int rc_cg_kill_loop (const int *dirs, size_t n, unsigned timeout_ms, rc_err_t *err);
int rc_cg_procs_empty (const int *dirs, size_t n, bool *empty, rc_err_t *err);
/* rmdir, killing what is in the directory first when it is busy. */
void rc_cg_remove_dir (const char *dir);
int rc_cg_remove_at (int parentfd, const char *name);
void rc_cg_sleep_us (unsigned us);
void rc_cg_close (int *fd);

/* True on a unified (pure cgroup v2) host. */
static inline bool
rc_cg_is_v2 (enum rc_cgroup_mode mode)
{
  return mode == RC_CGROUP_UNIFIED;
}

#endif
