/* instance.c - one host, one owner of a uid range and a cgroup subtree.
 *
 * Two runcells that share slot uids or a cgroup subtree fight: each one's
 * slot hygiene kills processes of its slots' uids and empties its
 * cgroups, the other's jobs included.  So at start each takes a lock in
 * RC_INSTANCE_DIR, a file named after its cgroup subtree and its uid
 * range, flock'd for as long as it runs (its workers inherit the lock;
 * the kernel drops it when the last of them is gone, crash or not).  Who
 * starts looks at every lock file under the directory's own lock: one
 * that is held and names the same subtree or an overlapping range refuses
 * the start, naming the holder's pid; one that nobody holds is left over
 * from a runcell that died, and goes.
 *
 * The file's content is what the check reads (the name is for people):
 *   pid=<master pid>
 *   cgroup=<the subtree's directory>
 *   uids=<first>-<last>
 */
#include "config.h"

#include "sandbox/sandbox_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct holder
{
  long pid;
  char cgroup[4096];
  unsigned long long first, last;
};

static int
mkdir_p (const char *path)
{
  char buf[256];
  snprintf (buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/')
      {
        *p = '\0';
        if (mkdir (buf, 0755) < 0 && errno != EEXIST)
          return -1;
        *p = '/';
      }
  return mkdir (buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static bool
read_holder (int fd, struct holder *h)
{
  char buf[4400], *line, *save = NULL;
  ssize_t n = pread (fd, buf, sizeof buf - 1, 0);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  memset (h, 0, sizeof *h);
  for (line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      if (strncmp (line, "pid=", 4) == 0)
        h->pid = strtol (line + 4, NULL, 10);
      else if (strncmp (line, "cgroup=", 7) == 0)
        snprintf (h->cgroup, sizeof h->cgroup, "%s", line + 7);
      else
        sscanf (line, "uids=%llu-%llu", &h->first, &h->last);
    }
  return h->cgroup[0] != '\0' && h->last >= h->first;
}

/* The file name: the subtree's path with '/' as '%', then the range; a
 * path too long for a name is cut (the content decides). */
static void
lock_name (const char *cgroup, unsigned long long first, unsigned long long last, char *out,
           size_t size)
{
  char esc[160];
  size_t j = 0;
  for (const char *p = cgroup; *p && j + 4 < sizeof esc; p++)
    esc[j++] = *p == '/' ? '%' : *p;
  esc[j] = '\0';
  snprintf (out, size, "%s@uids-%llu-%llu.lock", esc, first, last);
}

/* Under the directory's lock: another holder that conflicts with us, or
 * none (stale files removed on the way). */
static int
find_conflict (int dirfd, const char *cgroup, unsigned long long first, unsigned long long last,
               struct holder *other, rc_err_t *err)
{
  DIR *d = fdopendir (dup (dirfd));
  struct dirent *e;
  int found = 0;
  if (d == NULL)
    return rc_error_sys (err, "instance lock: read %s", RC_INSTANCE_DIR);
  while (found == 0 && (e = readdir (d)) != NULL)
    {
      struct holder h;
      int fd;
      size_t len = strlen (e->d_name);
      if (e->d_name[0] == '.' || len < 5 || strcmp (e->d_name + len - 5, ".lock") != 0)
        continue;
      fd = openat (dirfd, e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0)
        continue;
      if (flock (fd, LOCK_EX | LOCK_NB) == 0)
        {
          /* Nobody holds it: its runcell is gone. */
          unlinkat (dirfd, e->d_name, 0);
          close (fd);
          continue;
        }
      if (read_holder (fd, &h)
          && (strcmp (h.cgroup, cgroup) == 0 || (h.first <= last && first <= h.last)))
        {
          *other = h;
          found = 1;
        }
      close (fd);
    }
  closedir (d);
  return found;
}

int
rc_sandbox_instance_lock (const struct rc_config *cfg, int *out_fd, rc_err_t *err)
{
  cleanup_free char *cgroup = NULL;
  unsigned long long first = cfg->uid_base, last = first + cfg->concurrency - 1;
  char name[256], content[4400];
  struct holder other;
  int dirfd = -1, fd = -1, r, n;

  if (out_fd)
    *out_fd = -1;
  if (rc_cgroup_tree_dir (cfg->cgroup_name, &cgroup, err) < 0)
    return rc_error_wrap (err, "instance lock");
  if (mkdir_p (RC_INSTANCE_DIR) < 0
      || (dirfd = open (RC_INSTANCE_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    return rc_error_sys (err, "instance lock: %s", RC_INSTANCE_DIR);
  /* One look-and-take at a time: two starting together cannot both miss
   * each other. */
  if (flock (dirfd, LOCK_EX) < 0)
    {
      close (dirfd);
      return rc_error_sys (err, "instance lock: flock %s", RC_INSTANCE_DIR);
    }
  r = find_conflict (dirfd, cgroup, first, last, &other, err);
  if (r != 0)
    {
      close (dirfd);
      if (r < 0)
        return -1;
      return rc_error_set (
          err, 0,
          "another runcell (pid %ld) holds %s: its uids %llu-%llu, its cgroup %s; this one "
          "wants uids %llu-%llu and cgroup %s.  Give each instance its own RUN_UID_BASE "
          "(ranges RUN_CONCURRENCY apart) and RUN_CGROUP_NAME (locks: %s)",
          other.pid,
          strcmp (other.cgroup, cgroup) == 0 ? "the same cgroup subtree" : "overlapping slot uids",
          other.first, other.last, other.cgroup, first, last, cgroup, RC_INSTANCE_DIR);
    }
  if (out_fd == NULL)
    {
      close (dirfd);
      return 0; /* `runcell --check-host`: a look, no lock */
    }
  lock_name (cgroup, first, last, name, sizeof name);
  n = snprintf (content, sizeof content, "pid=%ld\ncgroup=%s\nuids=%llu-%llu\n", (long)getpid (),
                cgroup, first, last);
  fd = openat (dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0 || flock (fd, LOCK_EX | LOCK_NB) < 0 || ftruncate (fd, 0) < 0
      || pwrite (fd, content, (size_t)n, 0) != n)
    {
      rc_error_sys (err, "instance lock: %s/%s", RC_INSTANCE_DIR, name);
      if (fd >= 0)
        close (fd);
      close (dirfd);
      return -1;
    }
  close (dirfd);
  *out_fd = fd;
  return 0;
}

void
rc_sandbox_instance_unlock (int fd)
{
  char path[64], target[512];
  ssize_t k;
  if (fd < 0)
    return;
  /* Unlinked while still held, so nobody takes it for stale meanwhile. */
  snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  k = readlink (path, target, sizeof target - 1);
  if (k > 0)
    {
      target[k] = '\0';
      if (strncmp (target, RC_INSTANCE_DIR "/", strlen (RC_INSTANCE_DIR) + 1) == 0)
        unlink (target);
    }
  close (fd);
}
