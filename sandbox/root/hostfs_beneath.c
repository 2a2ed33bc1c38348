/* hostfs_beneath.c - file operations below a directory a job could have
 * touched (a session's directory): see sandbox/hostfs.h for the rules.
 *
 * Why each choice:
 *   - openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS is the kernel's
 *     own guarantee that resolution stays below the directory fd whatever
 *     a job planted (every kernel runcell supports has it: 5.6+).
 *   - Regular files are opened in two steps (O_PATH, fstat, then a re-open
 *     of that very inode through /proc/self/fd) so that a FIFO is never
 *     opened: opening one for reading would block or wake a writer.
 *   - Writes go to an O_TMPFILE in the target's directory: the bytes are
 *     charged to the session's quota while they are written, and nothing
 *     has a name until the whole body is in, so ENOSPC half-way leaves no
 *     partial file and the old content intact.
 *   - Removal repeats a directory pass until one finds nothing, since
 *     deleting while reading a directory may make readdir skip entries.
 */
#include "config.h"

#include "sandbox/hostfs.h"
#include "sandbox/host/syscalls.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

int
rc_hostfs_open (int rootfd, const char *path, int flags)
{
  struct rc_open_how how;

  if (*path == '\0')
    return openat (rootfd, ".", flags | O_CLOEXEC);
  memset (&how, 0, sizeof how);
  how.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW);
  how.resolve
      = RC_RESOLVE_BENEATH | RC_RESOLVE_NO_SYMLINKS | RC_RESOLVE_NO_MAGICLINKS | RC_RESOLVE_NO_XDEV;
  return rc_openat2 (rootfd, path, &how);
}

int
rc_hostfs_open_regular (int rootfd, const char *path, struct stat *st)
{
  char proc[64];
  int pfd = rc_hostfs_open (rootfd, path, O_PATH), fd, saved;

  if (pfd < 0)
    return -1;
  if (fstat (pfd, st) < 0)
    goto fail;
  if (S_ISLNK (st->st_mode))
    {
      errno = ELOOP;
      goto fail;
    }
  if (S_ISDIR (st->st_mode))
    {
      errno = EISDIR;
      goto fail;
    }
  if (!S_ISREG (st->st_mode))
    {
      errno = EINVAL;
      goto fail;
    }
  snprintf (proc, sizeof proc, "/proc/self/fd/%d", pfd);
  fd = open (proc, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  saved = errno;
  close (pfd);
  errno = saved;
  return fd;
fail:
  saved = errno;
  close (pfd);
  errno = saved;
  return -1;
}

int
rc_hostfs_read_fd (int fd, uint64_t max, struct rc_buf *out)
{
  char chunk[65536];
  uint64_t total = 0;
  for (;;)
    {
      ssize_t n = read (fd, chunk, sizeof chunk);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return -1;
        }
      if (n == 0)
        return 0;
      total += (uint64_t)n;
      if (total > max)
        {
          errno = EFBIG;
          return -1;
        }
      if (rc_buf_append (out, chunk, (size_t)n) < 0)
        {
          errno = ENOMEM;
          return -1;
        }
    }
}

static int
write_all (int fd, const char *data, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len > (1u << 20) ? (1u << 20) : len);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return -1;
        }
      data += n;
      len -= (size_t)n;
    }
  return 0;
}

static int
push_created (struct rc_hostfs_stage *st, const char *path, size_t len)
{
  char **grown = realloc (st->created, (st->n_created + 1) * sizeof *grown);
  if (grown == NULL)
    return -1;
  st->created = grown;
  grown[st->n_created] = strndup (path, len);
  if (grown[st->n_created] == NULL)
    return -1;
  st->n_created++;
  return 0;
}

/* Opens (creating as needed) the directory `dir` (normalised, may be "")
 * as an O_PATH fd, one component at a time with O_NOFOLLOW. */
