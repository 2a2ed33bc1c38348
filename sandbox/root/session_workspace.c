/* session_workspace.c - session tmpfs, its mount namespace, ownership of a
 * session tree, slot uids (see session_workspace.h). */
#include "config.h"

#include "sandbox/session_workspace.h"
#include "common/dirwalk.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

int
rc_session_ws_host_namespace (rc_err_t *err)
{
  if (unshare (CLONE_NEWNS) < 0)
    return rc_error_sys (err, "sessions: unshare(CLONE_NEWNS)");
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    return rc_error_sys (err, "sessions: make / private");
  return 0;
}

int
rc_session_ws_mount_quota (const char *dir, uint64_t max_bytes, uint64_t max_entries, rc_err_t *err)
{
  char opts[256];
  /* nr_inodes counts the root directory too. */
  snprintf (opts, sizeof opts, "size=%llu,nr_inodes=%llu,mode=0700,uid=0,gid=0",
            (unsigned long long)max_bytes, (unsigned long long)max_entries + 1);
  if (mount ("runcell-session", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
    return rc_error_sys (err, "mount tmpfs %s (%s)", dir, opts);
  return 0;
}

int
rc_session_ws_unmount (const char *dir, rc_err_t *err)
{
  /* EINVAL: not a mount point (RUN_SESSION_QUOTA=none, or already gone). */
  if (umount2 (dir, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT && errno != EPERM)
    return rc_error_sys (err, "umount %s", dir);
  return 0;
}

struct chown_ctx
{
  uid_t uid;
  gid_t gid;
  int failed_errno; /* the first fchownat failure, 0 if none */
};

static int
chown_visit (const struct rc_dirwalk_entry *e, void *ud)
{
  struct chown_ctx *c = ud;
  if ((e->st->st_uid != c->uid || e->st->st_gid != c->gid)
      && fchownat (e->dirfd, e->name, c->uid, c->gid, AT_SYMLINK_NOFOLLOW) < 0
      && c->failed_errno == 0)
    c->failed_errno = errno;
  /* Its children are handed over even when the directory itself keeps
   * its owner. */
  return RC_DIRWALK_DESCEND;
}

int
rc_session_ws_chown_tree (int rootfd, uid_t uid, gid_t gid, unsigned max_depth)
{
  struct chown_ctx c = { uid, gid, 0 };
  struct stat sb;
  int dfd = openat (rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

  if (dfd < 0)
    return -1;
  if (fstat (dfd, &sb) == 0 && (sb.st_uid != uid || sb.st_gid != gid) && fchown (dfd, uid, gid) < 0)
    {
      close (dfd);
      return -1;
    }
  /* Deeper entries keep their owner (documented). */
  ret = rc_dirwalk (dfd, max_depth, RC_DIRWALK_KEEP_GOING, chown_visit, &c);
  close (dfd);
  if (ret == 0 && c.failed_errno != 0)
    {
      errno = c.failed_errno;
      ret = -1;
    }
  return ret;
}


void
rc_host_restrict_unix_socket (const char *path)
{
  /* A sandboxed job that could reach the path (it is read-only, but
   * connect() needs no write access to the file system) is refused by
   * the file mode. */
  struct group *g = getgrnam ("www-data");
  if (g != NULL && chown (path, 0, g->gr_gid) == 0)
    chmod (path, 0660);
  else
    chmod (path, 0600);
}
