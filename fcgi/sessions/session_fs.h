/* session_fs.h - host-side file operations inside a session directory.
 *
 * The API runs as root and the session holds whatever jobs made, so every
 * operation here is relative to the session's directory fd and never
 * follows a symlink: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV), or an O_NOFOLLOW walk where the
 * kernel lacks openat2.  FIFOs, sockets and devices are type "other" and
 * are never opened (a file is opened O_PATH first, checked with fstat, and
 * only a regular file is re-opened for reading).  Paths come from
 * rc_session_path_normalize.  Functions return < 0 with errno set.
 */
#ifndef RUNCELL_FCGI_SESSION_FS_H
#define RUNCELL_FCGI_SESSION_FS_H

#include "common/job.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Depth bound of every recursive walk (listing is one level). */
#define RC_SFS_WALK_DEPTH 128

/* Opens path beneath rootfd without following symlinks; path "" is rootfd
 * itself.  flags are open(2) flags (O_CLOEXEC and O_NOFOLLOW are added). */
int rc_sfs_open (int rootfd, const char *path, int flags);

/* Opens a regular file for reading: -1 with errno ELOOP for a symlink,
 * EINVAL for anything that is not a regular file or directory, EISDIR for
 * a directory (st is filled in every case it could stat). */
int rc_sfs_open_regular (int rootfd, const char *path, struct stat *st);

/* Reads a whole regular file (at most max bytes, EFBIG beyond). */
int rc_sfs_read_fd (int fd, uint64_t max, struct rc_buf *out);

/* One pending write: data goes to an unnamed file in the target's
 * directory (O_TMPFILE), so a refused or interrupted write never leaves a
 * partial file; publish links it over the target in one rename. */
struct rc_sfs_stage
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
int rc_sfs_stage (int rootfd, const char *path, const void *data, size_t len,
                  struct rc_sfs_stage *st);
/* Makes the staged file visible at its path (replacing a file). */
int rc_sfs_publish (struct rc_sfs_stage *st);
/* Drops a stage: the unnamed file and (when rootfd >= 0) the directories
 * it created, if they are still empty. */
void rc_sfs_stage_abort (struct rc_sfs_stage *st, int rootfd);
void rc_sfs_stage_free (struct rc_sfs_stage *st);

/* Removes a file, a symlink, an "other" entry, or a directory tree. */
int rc_sfs_remove (int rootfd, const char *path);
/* Removes everything below dirfd (the directory itself stays), whatever
 * the modes (chmod 000 directories are opened again after fchmod). */
int rc_sfs_empty_dir (int dirfd);

/* Writes the JSON listing {"path": ..., "entries": [...]} of a directory. */
int rc_sfs_list_json (int dirfd, const char *path, struct rc_buf *out);

/* Change detection: (inode, size, mtime, ctime) of every regular file,
 * hidden directories excluded at every depth, hidden files included. */
struct rc_sfs_entry
{
  char *path; /* bytes as on disk, may not be UTF-8 */
  size_t path_len;
  ino_t ino;
  off_t size;
  struct timespec mtime, ctime;
};
struct rc_sfs_snapshot
{
  struct rc_sfs_entry *e;
  size_t n, cap;
};
int rc_sfs_snapshot_take (int rootfd, struct rc_sfs_snapshot *snap);
void rc_sfs_snapshot_free (struct rc_sfs_snapshot *snap);
/* Indices into after->e of changed or new files, and into before->e of
 * deleted ones (arrays malloc'd, sorted by path). */
int rc_sfs_snapshot_diff (struct rc_sfs_snapshot *before, struct rc_sfs_snapshot *after,
                          size_t **changed, size_t *n_changed, size_t **deleted, size_t *n_deleted);

#endif
