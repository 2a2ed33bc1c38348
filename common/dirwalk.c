/* dirwalk.c - bounded, no-follow, fd-relative tree walk (see dirwalk.h). */
#include <config.h>

#include "common/dirwalk.h"
#include "common/job.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

struct walk
{
  rc_dirwalk_visit_fn visit;
  void *ud;
  unsigned max_depth, flags;
  struct rc_buf path;
  int first_errno; /* RC_DIRWALK_KEEP_GOING: the first failure, 0 if none */
};

/* A failure: stops the walk (-1), or with KEEP_GOING is noted (0). */
static int
walk_failed (struct walk *w)
{
  if (!(w->flags & RC_DIRWALK_KEEP_GOING))
    return -1;
  if (w->first_errno == 0)
    w->first_errno = errno ? errno : EIO;
  return 0;
}

static int
walk_dir (struct walk *w, int dirfd, unsigned depth)
{
  size_t base = w->path.len;
  struct dirent *de;
  int dup_fd, ret = 0, saved;
  DIR *d;

  if (depth > w->max_depth)
    return 0;
  /* A stream of its own: the caller keeps dirfd for the *at calls. */
  dup_fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dup_fd < 0)
    return walk_failed (w);
  d = fdopendir (dup_fd);
  if (d == NULL)
    {
      close (dup_fd);
      return walk_failed (w);
    }
  while (ret == 0 && (de = readdir (d)) != NULL)
    {
      struct stat st;
      struct rc_dirwalk_entry e;
      int r, sub;

      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (fstatat (dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        continue; /* gone since readdir */
      w->path.len = base;
      if ((base && rc_buf_append (&w->path, "/", 1) < 0)
          || rc_buf_append (&w->path, de->d_name, strlen (de->d_name)) < 0)
        {
          errno = ENOMEM;
          ret = -1;
          break;
        }
      e = (struct rc_dirwalk_entry){ dirfd, de->d_name, &st, depth, w->path.data, w->path.len };
      r = w->visit (&e, w->ud);
      if (r < 0)
        {
          ret = walk_failed (w);
          continue;
        }
      if (r == RC_DIRWALK_SKIP || !S_ISDIR (st.st_mode))
        continue;
      sub = openat (dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0)
        {
          if (!(w->flags & RC_DIRWALK_SKIP_UNOPENABLE))
            ret = walk_failed (w);
          continue;
        }
      ret = walk_dir (w, sub, depth + 1);
      close (sub);
    }
  saved = errno;
  w->path.len = base;
  closedir (d);
  errno = saved;
  return ret;
}

int
rc_dirwalk (int rootfd, unsigned max_depth, unsigned flags, rc_dirwalk_visit_fn visit, void *ud)
{
  struct walk w = { visit, ud, max_depth, flags, { 0 }, 0 };
  int ret;

  if (rc_buf_append (&w.path, "", 0) < 0)
    {
      errno = ENOMEM;
      return -1;
    }
  ret = walk_dir (&w, rootfd, 0);
  rc_buf_free (&w.path);
  if (ret == 0 && w.first_errno != 0)
    {
      errno = w.first_errno;
      ret = -1;
    }
  return ret;
}
