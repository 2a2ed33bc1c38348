/* session_list.c - the JSON listing of a session directory
 * (GET /sessions/{id}/files/{dir}): names sorted, one level, types from
 * lstat (a symlink is listed, never followed).
 */
#include "config.h"

#include "common/dirwalk.h"
#include "common/json_out.h"
#include "fcgi/sessions/sessions.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
rc_session_list_json (int dirfd, const char *path, struct rc_buf *out)
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