static int
open_parents (int rootfd, const char *dir, struct rc_hostfs_stage *st)
{
  const char *p = dir;
  int dfd = openat (rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

  while (dfd >= 0 && *p)
    {
      const char *slash = strchr (p, '/');
      size_t n = slash ? (size_t)(slash - p) : strlen (p);
      char comp[256];
      int next, saved;

      memcpy (comp, p, n);
      comp[n] = '\0';
      next = openat (dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0 && errno == ENOENT)
        {
          if (mkdirat (dfd, comp, 0755) < 0 && errno != EEXIST)
            goto fail;
          if (push_created (st, dir, (size_t)(p - dir) + n) < 0)
            goto fail;
          next = openat (dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
      if (next < 0)
        {
          if (errno == ELOOP)
            errno = ENOTDIR;
          goto fail;
        }
      close (dfd);
      dfd = next;
      p = slash ? slash + 1 : p + n;
      continue;
    fail:
      saved = errno;
      close (dfd);
      errno = saved;
      return -1;
    }
  return dfd;
}

static void
random_hex (char *out, size_t nbytes)
{
  unsigned char raw[16];
  static const char hex[] = "0123456789abcdef";
  if (nbytes > sizeof raw)
    nbytes = sizeof raw;
  if (getrandom (raw, nbytes, 0) != (ssize_t)nbytes)
    memset (raw, 0x5a, nbytes);
  for (size_t i = 0; i < nbytes; i++)
    {
      out[2 * i] = hex[raw[i] >> 4];
      out[2 * i + 1] = hex[raw[i] & 15];
    }
  out[2 * nbytes] = '\0';
}

int
rc_hostfs_stage (int rootfd, const char *path, const void *data, size_t len,
                 struct rc_hostfs_stage *st)
{
  const char *slash = strrchr (path, '/');
  char *dir = slash ? strndup (path, (size_t)(slash - path)) : strdup ("");
  struct stat sb;
  int saved;

  memset (st, 0, sizeof *st);
  st->parentfd = st->fd = -1;
  if (dir == NULL)
    return -1;
  st->base = strdup (slash ? slash + 1 : path);
  if (st->base == NULL)
    {
      free (dir);
      return -1;
    }
  st->parentfd = open_parents (rootfd, dir, st);
  free (dir);
  if (st->parentfd < 0)
    goto fail;
  if (fstatat (st->parentfd, st->base, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR (sb.st_mode))
    {
      errno = EISDIR;
      goto fail;
    }
  st->fd = openat (st->parentfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (st->fd < 0)
    goto fail;
  if (write_all (st->fd, data, len) < 0 || fchmod (st->fd, 0644) < 0)
    goto fail;
  return 0;
fail:
  saved = errno;
  rc_hostfs_stage_abort (st, rootfd);
  errno = saved;
  return -1;
}

int
rc_hostfs_publish (struct rc_hostfs_stage *st)
{
  char proc[64], tmp[64], hex[33];
  int saved;

  random_hex (hex, 8);
  snprintf (tmp, sizeof tmp, ".runcell-put-%s", hex);
  snprintf (proc, sizeof proc, "/proc/self/fd/%d", st->fd);
  if (linkat (AT_FDCWD, proc, st->parentfd, tmp, AT_SYMLINK_FOLLOW) < 0)
    return -1;
  if (renameat (st->parentfd, tmp, st->parentfd, st->base) < 0)
    {
      saved = errno;
      unlinkat (st->parentfd, tmp, 0);
      errno = saved;
      return -1;
    }
  /* Published: the created parents are now in use. */
  for (size_t i = 0; i < st->n_created; i++)
    free (st->created[i]);
  st->n_created = 0;
  return 0;
}

/* rmdir of an (empty) directory beneath rootfd, without following. */
static void
rmdir_beneath (int rootfd, const char *path)
{
  const char *slash = strrchr (path, '/');
  int pfd;
  if (slash)
    {
      char *dir = strndup (path, (size_t)(slash - path));
      if (dir == NULL)
        return;
      pfd = rc_hostfs_open (rootfd, dir, O_PATH | O_DIRECTORY);
      free (dir);
    }
  else
    pfd = openat (rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (pfd < 0)
    return;
  unlinkat (pfd, slash ? slash + 1 : path, AT_REMOVEDIR);
  close (pfd);
}

void
rc_hostfs_stage_abort (struct rc_hostfs_stage *st, int rootfd)
{
  if (st->fd >= 0)
    close (st->fd);
  st->fd = -1;
  if (st->parentfd >= 0)
    close (st->parentfd);
  st->parentfd = -1;
  /* Deepest first; a directory something else now uses stays. */
  while (st->n_created > 0)
    {
      char *dir = st->created[--st->n_created];
      if (rootfd >= 0)
        rmdir_beneath (rootfd, dir);
      free (dir);
    }
}

void
rc_hostfs_stage_free (struct rc_hostfs_stage *st)
{
  rc_hostfs_stage_abort (st, -1);
  free (st->created);
  free (st->base);
  memset (st, 0, sizeof *st);
  st->fd = st->parentfd = -1;
}

static int
empty_dir_depth (int dirfd, unsigned depth)
{
  int pass;

  if (depth > RC_HOSTFS_WALK_DEPTH)
    {
      errno = ELOOP;
      return -1;
    }
  /* Deleting while reading a directory may make readdir skip entries:
   * repeat until a pass finds nothing (bounded). */
  for (pass = 0; pass < 64; pass++)
    {
      int dup_fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      DIR *d;
      struct dirent *de;
      size_t seen = 0;
      int ret = 0;

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
          seen++;
          if (fstatat (dirfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
          if (S_ISDIR (sb.st_mode))
            {
              int sub = openat (dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
              if (sub < 0 && errno == EACCES)
                {
                  /* chmod 000 left by a job (matters when not root). */
                  fchmodat (dirfd, de->d_name, 0700, 0);
                  sub = openat (dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                }
              if (sub < 0)
                {
                  ret = -1;
                  continue;
                }
              if (empty_dir_depth (sub, depth + 1) < 0)
                ret = -1;
              close (sub);
              if (unlinkat (dirfd, de->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT)
                ret = -1;
            }
          else if (unlinkat (dirfd, de->d_name, 0) < 0 && errno != ENOENT)
            ret = -1;
        }
      closedir (d);
      if (seen == 0)
        return 0;
      if (ret < 0 && pass > 2)
        return -1;
    }
  errno = ENOTEMPTY;
  return -1;
}

int
rc_hostfs_empty_dir (int dirfd)
{
  return empty_dir_depth (dirfd, 0);
}

int
rc_hostfs_remove (int rootfd, const char *path)
{
  const char *slash = strrchr (path, '/');
  const char *base = slash ? slash + 1 : path;
  struct stat sb;
  int pfd, ret, saved;

  if (slash)
    {
      char *dir = strndup (path, (size_t)(slash - path));
      if (dir == NULL)
        return -1;
      pfd = rc_hostfs_open (rootfd, dir, O_PATH | O_DIRECTORY);
      free (dir);
    }
  else
    pfd = openat (rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (pfd < 0)
    return -1;
  if (fstatat (pfd, base, &sb, AT_SYMLINK_NOFOLLOW) < 0)
    {
      saved = errno;
      close (pfd);
      errno = saved;
      return -1;
    }
  if (S_ISDIR (sb.st_mode))
    {
      int dfd = openat (pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (dfd < 0 && errno == EACCES)
        {
          fchmodat (pfd, base, 0700, 0);
          dfd = openat (pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
      ret = dfd < 0 ? -1 : rc_hostfs_empty_dir (dfd);
      saved = errno;
      if (dfd >= 0)
        close (dfd);
      if (ret == 0)
        ret = unlinkat (pfd, base, AT_REMOVEDIR);
      else
        errno = saved;
    }
  else
    ret = unlinkat (pfd, base, 0);
  saved = errno;
  close (pfd);
  errno = saved;
  return ret;
}
