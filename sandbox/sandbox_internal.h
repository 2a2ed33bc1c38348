/* sandbox_internal.h - what the sandbox's own files share with each other
 * (never included outside sandbox/).
 *
 *   sandbox.c     life cycle, host setup, slot hygiene, dispatch by mode
 *   spawn.c       isolated mode: clone, the namespace init, the user child
 *   mounts.c      the mount view built by the namespace init
 *   workspace.c   host-side file work: input files, skeletons, copies, rm -rf
 *   supervise.c   the worker's poll loop: pipes, stdin, clocks, output caps
 *   unsandboxed.c the development fallback
 *   hostcheck.c   `runcell --check-host`
 */
#ifndef RUNCELL_SANDBOX_INTERNAL_H
#define RUNCELL_SANDBOX_INTERNAL_H

#include "common/clock.h"
#include "common/config.h"
#include "common/error.h"
#include "common/job.h"
#include "sandbox/cgroup.h"
#include "sandbox/sandbox.h"
#include "sandbox/seccomp_filter.h"
#include "sandbox/session_workspace.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Upper bound on the steps of one job: each step holds three pipes open in
 * the init until it runs. */
#define RC_SANDBOX_MAX_STEPS 16

struct rc_skel_entry
{
  char *template_dir;
  char *skel_dir;
};

struct rc_sandbox
{
  const struct rc_config *cfg;
  enum rc_sandbox_mode mode;
  enum rc_cgroup_mode cgmode;
  struct rc_seccomp_program seccomp;
  bool have_seccomp;
  struct rc_cgroup_slot **slots; /* opened lazily, cfg->concurrency entries */
  unsigned n_slots;
  bool *slot_verified; /* the uid scan passed once for this slot */
  pid_t *dying_init;   /* per slot: an init killed but not yet reaped, or 0 */
  /* A pre-started init waiting for the next job (spawn.c), when enabled. */
  enum rc_prestart prestart;
  pid_t warm_pid;        /* 0: none */
  int warm_ctl;          /* worker end of its control socket */
  bool warm_root_cloned; /* it got a clone of the root template */
  /* Resident inits (spawn.c, "The resident init"): when on, the warm init
   * is kept after a job that ended cleanly and serves the next job of the
   * same slot, template and host paths. */
  bool resident_on;
  bool warm_resident;    /* the warm init has served a job: it is in its root */
  bool warm_cleaning;    /* its job ended, its CLEAN not yet read */
  bool warm_end_pending; /* ... and END is not sent yet (resident_end) */
  int warm_slot;         /* the slot it joined (warm_resident) */
  char *warm_key;        /* what its view was built for (resident_key) */
  struct rc_job_arena *arena;
  int *netns;                  /* per slot: fd of its pre-made network namespace */
  struct rc_skel_entry *skels; /* template dir -> skeleton dir cache */
  size_t n_skels;
  /* The job root's template (root_template.c): a detached mount tree of
   * this process, -1 until the first job; unavailable: per-job roots. */
  int root_tpl;
  pid_t root_tpl_pid;
  bool root_tpl_unavailable;
  /* Inits on the worker's memory (spawn.c): per slot, the stack and the
   * init's copy of its job, mapped on first use; off when the kernel
   * refuses the clone flags. */
  void **init_area;
  bool init_shared_unavailable;
  unsigned cap_last;   /* /proc/sys/kernel/cap_last_cap, read at open */
  bool bounding_empty; /* rc_sandbox_drop_bounding ran in this process */
};

/* sandbox.c */
int rc_sandbox_get_slot (struct rc_sandbox *sb, int slot, struct rc_cgroup_slot **out,
                         rc_err_t *err);
/* Waits for the slot's killed init, if any (its namespaces' teardown). */
void rc_sandbox_reap_dying (struct rc_sandbox *sb, int slot);

/* spawn.c */
int rc_isolated_run (struct rc_sandbox *sb, const struct rc_job_spec *spec,
                     struct rc_job_result *res, rc_err_t *err);

/* Kills and reaps the pre-started init, if any. */
void rc_sandbox_warm_stop (struct rc_sandbox *sb);
/* The slot's resident init, once it has cleared its last job away (it is
 * stopped when it cannot): its pid, which the slot's cgroup may hold; 0
 * when the slot has none. */
pid_t rc_sandbox_resident_settle (struct rc_sandbox *sb, int slot);
/* Unmaps the slots' init areas (after every init is reaped). */
void rc_sandbox_init_areas_free (struct rc_sandbox *sb);

/* unsandboxed.c */
int rc_unsandboxed_run (struct rc_sandbox *sb, const struct rc_job_spec *spec,
                        struct rc_job_result *res, rc_err_t *err);

