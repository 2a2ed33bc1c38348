/* dirwalk_test.c - the one tree walker: every entry once, paths relative
 * to the root, symlinks never followed, depth bounded, skip and failure
 * semantics. */
#include <config.h>

#include "common/dirwalk.h"
#include "t/unit/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct seen
{
  char paths[64][256];
  unsigned depth[64];
  int n;
  const char *skip; /* a directory not to descend into */
  const char *fail; /* an entry whose visit fails */
};

static int
record (const struct rc_dirwalk_entry *e, void *ud)
{
  struct seen *s = ud;
  if (s->n < 64)
    {
      snprintf (s->paths[s->n], sizeof s->paths[0], "%s", e->path);
      s->depth[s->n++] = e->depth;
    }
  if (s->fail && strcmp (e->path, s->fail) == 0)
    {
      errno = EPERM;
      return -1;
    }
  return s->skip && strcmp (e->path, s->skip) == 0 ? RC_DIRWALK_SKIP : RC_DIRWALK_DESCEND;
}

static int
has (const struct seen *s, const char *path)
{
  for (int i = 0; i < s->n; i++)
    if (strcmp (s->paths[i], path) == 0)
      return i;
  return -1;
}

int
main (void)
{
  char root[] = "/tmp/rc-dirwalk-XXXXXX";
  struct seen s;
  int fd, i;

  if (mkdtemp (root) == NULL)
    return tap_ok (0, "mkdtemp"), tap_done ();
  fd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  mkdirat (fd, "a", 0700);
  mkdirat (fd, "a/b", 0700);
  mkdirat (fd, "a/b/c", 0700);
  close (openat (fd, "a/b/c/deep", O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
  close (openat (fd, "top", O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
  /* A link to the host's root: a walker that follows it would visit /. */
  symlinkat ("/", fd, "a/escape");

  memset (&s, 0, sizeof s);
  tap_ok (rc_dirwalk (fd, 16, 0, record, &s) == 0, "walk succeeds");
  tap_ok (s.n == 6, "six entries visited (%d)", s.n);
  i = has (&s, "a/b/c/deep");
  tap_ok (i >= 0 && s.depth[i] == 3, "path relative to the root, depth 3");
  tap_ok (has (&s, "a/escape") >= 0 && has (&s, "a/escape/etc") < 0,
          "a symlink is visited, never followed");

  memset (&s, 0, sizeof s);
  tap_ok (rc_dirwalk (fd, 1, 0, record, &s) == 0 && has (&s, "a/b") >= 0 && has (&s, "a/b/c") < 0,
          "max_depth 1: entries of depth 2 are not visited");

  memset (&s, 0, sizeof s);
  s.skip = "a/b";
  tap_ok (rc_dirwalk (fd, 16, 0, record, &s) == 0 && has (&s, "a/b") >= 0 && has (&s, "a/b/c") < 0,
          "RC_DIRWALK_SKIP keeps the walk out of a directory");

  memset (&s, 0, sizeof s);
  s.fail = "a";
  errno = 0;
  tap_ok (rc_dirwalk (fd, 16, 0, record, &s) < 0 && errno == EPERM && has (&s, "a/b") < 0,
          "a failed visit stops the walk with its errno");

  memset (&s, 0, sizeof s);
  s.fail = "a/b";
  errno = 0;
  tap_ok (rc_dirwalk (fd, 16, RC_DIRWALK_KEEP_GOING, record, &s) < 0 && errno == EPERM
              && has (&s, "top") >= 0 && has (&s, "a/escape") >= 0,
          "RC_DIRWALK_KEEP_GOING visits the rest and still fails");

  unlinkat (fd, "a/b/c/deep", 0);
  unlinkat (fd, "a/b/c", AT_REMOVEDIR);
  unlinkat (fd, "a/b", AT_REMOVEDIR);
  unlinkat (fd, "a/escape", 0);
  unlinkat (fd, "a", AT_REMOVEDIR);
  unlinkat (fd, "top", 0);
  close (fd);
  rmdir (root);
  return tap_done ();
}
