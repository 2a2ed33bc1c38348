/* session_workspace.c - session tmpfs, its mount namespace, ownership of a
 * session tree, slot uids (see session_workspace.h). */
#include "config.h"

#include "sandbox/session_workspace.h"

#include <dirent.h>
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

static int
chown_walk (int dirfd, uid_t uid, gid_t gid, unsigned depth, unsigned max_depth)
{
  int dup_fd;
  DIR *d;
  struct dirent *de;
  int ret = 0;

  if (depth > max_depth)
    return 0; /* deeper entries keep their owner (documented) */
  dup_fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dup_fd < 0)
    return -1;
  d = fdopendir (dup_fd);
  if (d == NULL)
    {
      close (dup_fd);
      return -1;
    }
  while ((de = readdir (d)) != NULL)
    {
      struct stat sb;
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (fstatat (dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
        continue;
      if ((sb.st_uid != uid || sb.st_gid != gid)
          && fchownat (dirfd, de->d_name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
        ret = -1;
      if (S_ISDIR (sb.st_mode))
        {
          int sub = openat (dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (sub < 0)
            {
              ret = -1;
              continue;
            }
          if (chown_walk (sub, uid, gid, depth + 1, max_depth) < 0)
            ret = -1;
          close (sub);
        }
    }
  closedir (d);
  return ret;
}

int
rc_session_ws_chown_tree (int rootfd, uid_t uid, gid_t gid, unsigned max_depth)
{
  struct stat sb;
  int dfd = openat (rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

  if (dfd < 0)
    return -1;
  if (fstat (dfd, &sb) == 0 && (sb.st_uid != uid || sb.st_gid != gid) && fchown (dfd, uid, gid) < 0)
    {
      close (dfd);
      return -1;
    }
  ret = chown_walk (dfd, uid, gid, 0, max_depth);
  close (dfd);
  return ret;
}

uid_t
rc_slot_uid (const struct rc_config *cfg, int slot)
{
  return (uid_t)(cfg->uid_base + (unsigned)slot);
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
