/* build_dir.c - the judge's build directories; see build_dir.h. */
#include "config.h"

#include "sandbox/build_dir.h"
#include "sandbox/session_workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int
judge_root (const struct rc_config *cfg, char *buf, size_t size)
{
  int n = snprintf (buf, size, "%s/judge", cfg->state_dir);
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

int
rc_build_dirs_host_setup (const struct rc_config *cfg, bool private_ns, rc_err_t *err)
{
  char root[512];
  struct stat st;

  if (judge_root (cfg, root, sizeof root) < 0)
    return rc_error_set (err, ENAMETOOLONG, "judge: RUN_STATE_DIR too long");
  if (mkdir (root, 0700) < 0 && errno != EEXIST)
    return rc_error_sys (err, "judge: mkdir %s", root);
  if (lstat (root, &st) < 0 || !S_ISDIR (st.st_mode) || st.st_uid != geteuid ())
    return rc_error_set (err, EPERM, "judge: %s is not a directory of ours", root);
  if (!private_ns && rc_session_ws_host_namespace (err) < 0)
    return -1;
  rc_build_dirs_sweep (cfg, 0);
  return 0;
}

int
rc_build_dir_create (const struct rc_config *cfg, uint64_t max_bytes, struct rc_build_dir *d,
                     rc_err_t *err)
{
  static unsigned counter;
  char root[512], opts[128];
  uint64_t inodes = max_bytes / 16384;
  int n;

  d->fd = -1;
  d->mounted = false;
  d->path[0] = '\0';
  if (judge_root (cfg, root, sizeof root) < 0)
    return rc_error_set (err, ENAMETOOLONG, "judge: RUN_STATE_DIR too long");
  n = snprintf (d->path, sizeof d->path, "%s/%ld.%u", root, (long)getpid (), ++counter);
  if (n < 0 || (size_t)n >= sizeof d->path)
    return rc_error_set (err, ENAMETOOLONG, "judge: RUN_STATE_DIR too long");
  if (mkdir (d->path, 0700) < 0)
    {
      int e = errno;
      d->path[0] = '\0';
      return rc_error_set (err, e, "judge: mkdir build directory errno=%d", e);
    }
  /* As the job's own /tmp: one inode per 16 KiB, within bounds. */
  if (inodes < 4096)
    inodes = 4096;
  if (inodes > 1048576)
    inodes = 1048576;
  snprintf (opts, sizeof opts, "size=%llu,nr_inodes=%llu,mode=1777,uid=0,gid=0",
            (unsigned long long)(max_bytes ? max_bytes : 64ULL << 20), (unsigned long long)inodes);
  if (mount ("runcell-build", d->path, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
    {
      rc_error_sys (err, "judge: mount build directory tmpfs (%s)", opts);
      rc_build_dir_remove (d);
      return -1;
    }
  d->mounted = true;
  d->fd = open (d->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (d->fd < 0)
    {
      rc_error_sys (err, "judge: open build directory");
      rc_build_dir_remove (d);
      return -1;
    }
  return 0;
}

void
rc_build_dir_remove (struct rc_build_dir *d)
{
  if (d->fd >= 0)
    close (d->fd);
  d->fd = -1;
  if (d->mounted)
    (void)umount2 (d->path, MNT_DETACH);
  d->mounted = false;
  if (d->path[0])
    (void)rmdir (d->path);
  d->path[0] = '\0';
}

void
rc_build_dirs_sweep (const struct rc_config *cfg, pid_t owner)
{
  char root[512], prefix[32];
  struct dirent *de;
  DIR *dir;

  if (judge_root (cfg, root, sizeof root) < 0 || (dir = opendir (root)) == NULL)
    return;
  snprintf (prefix, sizeof prefix, "%ld.", (long)owner);
  while ((de = readdir (dir)) != NULL)
    {
      struct rc_build_dir d = { .fd = -1, .mounted = true };
      if (de->d_name[0] == '.' || (owner && strncmp (de->d_name, prefix, strlen (prefix)) != 0))
        continue;
      if (snprintf (d.path, sizeof d.path, "%s/%s", root, de->d_name) >= (int)sizeof d.path)
        continue;
      rc_build_dir_remove (&d);
    }
  closedir (dir);
}
