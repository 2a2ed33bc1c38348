/* hostfs.h - the safe host-file layer: every file operation runcell does,
 * as root, on a tree a job could have touched (a workspace, a session's
 * directory), in one place (sandbox/root/hostfs*.c).  The sandbox and the
 * sessions API both use it.
 *
 * Hostile-programs §0 #2: host-side file work on a workspace is how judges
 * are escaped most often (a symlink planted where the host later writes,
 * chowns or deletes).  So every operation is relative to a directory fd
 * and never follows a symlink: openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV), or a walk
 * one component at a time with O_NOFOLLOW.  FIFOs, sockets and devices are
 * never opened (a file is opened O_PATH first, checked with fstat, and
 * only a regular file is re-opened for reading); ownership is changed on
 * an open fd, never by name.  Functions return < 0 with errno set unless
 * they take an rc_err_t.
 */
#ifndef RUNCELL_SANDBOX_HOSTFS_H
#define RUNCELL_SANDBOX_HOSTFS_H

#include "common/error.h"
#include "common/job.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Depth bound of every recursive walk (listing is one level). */
#define RC_HOSTFS_WALK_DEPTH 128

/* ---- whole trees (hostfs.c) ---- */

/* Writes files below dirfd, never following a symlink, creating parents
 * with dir_mode, files owned by uid/gid (uid == -1: unchanged). */
int rc_hostfs_write_files (int dirfd, const struct rc_file *files, size_t n, mode_t dir_mode,
                           uid_t uid, gid_t gid, const char **step);
/* The directories of srcfd's tree recreated below dstfd, empty, mode
 * 0777: what a template job may write into. */
int rc_hostfs_skeleton (int srcfd, int dstfd);
/* Copies src_dir (skipping .git) into dst_dirfd, no symlink followed. */
int rc_hostfs_copy_tree (const char *src_dir, int dst_dirfd, rc_err_t *err);
/* rm -rf below parentfd/name without following symlinks. */
int rc_hostfs_remove_tree (int parentfd, const char *name, rc_err_t *err);

/* ---- paths below a directory (hostfs_beneath.c) ---- */

/* Opens path beneath rootfd without following symlinks; path "" is rootfd
 * itself.  flags are open(2) flags (O_CLOEXEC and O_NOFOLLOW are added). */
int rc_hostfs_open (int rootfd, const char *path, int flags);

/* Opens a regular file for reading: -1 with errno ELOOP for a symlink,
 * EINVAL for anything that is not a regular file or directory, EISDIR for
 * a directory (st is filled in every case it could stat). */
int rc_hostfs_open_regular (int rootfd, const char *path, struct stat *st);

/* Reads a whole regular file (at most max bytes, EFBIG beyond). */
int rc_hostfs_read_fd (int fd, uint64_t max, struct rc_buf *out);

/* One pending write: data goes to an unnamed file in the target's
 * directory (O_TMPFILE), so a refused or interrupted write never leaves a
 * partial file; publish links it over the target in one rename. */
struct rc_hostfs_stage
{
  int parentfd;
  int fd;
  char *base;
  /* Directories created for the parents, deepest last, for rollback. */
  char **created;
  size_t n_created;
};

/* Creates missing parents, then the staged file with data.  Errors:
 * ENOSPC/EDQUOT (quota), ENOTDIR (a parent is not a directory), EISDIR (the
 * target is a directory).  On error nothing is left behind. */
int rc_hostfs_stage (int rootfd, const char *path, const void *data, size_t len,
                     struct rc_hostfs_stage *st);
/* Makes the staged file visible at its path (replacing a file). */
int rc_hostfs_publish (struct rc_hostfs_stage *st);
/* Drops a stage: the unnamed file and (when rootfd >= 0) the directories
 * it created, if they are still empty. */
void rc_hostfs_stage_abort (struct rc_hostfs_stage *st, int rootfd);
void rc_hostfs_stage_free (struct rc_hostfs_stage *st);

/* Removes a file, a symlink, an "other" entry, or a directory tree. */
int rc_hostfs_remove (int rootfd, const char *path);
/* Removes everything below dirfd (the directory itself stays), whatever
 * the modes (chmod 000 directories are opened again after fchmod). */
int rc_hostfs_empty_dir (int dirfd);

/* ---- change detection (hostfs_snapshot.c) ---- */

/* Change detection: (inode, size, mtime, ctime) of every regular file,
 * hidden directories excluded at every depth, hidden files included. */
struct rc_hostfs_entry
{
  char *path; /* bytes as on disk, may not be UTF-8 */
  size_t path_len;
  ino_t ino;
  off_t size;
  struct timespec mtime, ctime;
};
struct rc_hostfs_snapshot
{
  struct rc_hostfs_entry *e;
  size_t n, cap;
};
int rc_hostfs_snapshot_take (int rootfd, struct rc_hostfs_snapshot *snap);
void rc_hostfs_snapshot_free (struct rc_hostfs_snapshot *snap);
/* Indices into after->e of changed or new files, and into before->e of
 * deleted ones (arrays malloc'd, sorted by path). */
int rc_hostfs_snapshot_diff (struct rc_hostfs_snapshot *before, struct rc_hostfs_snapshot *after,
                             size_t **changed, size_t *n_changed, size_t **deleted,
                             size_t *n_deleted);

#endif