/* mounts.c: everything the namespace init needs to build the view. */
struct rc_mount_plan
{
  const struct rc_job_spec *spec;
  const char *skel_dir; /* RC_WORKSPACE_TEMPLATE */
  enum rc_cgroup_mode cgmode;
  uid_t uid;
  gid_t gid;
  /* A clone of the worker's root template, or -1: build the root here. */
  int root_fd;
  uid_t first_uid; /* passwd names first_uid .. first_uid + n_uids - 1 */
  unsigned n_uids;
};
/* Runs in the namespace init (root, private mount namespace).  On failure
 * returns -1 with errno set and *step naming the failed step. */
int rc_mounts_build (const struct rc_mount_plan *plan, const char **step);
/* The same in two halves, for a pre-started init: the base owes nothing to
 * the job (it attaches root_fd, or builds the root when it is -1, and
 * closes it); the job half needs the slot's namespaces joined first, and
 * ends with the pivot into the job's own root. */
int rc_mounts_build_base (int root_fd, uid_t first_uid, unsigned n_uids, const char **step);
int rc_mounts_build_job (const struct rc_mount_plan *plan, bool root_cloned, int keep_lowers[2],
                         const char **step);
/* A resident init (spawn.c): the removal of a job's /tmp and workspace
 * once its processes are gone, with the next job's /tmp mounted ahead
 * (opts: rc_mounts_tmp_options of the job before); and the next job's
 * workspace in the root it already entered, on the lowers kept open by
 * the first job's rc_mounts_build_job. */
#define RC_TMP_OPTS_MAX 96
void rc_mounts_tmp_options (const struct rc_job_spec *spec, char opts[RC_TMP_OPTS_MAX]);
int rc_mounts_job_clear (const char *opts, const char **step);
int rc_mounts_job_again (const struct rc_mount_plan *plan, const int lower_fds[2],
                         const char *ahead_opts, const char **step);

/* root_template.c: what the job's root holds, and the worker's template
 * of it.  A builder adds to the root below rootfd; bind attaches host path
 * host at rel (relative to rootfd). */
#define RC_ROOT_SHM_DIR "/tmp/.shm"
/* Empty, read-only, under the job's sysfs: the sources of /proc masks
 * (a file and a directory), and on cgroup v1 the directory with the mount
 * points "memory" and "pids" bound on the sysfs's /sys/fs/cgroup.  Binds
 * of the root's own tmpfs: no superblock of their own per job. */
#define RC_ROOT_MASK_FILE "/sys/.empty"
#define RC_ROOT_MASK_DIR "/sys/.empty.d"
#define RC_ROOT_CGROUP_V1_DIR "/sys/.cgroup-v1"
/* Mount points "0" and "1" of a resident init's workspace lowers (the
 * skeleton and the template), covered by the job's sysfs like the rest
 * (spawn.c, "The resident init"). */
#define RC_ROOT_LOWERS_DIR "/sys/.lowers"
struct rc_root_builder
{
  int rootfd;
  int (*bind) (const struct rc_root_builder *b, const char *host, const char *rel);
};
/* An absolute path without . or .. components, outside the job's own
 * mounts (/tmp, /var/tmp, /dev, /proc, /sys, /sandbox). */
int rc_root_host_path_ok (const char *p);
/* Host path p in the root like the host's: a symlink copied, a directory
 * or empty file as its mount point, bound when bind is set; a missing
 * path is skipped. */
int rc_root_add_host_path (const struct rc_root_builder *b, const char *p, bool bind);
/* Mount points, /usr and its links, /etc, passwd and group naming n_uids
 * slot uids from first_uid. */
int rc_root_populate (const struct rc_root_builder *b, uid_t first_uid, unsigned n_uids,
                      const char **step);
/* Device nodes, fd links and the shm link in /dev. */
int rc_root_fill_dev (int devfd, const char **step);
/* Worker side: the mount points spec needs, added to the template (0 and
 * nothing done when there is no template). */
int rc_root_template_prepare (struct rc_sandbox *sb, const struct rc_job_spec *spec, rc_err_t *err);
/* A clone of the template for one job's init, or -1 (build it there). */
int rc_root_template_clone (struct rc_sandbox *sb);
void rc_root_template_close (struct rc_sandbox *sb);
/* 0 when this kernel builds and clones detached trees (hostcheck.c). */
int rc_root_template_probe (void);
/* Puts the loopback interface up (the fresh netns has only lo, down). */
int rc_net_lo_up (void);

/* job_arena.c: a job spec in memory shared with a pre-started init. */
struct rc_job_arena;
struct rc_job_arena *rc_job_arena_new (size_t size);
void rc_job_arena_free (struct rc_job_arena *a);
/* Deep-copies spec and plan; -1 with ENOSPC when they do not fit. */
int rc_job_arena_fill (struct rc_job_arena *a, const struct rc_job_spec *spec,
                       const struct rc_mount_plan *plan);
const struct rc_mount_plan *rc_job_arena_plan (const struct rc_job_arena *a);
/* After the job: returns the pages of big inputs, empties the arena. */
void rc_job_arena_trim (struct rc_job_arena *a);

