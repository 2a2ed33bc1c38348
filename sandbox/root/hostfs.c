/* hostfs.c - whole trees in the safe host-file layer (sandbox/hostfs.h):
 * request files written, template skeletons and copies made, trees
 * removed.  Every path is walked one component at a time relative to a
 * directory fd with O_NOFOLLOW, files are opened O_NOFOLLOW | O_NONBLOCK
 * (a FIFO cannot block us) and checked with fstat before use, and
 * ownership is changed on the open fd, never by name.
 *
 * In the isolated mode the input files are written by the slot's init
 * into the upper layer of a tmpfs it has just mounted, so nothing the job
 * made exists yet; in the bind mode (sessions) they are written with the
 * slot uid as fsuid.  Skeletons (a template's directories, empty and
 * writable) are built by each slot's init in its own root (root.c).
 */
#include "config.h"

#include "sandbox/hostfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RC_TREE_MAX_DEPTH 64
#define RC_TREE_MAX_ENTRIES 200000

/* Opens (creating when missing) the directory that will hold the last
 * component of path; *base points at that component. */
static int
open_parent (int rootfd, const char *path, mode_t dir_mode, uid_t uid, gid_t gid, const char **base)
{
  char comp[NAME_MAX + 1];
  const char *p = path, *slash;
  int fd = fcntl (rootfd, F_DUPFD_CLOEXEC, 3);
  if (fd < 0)
    return -1;
  while ((slash = strchr (p, '/')) != NULL)
    {
      size_t len = (size_t)(slash - p);
      int next;
      if (len == 0 || len > NAME_MAX)
        {
          close (fd);
          errno = EINVAL;
          return -1;
        }
      memcpy (comp, p, len);
      comp[len] = '\0';
      if (mkdirat (fd, comp, dir_mode) == 0)
        {
          next = openat (fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (next >= 0
              && (fchmod (next, dir_mode) < 0 || (uid != (uid_t)-1 && fchown (next, uid, gid) < 0)))
            {
              close (next);
              next = -1;
            }
        }
      else if (errno == EEXIST)
        next = openat (fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      else
        next = -1;
      close (fd);
      if (next < 0)
        return -1;
      fd = next;
      p = slash + 1;
    }
  *base = p;
  return fd;
}

int
rc_hostfs_write_files (int dirfd, const struct rc_file *files, size_t n, mode_t dir_mode, uid_t uid,
                       gid_t gid, const char **step)
{
  size_t i;
  for (i = 0; i < n; i++)
    {
      const char *base = NULL;
      struct stat st;
      size_t off = 0;
      int pfd, fd;

      *step = "write input file";
      pfd = open_parent (dirfd, files[i].path, dir_mode, uid, gid, &base);
      if (pfd < 0)
        return -1;
      if (*base == '\0' || strcmp (base, ".") == 0 || strcmp (base, "..") == 0)
        {
          close (pfd);
          errno = EINVAL;
          return -1;
        }
      fd = openat (pfd, base, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                   files[i].mode ? files[i].mode & 07777 : 0644);
      close (pfd);
      if (fd < 0)
        return -1;
      if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
        {
          close (fd);
          errno = errno ? errno : EINVAL;
          return -1;
        }
      while (off < files[i].len)
        {
          ssize_t k = write (fd, files[i].data + off, files[i].len - off);
          if (k < 0)
            {
              if (errno == EINTR)
                continue;
              close (fd);
              return -1;
            }
          off += (size_t)k;
        }
      /* O_CREAT's mode is filtered by the umask; state it exactly. */
      if (fchmod (fd, files[i].mode ? files[i].mode & 0777 : 0644) < 0
          || (uid != (uid_t)-1 && fchown (fd, uid, gid) < 0))
        {
          close (fd);
          return -1;
        }
      close (fd);
    }
  return 0;
}

/* Opens a directory stream on a duplicate of dirfd (the caller keeps
 * dirfd), refusing trees deeper than RC_TREE_MAX_DEPTH. */
static DIR *
walk_opendir (int dirfd, unsigned depth)
{
  DIR *d;
  int dfd;

  if (depth > RC_TREE_MAX_DEPTH)
    {
      errno = ELOOP;
      return NULL;
    }
  dfd = fcntl (dirfd, F_DUPFD_CLOEXEC, 3);
  if (dfd < 0)
    return NULL;
  d = fdopendir (dfd);
  if (d == NULL)
    close (dfd);
  return d;
}

/* Recreates the tree of srcfd below dstfd.  skeleton: its directories
 * only, empty, mode 0777 (what a template job may write into); otherwise
 * a copy: directories with their modes, regular files and symlinks. */
static int mirror_walk (int srcfd, int dstfd, unsigned depth, unsigned *count, bool skeleton);

int
rc_hostfs_skeleton (int srcfd, int dstfd)
{
  unsigned count = 0;
  return mirror_walk (srcfd, dstfd, 0, &count, true);
}

static int
copy_file (int srcdir, int dstdir, const char *name, mode_t mode)
{
  char buf[65536];
  int in, out, ret = 0;
  struct stat st;
  in = openat (srcdir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (in < 0)
    return -1;
  if (fstat (in, &st) < 0 || !S_ISREG (st.st_mode))
    {
      close (in);
      return 0; /* raced into something else: skip */
    }
  out = openat (dstdir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out < 0)
    {
      close (in);
      return -1;
    }
  for (;;)
    {
      ssize_t k = read (in, buf, sizeof buf), off = 0;
      if (k == 0)
        break;
      if (k < 0)
        {
          if (errno == EINTR)
            continue;
          ret = -1;
          break;
        }
      while (off < k)
        {
          ssize_t w = write (out, buf + off, (size_t)(k - off));
          if (w < 0)
            {
              if (errno == EINTR)
                continue;
              ret = -1;
              break;
            }
          off += w;
        }
      if (ret < 0)
        break;
    }
  if (ret == 0 && fchmod (out, mode & 0777) < 0)
    ret = -1;
  close (in);
  close (out);
  return ret;
}

static int
mirror_walk (int srcfd, int dstfd, unsigned depth, unsigned *count, bool skeleton)
{
  DIR *d;
  struct dirent *de;
  int ret = 0;

  d = walk_opendir (srcfd, depth);
  if (d == NULL)
    return -1;
  while (ret == 0 && (errno = 0, de = readdir (d)) != NULL)
    {
      struct stat st;
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0
          || strcmp (de->d_name, ".git") == 0)
        continue;
      if (++*count > RC_TREE_MAX_ENTRIES)
        {
          errno = E2BIG;
          ret = -1;
          break;
        }
      if (fstatat (srcfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        {
          if (skeleton)
            continue; /* gone: not part of the skeleton */
          ret = -1;
          break;
        }
      if (skeleton && !S_ISDIR (st.st_mode))
        continue; /* only directories (a symlink to one is not one) */
      if (S_ISDIR (st.st_mode))
        {
          int s, t;
          s = openat (srcfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (s < 0)
            {
              ret = -1;
              break;
            }
          if (mkdirat (dstfd, de->d_name, 0700) < 0
              || (t = openat (dstfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC))
                     < 0)
            {
              close (s);
              ret = -1;
              break;
            }
          /* The mode last: a read-only template directory is filled first. */
          if (mirror_walk (s, t, depth + 1, count, skeleton) < 0
              || fchmod (t, skeleton ? 0777 : st.st_mode & 0777) < 0)
            ret = -1;
          close (s);
          close (t);
        }
      else if (S_ISREG (st.st_mode))
        ret = copy_file (srcfd, dstfd, de->d_name, st.st_mode);
      else if (S_ISLNK (st.st_mode))
        {
          char target[PATH_MAX];
          ssize_t k = readlinkat (srcfd, de->d_name, target, sizeof target - 1);
          if (k < 0)
            ret = -1;
          else
            {
              target[k] = '\0';
              ret = symlinkat (target, dstfd, de->d_name);
            }
        }
      /* Sockets, FIFOs and devices are not part of a template. */
    }
  if (ret == 0 && errno != 0 && de == NULL)
    ret = -1;
  closedir (d);
  return ret;
}

int
rc_hostfs_copy_tree (const char *src_dir, int dst_dirfd, rc_err_t *err)
{
  cleanup_close int srcfd = open (src_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  unsigned count = 0;
  if (srcfd < 0)
    return rc_error_sys (err, "sandbox: copy template errno=%d: open %s", errno, src_dir);
  if (mirror_walk (srcfd, dst_dirfd, 0, &count, false) < 0)
    return rc_error_sys (err, "sandbox: copy template errno=%d: %s", errno, src_dir);
  return 0;
}

int
rc_hostfs_remove_tree (int parentfd, const char *name, rc_err_t *err)
{
  /* The one remover (hostfs_beneath.c): modes a job left, repeated passes. */
  if (rc_hostfs_remove (parentfd, name) < 0 && errno != ENOENT)
    return rc_error_sys (err, "remove %s", name);
  return 0;
}
