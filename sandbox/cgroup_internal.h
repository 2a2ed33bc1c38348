/* cgroup_internal.h - what cgroup.c shares with the v1 and v2 backends.
 *
 * cgroup.c owns mode detection, the lookup of our own cgroup (from
 * /proc/self/cgroup and /proc/self/mountinfo), small helpers that read and
 * write cgroup files through kept fds, and the freeze-free "read procs,
 * SIGKILL each" loop.  cgroup_v1.c and cgroup_v2.c implement the public
 * calls of cgroup.h for their hierarchy; cgroup.c dispatches on the mode.
 *
 * A slot handle keeps open every file a job touches (limits, counters,
 * cgroup.procs), so the per-job work is a handful of pwrite/pread calls on
 * fds and never a path lookup.
 */
#ifndef RUNCELL_SANDBOX_CGROUP_INTERNAL_H
#define RUNCELL_SANDBOX_CGROUP_INTERNAL_H

#include "common/clock.h"
#include "sandbox/cgroup.h"

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

#define RC_CG_MAX_HIER RC_CG1_COUNT

struct rc_cgroup_slot
{
  enum rc_cgroup_mode mode;
  unsigned index;
  char *path; /* rc_cgroup_slot_path: v2 slot dir, v1 memory slot dir */

  /* Per distinct hierarchy the slot lives in (v2: one): cgroup.procs kept
   * open for attach (writes), and an O_PATH directory fd from which
   * cgroup.procs is reopened for every read.  A kept read fd would not do
   * on v1: its pid list is cached per open file and only refreshed after it
   * has been idle for a second (kernel/cgroup/cgroup-v1.c pidlists). */
  int procs[RC_CG_MAX_HIER];
  int dirs[RC_CG_MAX_HIER];
  /* v1: `tasks` kept open too, for the namespace init's move of itself
   * (a write of 0, rc_cgroup_slot_attach): four opens and closes fewer
   * per job.  Writes are not cached like the pid list a read builds. */
  int tasks[RC_CG_MAX_HIER];
  size_t n_procs;

  /* v1 files, -1 when absent. */
  int v1_limit;      /* memory.limit_in_bytes */
  int v1_memsw;      /* memory.memsw.limit_in_bytes (swap accounting on) */
  int v1_max_usage;  /* memory.max_usage_in_bytes, reset by writing 0 */
  int v1_failcnt;    /* memory.failcnt, reset by writing 0 */
  int v1_oom;        /* memory.oom_control, "oom_kill N" since 4.13 */
  int v1_pids_max;   /* pids.max */
  int v1_cpu_usage;  /* cpuacct.usage in ns, reset by writing 0 */
  int v1_usage;      /* memory.usage_in_bytes */
  uint64_t v1_cap;   /* flat tree: the all-slots cap, folded into the limit */
  uint64_t oom_base; /* oom_kill (v1) or memory.events oom_kill (v2) at prepare */
  /* tmpfs pages already charged at prepare (an earlier step's /tmp, a
   * session's files): on top of the limit, and not in the peak. */
  uint64_t shmem_base;
  /* Both modes: memory.stat kept open (the leftover tmpfs at prepare, the
   * refault counter the thrash watch samples), the name of that counter
   * in this kernel's memory.stat (NULL: none), and the limit prepare
   * wrote, tmpfs base included (0: none). */
  int mem_stat;
  const char *refault_key;
  uint64_t limit_bytes;

  /* v2 files, -1 when absent. */
  int v2_dir;        /* O_DIRECTORY fd for clone3 (CLONE_INTO_CGROUP) */
  int v2_memory_max; /* memory.max */
  int v2_pids_max;   /* pids.max */
  int v2_peak;       /* memory.peak (O_RDWR when resettable, 6.12+) */
  int v2_current;    /* memory.current */
  int v2_cpu_stat;   /* cpu.stat usage_usec */
  int v2_events;     /* memory.events oom_kill, oom_group_kill */
  int v2_kill;       /* cgroup.kill (5.14+) */
  int v2_cg_events;  /* cgroup.events populated */
  bool v2_peak_resettable;
  uint64_t cpu_base;       /* usage_usec at prepare */
  uint64_t group_oom_base; /* oom_group_kill at prepare */
  uint64_t peak_base;      /* memory.peak at prepare when not resettable */
  uint64_t current_max;    /* highest memory.current sampled since prepare */
};

/* --- cgroup.c: shared helpers --- */

/* Filesystem directory of our own cgroup in the v1 hierarchy holding
 * controller (e.g. "/sys/fs/cgroup/memory/process_api/x"), or in the cgroup2
 * hierarchy when controller is NULL.  *mount_dir gets the mount point of
 * that hierarchy (used to tell co-mounted controllers apart). */
int rc_cg_own_dir (const char *controller, char **dir, char **mount_dir, rc_err_t *err);
/* /proc/self/cgroup and /proc/self/mountinfo, read once for several
 * lookups with rc_cg_dir_from (both freed by the caller). */
