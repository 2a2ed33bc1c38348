/* dirwalk.h - the one directory-tree walker.
 *
 * Every walk of a tree a job could have written (a session's files, a
 * workspace) must resolve each entry relative to its directory's fd and
 * never follow a symlink, or a job's planted link would make root act on
 * a host path; and it must be bounded in depth, or a deep tree would use
 * up the walker's fds and stack.  This walker does both, so that callers
 * only say what to do with an entry.
 */
#ifndef RUNCELL_COMMON_DIRWALK_H
#define RUNCELL_COMMON_DIRWALK_H

#include <stddef.h>
#include <sys/stat.h>

struct rc_dirwalk_entry
{
  int dirfd;             /* the directory that holds the entry */
  const char *name;      /* its name in dirfd */
  const struct stat *st; /* fstatat (AT_SYMLINK_NOFOLLOW) */
  unsigned depth;        /* 0 for the root's own entries */
  const char *path;      /* relative to the root: "a/b/c" */
  size_t path_len;
};

/* A visit returns < 0 (a failure, errno set), RC_DIRWALK_DESCEND (go into
 * the entry if it is a directory) or RC_DIRWALK_SKIP (do not). */
enum
{
  RC_DIRWALK_DESCEND = 0,
  RC_DIRWALK_SKIP = 1,
};
typedef int (*rc_dirwalk_visit_fn) (const struct rc_dirwalk_entry *e, void *ud);

enum rc_dirwalk_flags
{
  /* A failed visit or directory open is remembered and the walk goes on;
   * rc_dirwalk then returns -1 at the end (errno of the first failure). */
  RC_DIRWALK_KEEP_GOING = 1 << 0,
  /* A subdirectory that cannot be opened is passed over silently. */
  RC_DIRWALK_SKIP_UNOPENABLE = 1 << 1,
};

/* Visits every entry below rootfd (rootfd itself excluded, "." and ".."
 * never) down to max_depth; deeper entries are not visited.  Entries that
 * vanish between readdir and fstatat are passed over.  Returns 0, or -1
 * with errno: the first failure (a visit's, an open's, out of memory). */
int rc_dirwalk (int rootfd, unsigned max_depth, unsigned flags, rc_dirwalk_visit_fn visit,
                void *ud);

#endif
