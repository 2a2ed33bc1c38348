/* hostfs_snapshot.c - change detection in a directory a job may have
 * changed: (inode, size, mtime, ctime) of every regular file before and
 * after, hidden directories excluded at every depth (sandbox/hostfs.h).
 */
#include "config.h"

#include "common/dirwalk.h"
#include "sandbox/hostfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SNAPSHOT_MAX_FILES 1000000

static int
snap_push (struct rc_hostfs_snapshot *s, const char *path, size_t len, const struct stat *sb)
{
  struct rc_hostfs_entry *e;
  if (s->n >= SNAPSHOT_MAX_FILES)
    return 0;
  if (s->n == s->cap)
    {
      size_t cap = s->cap ? s->cap * 2 : 64;
      struct rc_hostfs_entry *grown = realloc (s->e, cap * sizeof *grown);
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
  const struct rc_hostfs_entry *x = a, *y = b;
  size_t n = x->path_len < y->path_len ? x->path_len : y->path_len;
  int c = memcmp (x->path, y->path, n);
  if (c)
    return c;
  return x->path_len < y->path_len ? -1 : x->path_len > y->path_len;
}

int
rc_hostfs_snapshot_take (int rootfd, struct rc_hostfs_snapshot *snap)
{
  int dfd = openat (rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

  memset (snap, 0, sizeof *snap);
  if (dfd < 0)
    return -1;
  ret = rc_dirwalk (dfd, RC_HOSTFS_WALK_DEPTH, RC_DIRWALK_SKIP_UNOPENABLE, snap_visit, snap);
  close (dfd);
  if (ret == 0 && snap->n)
    qsort (snap->e, snap->n, sizeof *snap->e, entry_cmp);
  return ret;
}

void
rc_hostfs_snapshot_free (struct rc_hostfs_snapshot *snap)
{
  for (size_t i = 0; i < snap->n; i++)
    free (snap->e[i].path);
  free (snap->e);
  memset (snap, 0, sizeof *snap);
}

static bool
same_stamp (const struct rc_hostfs_entry *a, const struct rc_hostfs_entry *b)
{
  return a->ino == b->ino && a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec
         && a->mtime.tv_nsec == b->mtime.tv_nsec && a->ctime.tv_sec == b->ctime.tv_sec
         && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

int
rc_hostfs_snapshot_diff (struct rc_hostfs_snapshot *before, struct rc_hostfs_snapshot *after,
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