int rc_cg_read_self (char **cgroup_text, char **mountinfo_text, rc_err_t *err);
/* The same from the texts of /proc/self/cgroup and /proc/self/mountinfo
 * (for unit tests on literal layouts). */
int rc_cg_dir_from (const char *cgroup_text, const char *mountinfo_text, const char *controller,
                    char **dir, char **mount_dir, rc_err_t *err);
/* True when name is a single path component we may create. */
bool rc_cg_name_ok (const char *name);

int rc_cg_open (int dirfd, const char *dir, const char *file, int flags, rc_err_t *err);
/* Writes value at offset 0 (each write is one command to the kernel). */
int rc_cg_write_fd (int fd, const char *value, const char *what, rc_err_t *err);
int rc_cg_write_file (const char *dir, const char *file, const char *value, rc_err_t *err);
/* Reads the whole file from offset 0 into buf (NUL-terminated). */
int rc_cg_read_fd (int fd, char *buf, size_t size, const char *what, rc_err_t *err);
int rc_cg_read_file (const char *dir, const char *file, char *buf, size_t size, rc_err_t *err);
int rc_cg_read_u64_fd (int fd, uint64_t *value, const char *what, rc_err_t *err);
/* For "key value" lines (cpu.stat, memory.events, memory.oom_control):
 * *found says whether the key exists. */
int rc_cg_read_key_fd (int fd, const char *key, uint64_t *value, bool *found, const char *what,
                       rc_err_t *err);
/* Whether a space-separated list (cgroup.controllers) contains word. */
bool rc_cg_list_has (const char *list, const char *word);

/* SIGKILLs every pid listed in cgroup.procs of the dirs and waits until all are empty,
 * at most timeout_ms.  Only pids still listed in the slot after their pidfd
 * was opened are signalled, so a recycled pid outside the slot is never
 * hit. */
int rc_cg_kill_loop (const int *dirs, size_t n, unsigned timeout_ms, rc_err_t *err);
int rc_cg_procs_empty (const int *dirs, size_t n, bool *empty, rc_err_t *err);
/* Removes one slot directory after killing what is in it (teardown). */
void rc_cg_remove_dir (const char *dir);
/* Bytes of shmem (tmpfs) still charged to the slot's memory cgroup when no
 * process is left in it: pages a finished job wrote into a session's tmpfs.
 * 0 when memory.stat has no such line. */
uint64_t rc_cg_leftover_shmem (struct rc_cgroup_slot *slot);
/* Opens the slot's memory.stat below dirfd and finds its refault counter. */
int rc_cg_open_memory_stat (struct rc_cgroup_slot *slot, int dirfd, const char *dir, bool v2,
                            rc_err_t *err);
void rc_cg_slot_init_fds (struct rc_cgroup_slot *slot);
void rc_cg_sleep_us (unsigned us);

/* --- cgroup_v1.c --- */
int rc_cg1_setup_tree (const struct rc_cgroup_tree *tree, rc_err_t *err);
void rc_cg1_teardown_tree (const struct rc_cgroup_tree *tree);
/* A v1 tree of one slot is flat: the slot is <name> itself (cgroup_v1.c). */
static inline bool
rc_cg1_flat (unsigned n_slots)
{
  return n_slots == 1;
}
int rc_cg1_slot_open (struct rc_cgroup_slot *slot, const struct rc_cgroup_tree *tree,
                      rc_err_t *err);
int rc_cg1_prepare (struct rc_cgroup_slot *slot, uint64_t memory_bytes, uint64_t pids_max,
                    rc_err_t *err);
int rc_cg1_cpu_usage_us (struct rc_cgroup_slot *slot, uint64_t *usage_us, rc_err_t *err);
int rc_cg1_memory_peak (struct rc_cgroup_slot *slot, uint64_t *bytes, rc_err_t *err);
int rc_cg1_oom_kills (struct rc_cgroup_slot *slot, uint64_t *count, rc_err_t *err);

/* --- cgroup_v2.c --- */
int rc_cg2_setup_tree (const struct rc_cgroup_tree *tree, rc_err_t *err);
void rc_cg2_teardown_tree (const struct rc_cgroup_tree *tree);
int rc_cg2_slot_open (struct rc_cgroup_slot *slot, const struct rc_cgroup_tree *tree,
                      rc_err_t *err);
int rc_cg2_prepare (struct rc_cgroup_slot *slot, uint64_t memory_bytes, uint64_t pids_max,
                    rc_err_t *err);
int rc_cg2_cpu_usage_us (struct rc_cgroup_slot *slot, uint64_t *usage_us, rc_err_t *err);
int rc_cg2_memory_peak (struct rc_cgroup_slot *slot, uint64_t *bytes, rc_err_t *err);
int rc_cg2_oom_kills (struct rc_cgroup_slot *slot, uint64_t *count, rc_err_t *err);
int rc_cg2_kill_all (struct rc_cgroup_slot *slot, unsigned timeout_ms, rc_err_t *err);
int rc_cg2_is_empty (struct rc_cgroup_slot *slot, bool *empty, rc_err_t *err);

#endif
