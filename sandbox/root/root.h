/* root.h - the job's root: built once by each slot's init, and the
 * per-job mounts in it (root.c, workspace.c), over the safe host-file
 * layer (hostfs.c).  Never included outside sandbox/.
 *
 * A slot's init builds one root and serves every job of every language
 * from it, so the root holds what any language of the service needs: the
 * union of their host paths, every language directory (read-only at
 * /lang/<slug>, and the lowers of each job's workspace), every cache
 * directory a language overlays.  What a job may change is made fresh for
 * it: /tmp, /sandbox and the cache overlays (workspace.c).
 */
#ifndef RUNCELL_SANDBOX_ROOT_ROOT_H
#define RUNCELL_SANDBOX_ROOT_ROOT_H

#include "common/error.h"
#include "common/job.h"
#include "common/lang.h"
#include "sandbox/hostfs.h"
#include "sandbox/cgroup/cgroup.h"

#include <stdbool.h>
#include <sys/types.h>

/* The room's error convention: functions name the step that failed in
 * *step (the init reports "sandbox: <step> errno=N") and return -1. */
#define RC_ROOT_FAIL(s)                                                                            \
  do                                                                                               \
    {                                                                                              \
      *step = (s);                                                                                 \
      return -1;                                                                                   \
    }                                                                                              \
  while (0)

/* The host directory a slot's root is built on, then pivoted into: empty,
 * only ever a mount point (sandbox.c makes it at host setup). */
#define RC_ROOT_NR "/sandbox"
/* Where the language directories appear in every job's root. */
#define RC_ROOT_LANG_DIR RC_JOB_LANG_DIR
#define RC_ROOT_SHM_DIR "/tmp/.shm"
#define RC_TMP_OPTS_MAX 96

/* One language (or `runcell exec --template` directory) the root serves. */
struct rc_root_lang
{
  const char *slug;                 /* /lang/<slug>; NULL: a template not shown there */
  const char *dir;                  /* the template on the host, NULL: empty workspace */
  const char *const *overlay_paths; /* cache directories, copy-on-write per job */
  size_t n_overlay_paths;
};

/* What a slot's root holds, decided by its keeper (sandbox.c). */
struct rc_root_plan
{
  enum rc_cgroup_mode cgmode;
  uid_t first_uid; /* passwd names first_uid .. first_uid + n_uids - 1 */
  unsigned n_uids;
  const char *const *host_paths; /* bound read-only (missing ones skipped) */
  size_t n_host_paths;
  const struct rc_root_lang *langs;
  size_t n_langs;
};

/* What the init keeps of the root it built: fds that reach the hidden
 * lowers after the pivot (mounts of its namespace, covered by /sys). */
struct rc_root
{
  const struct rc_root_plan *plan;
  int mask_file;   /* O_PATH: the empty read-only file masks are bound from */
  int ns_last_pid; /* /proc/sys/kernel/ns_last_pid, writable (opened before
                    * /proc/sys became read-only) */
  int *skel;       /* per language: its skeleton (directories, mode 0777) */
  int *tpl;        /* per language: its template, or -1 */
  int *cache;      /* per language and overlay path: the host's cache, or -1 */
  size_t n_cache;
  char tmp_opts[RC_TMP_OPTS_MAX]; /* what /tmp is mounted with now */
  bool session;                   /* /sandbox is a session's directory */
  bool pts_mounted;               /* the job's devpts is at /dev/pts */
  enum rc_tmp_kind tmp_layer;     /* what covers the fresh /tmp for the job */
  bool tmp_lower;                 /* the build directory is attached under it */
  unsigned n_caches_mounted;
  int cache_mounted[32]; /* indices into cache[] mounted for the job */
};

/* In the init, in its fresh mount namespace: builds the root on RC_ROOT_NR,
 * mounts the first /tmp, and enters it (pivot_root, the host tree
 * detached).  cg gets its hidden view setup.  -1 with errno and *step. */
int rc_root_build (const struct rc_root_plan *plan, struct rc_cgroup_slot *cg, struct rc_root *root,
                   const char **step);
/* A fingerprint of every host path a root made from plan binds (device,
 * inode, modification time of each): a bind pins the inode it was made
 * from, so when the host replaces one of them (a package upgrade writes a
 * new /etc/ld.so.cache and renames it into place) roots built before no
 * longer show the host's file, and the keeper replaces them. */
uint64_t rc_root_plan_stamp (const struct rc_root_plan *plan);

/* The index in the plan of the entry whose template is template_dir (NULL:
 * the entry without one, an empty workspace), and of the language named
 * slug (its cache overlays); -1 when the plan has none. */
int rc_root_lower_of (const struct rc_root *root, const char *template_dir);
int rc_root_lang_of (const struct rc_root *root, const char *slug);

/* One job's mounts: /tmp's size, /sandbox (the overlay of language lang
 * with the request's files, or the session's tree), the cache overlays,
 * and over /tmp the build directory or an overlay on it (spec->tmp). */
struct rc_root_job
{
  const struct rc_job_spec *spec;
  int lower;      /* rc_root_lower_of (a template workspace) */
  int lang;       /* rc_root_lang_of (its caches), or -1 */
  int session_fd; /* a session: its directory as a detached mount tree */
  int tmp_fd;     /* RC_TMP_BIND, RC_TMP_OVERLAY: the build directory, the same way */
  uid_t uid;
  gid_t gid;
};
int rc_root_job_mount (struct rc_root *root, const struct rc_root_job *job, const char **step);
/* A tty step's terminal: the job's devpts at /dev/pts (mounted at its
 * first tty step), a pty in it of 24 rows and 80 columns; *master
 * (non-blocking) for its supervisor, *slave, owned by uid, for its stdio. */
int rc_root_job_tty (struct rc_root *root, uid_t uid, gid_t gid, int *master, int *slave,
                     const char **step);
/* Once the job's processes are gone: its mounts go, a fresh /tmp is
 * mounted for the next one. */
int rc_root_job_clear (struct rc_root *root, const char **step);
/* /tmp's mount options for spec (NULL: the defaults). */
void rc_root_tmp_options (const struct rc_job_spec *spec, char opts[RC_TMP_OPTS_MAX]);
/* Mounts a fresh /tmp below prefix ("" once entered) with root->tmp_opts:
 * the tmpfs, its root-only .runner (overlay upper and work dirs) and .shm
 * (/dev/shm links there). */
int rc_root_tmp_mount (struct rc_root *root, const char *prefix, const char **step);


#endif
