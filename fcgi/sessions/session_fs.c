/* session_fs.c - safe host-side file operations in a session directory
 * (see session_fs.h for the rules).
 *
 * Why each choice:
 *   - openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS is the kernel's
 *     own guarantee that resolution stays below the session fd whatever a
 *     job planted; the fallback walks one component at a time with
 *     O_NOFOLLOW, which gives the same answer on kernels before 5.6.
 *   - Regular files are opened in two steps (O_PATH, fstat, then a re-open
 *     of that very inode through /proc/self/fd) so that a FIFO is never
 *     opened: opening one for reading would block or wake a writer.
 *   - Writes go to an O_TMPFILE in the target's directory: the bytes are
 *     charged to the session's quota while they are written, and nothing
 *     has a name until the whole body is in, so ENOSPC half-way leaves no
 *     partial file and the old content intact.
 */
#include "config.h"

#include "fcgi/sessions/session_fs.h"
#include "common/dirwalk.h"
#include "common/json_out.h"
#include "sandbox/host/syscalls.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define SNAPSHOT_MAX_FILES 1000000

static int
walk_open (int rootfd, const char *path, int flags)
{
  char *copy = strdup (path), *comp, *slash;
  int dfd, fd, saved;

  if (copy == NULL)
    return -1;
  dfd = openat (rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  comp = copy;
  while (dfd >= 0 && (slash = strchr (comp, '/')) != NULL)
    {
      int next;
      *slash = '\0';
      next = openat (dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      saved = errno;
      close (dfd);
      errno = saved;
      dfd = next;
      comp = slash + 1;
    }
  if (dfd < 0)
    {
      saved = errno == ENOTDIR ? ELOOP : errno;
      free (copy);
      errno = saved;
      return -1;
    }
  fd = openat (dfd, comp, flags | O_NOFOLLOW | O_CLOEXEC);
  saved = errno;
  close (dfd);
  free (copy);
  errno = saved;
  return fd;
}

int
rc_sfs_open (int rootfd, const char *path, int flags)
{
  struct rc_open_how how;
  int fd;

  if (*path == '\0')
    return openat (rootfd, ".", flags | O_CLOEXEC);
  memset (&how, 0, sizeof how);
  how.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW);
  how.resolve
      = RC_RESOLVE_BENEATH | RC_RESOLVE_NO_SYMLINKS | RC_RESOLVE_NO_MAGICLINKS | RC_RESOLVE_NO_XDEV;
  fd = rc_openat2 (rootfd, path, &how);
  if (fd >= 0 || (errno != ENOSYS && errno != E2BIG))
    return fd;
  return walk_open (rootfd, path, flags);
}

int
rc_sfs_open_regular (int rootfd, const char *path, struct stat *st)
{
  char proc[64];
  int pfd = rc_sfs_open (rootfd, path, O_PATH), fd, saved;

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
rc_sfs_read_fd (int fd, uint64_t max, struct rc_buf *out)
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
push_created (struct rc_sfs_stage *st, const char *path, size_t len)
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
open_parents (int rootfd, const char *dir, struct rc_sfs_stage *st)
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
rc_sfs_stage (int rootfd, const char *path, const void *data, size_t len, struct rc_sfs_stage *st)
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
  rc_sfs_stage_abort (st, rootfd);
  errno = saved;
  return -1;
}

int
rc_sfs_publish (struct rc_sfs_stage *st)
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
      pfd = rc_sfs_open (rootfd, dir, O_PATH | O_DIRECTORY);
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
rc_sfs_stage_abort (struct rc_sfs_stage *st, int rootfd)
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
rc_sfs_stage_free (struct rc_sfs_stage *st)
{
  rc_sfs_stage_abort (st, -1);
  free (st->created);
  free (st->base);
  memset (st, 0, sizeof *st);
  st->fd = st->parentfd = -1;
}

static int
empty_dir_depth (int dirfd, unsigned depth)
{
  int pass;

  if (depth > RC_SFS_WALK_DEPTH)
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
rc_sfs_empty_dir (int dirfd)
{
  return empty_dir_depth (dirfd, 0);
}

int
rc_sfs_remove (int rootfd, const char *path)
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
      pfd = rc_sfs_open (rootfd, dir, O_PATH | O_DIRECTORY);
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
      ret = dfd < 0 ? -1 : rc_sfs_empty_dir (dfd);
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

static int
cmp_names (const void *a, const void *b)
{
  return strcmp (*(char *const *)a, *(char *const *)b);
}

static const char *
type_of (mode_t m)
{
  if (S_ISREG (m))
    return "file";
  if (S_ISDIR (m))
    return "directory";
  if (S_ISLNK (m))
    return "symlink";
  return "other";
}

struct name_list
{
  char **names;
  size_t n, cap;
};

/* Collects the names of one level (the listing is sorted before use). */
static int
collect_name (const struct rc_dirwalk_entry *e, void *ud)
{
  struct name_list *l = ud;
  if (l->n == l->cap)
    {
      size_t cap = l->cap ? l->cap * 2 : 64;
      char **grown = realloc (l->names, cap * sizeof *l->names);
      if (grown == NULL)
        return -1;
      l->names = grown;
      l->cap = cap;
    }
  if ((l->names[l->n] = strdup (e->name)) == NULL)
    return -1;
  l->n++;
  return RC_DIRWALK_SKIP;
}

int
rc_sfs_list_json (int dirfd, const char *path, struct rc_buf *out)
{
  struct name_list l = { NULL, 0, 0 };
  char **names;
  size_t n;
  bool first = true;

  if (rc_dirwalk (dirfd, 0, 0, collect_name, &l) < 0)
    {
      int saved = errno;
      for (size_t i = 0; i < l.n; i++)
        free (l.names[i]);
      free (l.names);
      errno = saved;
      return -1;
    }
  names = l.names;
  n = l.n;
  if (n)
    qsort (names, n, sizeof *names, cmp_names);
  rc_buf_append_str (out, "{\"path\":");
  rc_json_cstring (out, path);
  rc_buf_append_str (out, ",\"entries\":[");
  for (size_t i = 0; i < n; i++)
    {
      struct stat sb;
      bool f = true;
      if (fstatat (dirfd, names[i], &sb, AT_SYMLINK_NOFOLLOW) < 0)
        continue;
      if (!first)
        rc_buf_append (out, ",", 1);
      first = false;
      rc_buf_append (out, "{", 1);
      rc_json_key (out, &f, "name");
      rc_json_cstring (out, names[i]);
      rc_json_key (out, &f, "type");
      rc_json_cstring (out, type_of (sb.st_mode));
      rc_json_key (out, &f, "size");
      rc_json_u64 (out, (uint64_t)sb.st_size);
      rc_json_key (out, &f, "modified_at");
      rc_buf_printf (out, "%lld.%06ld", (long long)sb.st_mtim.tv_sec,
                     (long)(sb.st_mtim.tv_nsec / 1000));
      rc_buf_append (out, "}", 1);
    }
  rc_buf_append_str (out, "]}");
  for (size_t i = 0; i < n; i++)
    free (names[i]);
  free (names);
  return 0;
}

static int
snap_push (struct rc_sfs_snapshot *s, const char *path, size_t len, const struct stat *sb)
{
  struct rc_sfs_entry *e;
  if (s->n >= SNAPSHOT_MAX_FILES)
    return 0;
  if (s->n == s->cap)
    {
      size_t cap = s->cap ? s->cap * 2 : 64;
      struct rc_sfs_entry *grown = realloc (s->e, cap * sizeof *grown);
      if (grown == NULL)
        return -1;
      s->e = grown;
      s->cap = cap;
    }
  e = &s->e[s->n];
  e->path = malloc (len + 1);
  if (e->path == NULL)
    return -1;
  memcpy (e->path, path, len);
  e->path[len] = '\0';
  e->path_len = len;
  e->ino = sb->st_ino;
  e->size = sb->st_size;
  e->mtime = sb->st_mtim;
  e->ctime = sb->st_ctim;
  s->n++;
  return 0;
}

/* Regular files, hidden directories excluded at every depth. */
static int
snap_visit (const struct rc_dirwalk_entry *e, void *ud)
{
  if (S_ISREG (e->st->st_mode))
    return snap_push (ud, e->path, e->path_len, e->st) < 0 ? -1 : RC_DIRWALK_SKIP;
  return e->name[0] == '.' ? RC_DIRWALK_SKIP : RC_DIRWALK_DESCEND;
}

static int
entry_cmp (const void *a, const void *b)
{
  const struct rc_sfs_entry *x = a, *y = b;
  size_t n = x->path_len < y->path_len ? x->path_len : y->path_len;
  int c = memcmp (x->path, y->path, n);
  if (c)
    return c;
  return x->path_len < y->path_len ? -1 : x->path_len > y->path_len;
}

int
rc_sfs_snapshot_take (int rootfd, struct rc_sfs_snapshot *snap)
{
  int dfd = openat (rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

  memset (snap, 0, sizeof *snap);
  if (dfd < 0)
    return -1;
  ret = rc_dirwalk (dfd, RC_SFS_WALK_DEPTH, RC_DIRWALK_SKIP_UNOPENABLE, snap_visit, snap);
  close (dfd);
  if (ret == 0 && snap->n)
    qsort (snap->e, snap->n, sizeof *snap->e, entry_cmp);
  return ret;
}

void
rc_sfs_snapshot_free (struct rc_sfs_snapshot *snap)
{
  for (size_t i = 0; i < snap->n; i++)
    free (snap->e[i].path);
  free (snap->e);
  memset (snap, 0, sizeof *snap);
}

static bool
same_stamp (const struct rc_sfs_entry *a, const struct rc_sfs_entry *b)
{
  return a->ino == b->ino && a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec
         && a->mtime.tv_nsec == b->mtime.tv_nsec && a->ctime.tv_sec == b->ctime.tv_sec
         && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

int
rc_sfs_snapshot_diff (struct rc_sfs_snapshot *before, struct rc_sfs_snapshot *after,
                      size_t **changed, size_t *n_changed, size_t **deleted, size_t *n_deleted)
{
  size_t i = 0, j = 0;
  *changed = malloc ((after->n + 1) * sizeof **changed);
  *deleted = malloc ((before->n + 1) * sizeof **deleted);
  *n_changed = *n_deleted = 0;
  if (*changed == NULL || *deleted == NULL)
    {
      free (*changed);
      free (*deleted);
      *changed = *deleted = NULL;
      errno = ENOMEM;
      return -1;
    }
  while (i < before->n || j < after->n)
    {
      int c;
      if (i == before->n)
        c = 1;
      else if (j == after->n)
        c = -1;
      else
        c = entry_cmp (&before->e[i], &after->e[j]);
      if (c < 0)
        (*deleted)[(*n_deleted)++] = i++;
      else if (c > 0)
        (*changed)[(*n_changed)++] = j++;
      else
        {
          if (!same_stamp (&before->e[i], &after->e[j]))
            (*changed)[(*n_changed)++] = j;
          i++;
          j++;
        }
    }
  return 0;
}