/* workspace.c */
/* Writes spec files below dirfd, never following a symlink, creating
 * parents with dir_mode, files owned by uid/gid (uid == -1: unchanged). */
int rc_workspace_write_files (int dirfd, const struct rc_file *files, size_t n, mode_t dir_mode,
                              uid_t uid, gid_t gid, const char **step);
/* Returns (cached) the skeleton of template_dir below state_dir/skel. */
int rc_workspace_skeleton (struct rc_sandbox *sb, const char *template_dir, const char **skel,
                           rc_err_t *err);
/* Copies src_dir (skipping .git) into dst_dirfd, no symlink followed. */
int rc_workspace_copy_tree (const char *src_dir, int dst_dirfd, rc_err_t *err);
/* rm -rf below parentfd/name without following symlinks. */
int rc_workspace_remove_tree (int parentfd, const char *name, rc_err_t *err);

/* supervise.c: one step, seen from the worker. */
struct rc_watch
{
  const struct rc_limits *limits;
  const char *stdin_data;
  size_t stdin_len;
  int stdin_fd; /* worker's write end, or -1 (closed by rc_watch_run) */
  int out_fd;   /* worker's read ends (closed by rc_watch_run) */
  int err_fd;
  int exit_fd; /* readable when read_exit has news; -1: poll every 10 ms */
  /* 1: the step's main process ended (*wstatus set), 0: not yet, < 0:
   * sandbox failure (err set). */
  int (*read_exit) (void *ctx, int *wstatus, rc_err_t *err);
  int (*cpu_us) (void *ctx, uint64_t *usage_us);
  void (*kill) (void *ctx);
  /* OOM kills the step's cgroup counted (NULL: no memory cgroup); read
   * once the step ended, for the verdict. */
  int (*oom_kills) (void *ctx, uint64_t *n, rc_err_t *err);
  /* The step's memory cgroup now, for the thrash watch (NULL: none). */
  int (*memory_sample) (void *ctx, struct rc_memory_sample *s);
  void *ctx;
  struct rc_step_result *res;
  /* combined output budget shared by the steps of a job */
  uint64_t *output_used;
  bool killed;           /* out: a limit killed the sandbox (later steps cannot run) */
  enum rc_outcome fired; /* the first limit that fired, or NONE */
};
int rc_watch_run (struct rc_watch *w, rc_err_t *err);
/* Fills exited/exit_code/term_signal from a wait status. */
void rc_step_set_status (struct rc_step_result *r, int wstatus);
/* The verdict, in one place: the first limit that fired, else an OOM kill,
 * else SIGXCPU (the RLIMIT_CPU backstop), else the wait status. */
enum rc_outcome rc_step_decide (const struct rc_step_result *r, enum rc_outcome fired,
                                uint64_t oom_kills);

/* thrash.c: a step stuck at its memory limit re-reading its own pages
 * (the theory is in thrash.c).  Fed one sample every RC_THRASH_POLL_MS;
 * true once it has thrashed for RC_THRASH_SPAN_MS. */
#define RC_THRASH_POLL_MS 500
#define RC_THRASH_SPAN_MS 2000
struct rc_thrash
{
  bool primed;
  uint64_t at_us;        /* the last sample */
  uint64_t refaults;     /* its refault counter */
  uint64_t hot_since_us; /* start of the run of hot intervals, 0: none */
  uint64_t rate;         /* refaulted bytes per second, last hot interval */
};
void rc_thrash_reset (struct rc_thrash *t);
bool rc_thrash_feed (struct rc_thrash *t, uint64_t now_us, const struct rc_memory_sample *s);

/* Child-side helpers (async-signal-safe, used between fork and exec). */
int rc_child_set_rlimits (const struct rc_limits *limits);
/* Before the uid change (needs CAP_SETPCAP): checks the bounding set is
 * empty (rc_sandbox_drop_bounding), empties the ambient set and locks the
 * securebits (NOROOT, NO_SETUID_FIXUP, no keep-caps, no ambient raise). */
int rc_child_lock_caps (unsigned last_cap);
/* After the uid change: empties the effective, permitted and inheritable
 * sets and checks they are empty. */
int rc_child_clear_caps (void);
/* Moves fds to 0, 1, 2 even if they collide; in < 0 means /dev/null. */
int rc_child_setup_stdio (int in, int out, int errfd);
/* Writes "sandbox: <step> errno=N" to fd and _exit(127)s. */
void rc_child_fail (int fd, const char *step, int errnum) __attribute__ ((noreturn));
/* After a failed exec: "runcell: cannot execute <argv0>: errno=N" on
 * stderr, exit 127 (not found) or 126. */
void rc_child_exec_failed (const char *argv0, int errnum) __attribute__ ((noreturn));
/* execvp on the job's own PATH (from envp, not environ), a shell for a
 * script without #!, and rc_child_exec_failed when nothing runs.  errno
 * is not written on the way (rc_raw_syscall4). */
void rc_child_exec (const char *const *argv, const char *const *envp) __attribute__ ((noreturn));

#endif
