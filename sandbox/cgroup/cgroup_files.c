/* cgroup_files.c - the cgroup file helpers both backends use: reading and
 * writing control files through open fds, the kill loop that empties a
 * cgroup whatever forks under it, removing a directory, the automatic
 * total memory, and the memory.stat refault keys.
 */
#include "config.h"

#include "sandbox/cgroup/cgroup_internal.h"
#include "common/config.h"
#include "sandbox/host/syscalls.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

/* --- file helpers --- */

int
rc_cg_open (int dirfd, const char *dir, const char *file, int flags, rc_err_t *err)
{
  int fd = openat (dirfd, file, flags | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return rc_error_sys (err, "cgroup: open %s/%s", dir, file);
  return fd;
}

int
rc_cg_write_fd (int fd, const char *value, const char *what, rc_err_t *err)
{
  size_t len = strlen (value);
  ssize_t n = pwrite (fd, value, len, 0);
  if (n < 0)
    return rc_error_sys (err, "cgroup: write %s to %s", value, what);
  if ((size_t)n != len)
    return rc_error_set (err, EIO, "cgroup: short write of %s to %s", value, what);
  return 0;
}

int
rc_cg_write_file (const char *dir, const char *file, const char *value, rc_err_t *err)
{
  cleanup_close int dfd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int fd = -1;
  cleanup_free char *what = NULL;

  if (dfd < 0)
    return rc_error_sys (err, "cgroup: open %s", dir);
  fd = rc_cg_open (dfd, dir, file, O_WRONLY, err);
  if (fd < 0)
    return -1;
  if (asprintf (&what, "%s/%s", dir, file) < 0)
    return rc_error_sys (err, "cgroup: asprintf");
  return rc_cg_write_fd (fd, value, what, err);
}

int
rc_cg_read_fd (int fd, char *buf, size_t size, const char *what, rc_err_t *err)
{
  size_t off = 0;

  while (off + 1 < size)
    {
      ssize_t n = pread (fd, buf + off, size - 1 - off, (off_t)off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return rc_error_sys (err, "cgroup: read %s", what);
      if (n == 0)
        break;
      off += (size_t)n;
    }
  buf[off] = '\0';
  return (int)off;
}

int
rc_cg_read_file (const char *dir, const char *file, char *buf, size_t size, rc_err_t *err)
{
  cleanup_close int dfd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int fd = -1;

  if (dfd < 0)
    return rc_error_sys (err, "cgroup: open %s", dir);
  fd = rc_cg_open (dfd, dir, file, O_RDONLY, err);
  if (fd < 0)
    return -1;
  return rc_cg_read_fd (fd, buf, size, file, err);
}

/* A kernel file's first number ("123\n", "123 456"), through the one
 * strict integer parser. */
static int
parse_u64 (const char *s, uint64_t *value)
{
  char num[32];
  size_t n = strcspn (s, "\n ");

  if (n == 0 || n >= sizeof num)
    return -1;
  memcpy (num, s, n);
  num[n] = '\0';
  return rc_parse_u64 (num, value);
}

int
rc_cg_read_u64_fd (int fd, uint64_t *value, const char *what, rc_err_t *err)
{
  char buf[64];

  if (rc_cg_read_fd (fd, buf, sizeof (buf), what, err) < 0)
    return -1;
  if (parse_u64 (buf, value) < 0)
    return rc_error_set (err, EINVAL, "cgroup: %s: not a number: %.20s", what, buf);
  return 0;
}

int
rc_cg_read_key_fd (int fd, const char *key, uint64_t *value, bool *found, const char *what,
                   rc_err_t *err)
{
  char buf[8192]; /* memory.stat is the longest file read: 2-4 KiB */
  size_t klen = strlen (key);
  const char *p;

  *found = false;
  if (rc_cg_read_fd (fd, buf, sizeof (buf), what, err) < 0)
    return -1;
  for (p = buf; p != NULL && *p != '\0'; p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL)
    {
      if (strncmp (p, key, klen) == 0 && p[klen] == ' ')
        {
          if (parse_u64 (p + klen + 1, value) < 0)
            return rc_error_set (err, EINVAL, "cgroup: %s: bad value for %s", what, key);
          *found = true;
          return 0;
        }
    }
  return 0;
}

void
rc_cg_sleep_us (unsigned us)
{
  struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

/* --- killing --- */

struct pid_list
{
  pid_t *pids;
  size_t n, cap;
};

static int
cmp_pid (const void *a, const void *b)
{
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return (x > y) - (x < y);
}

static int
open_procs (int dirfd, rc_err_t *err)
{
  int fd = openat (dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return rc_error_sys (err, "cgroup: open cgroup.procs");
  return fd;
}

/* Appends every pid listed in cgroup.procs of the dirs, sorted. */
static int
collect_pids (const int *dirs, size_t n, struct pid_list *out, rc_err_t *err)
{
  /* cgroup.procs of one slot is bounded by pids.max; 64 KiB holds about
   * 9000 pids, and anything beyond is picked up in the next round. */
  cleanup_free char *buf = malloc (65536);

  out->n = 0;
  if (buf == NULL)
    return rc_error_sys (err, "cgroup: malloc");
  for (size_t i = 0; i < n; i++)
    {
      char *p, *end;
      cleanup_close int fd = -1;
      if (dirs[i] < 0)
        continue;
      fd = open_procs (dirs[i], err);
      if (fd < 0 || rc_cg_read_fd (fd, buf, 65536, "cgroup.procs", err) < 0)
        return -1;
      for (p = buf; *p != '\0'; p = end)
        {
          long v = strtol (p, &end, 10);
          if (end == p)
            break;
          if (v <= 0 || v > INT_MAX)
            continue;
          if (out->n == out->cap)
            {
              size_t cap = out->cap ? out->cap * 2 : 64;
              pid_t *np = realloc (out->pids, cap * sizeof (*np));
              if (np == NULL)
                return rc_error_sys (err, "cgroup: realloc");
              out->pids = np;
              out->cap = cap;
            }
          out->pids[out->n++] = (pid_t)v;
        }
    }
  if (out->n > 1)
    qsort (out->pids, out->n, sizeof (pid_t), cmp_pid);
  return 0;
}

int
rc_cg_procs_empty (const int *dirs, size_t n, bool *empty, rc_err_t *err)
{
  char buf[32];

  *empty = true;
  for (size_t i = 0; i < n; i++)
    {
      cleanup_close int fd = -1;
      if (dirs[i] < 0)
        continue;
      fd = open_procs (dirs[i], err);
      /* A few bytes are enough to see whether any pid is listed. */
      if (fd < 0 || rc_cg_read_fd (fd, buf, sizeof (buf), "cgroup.procs", err) < 0)
        return -1;
      if (buf[0] != '\0')
        {
          *empty = false;
          return 0;
        }
    }
  return 0;
}

/* One round: pidfds pin the processes listed now; the second read keeps
 * only those still in the slot, so a pid that exited and was recycled by
 * a process elsewhere between the two reads is never signalled (its pidfd
 * refers to the new process, which is not listed). */
static int
kill_round (const int *dirs, size_t n, struct pid_list *now, struct pid_list *again, rc_err_t *err)
{
  cleanup_free int *fds = NULL;

  if (collect_pids (dirs, n, now, err) < 0)
    return -1;
  if (now->n == 0)
    return 0;
  fds = malloc (now->n * sizeof (int));
  if (fds == NULL)
    return rc_error_sys (err, "cgroup: malloc");
  /* -1: the process is already gone; -2: no pidfds on this kernel. */
  for (size_t i = 0; i < now->n; i++)
    {
      fds[i] = rc_pidfd_open (now->pids[i], 0);
      if (fds[i] < 0 && errno == ENOSYS)
        fds[i] = -2;
    }
  if (collect_pids (dirs, n, again, err) < 0)
    {
      for (size_t i = 0; i < now->n; i++)
        if (fds[i] >= 0)
          close (fds[i]);
      return -1;
    }
  for (size_t i = 0; i < now->n; i++)
    {
      bool listed = bsearch (&now->pids[i], again->pids, again->n, sizeof (pid_t), cmp_pid) != NULL;
      if (fds[i] >= 0)
        {
          if (listed)
            (void)rc_pidfd_send_signal (fds[i], SIGKILL, NULL, 0);
          close (fds[i]);
        }
      else if (listed && fds[i] == -2)
        /* Kernel without pidfds (< 5.3): plain kill, with the small
         * recycling window the pidfd path closes. */
        (void)kill (now->pids[i], SIGKILL);
    }
  return (int)now->n;
}

int
rc_cg_kill_loop (const int *dirs, size_t n, unsigned timeout_ms, rc_err_t *err)
{
  struct pid_list now = { 0 }, again = { 0 };
  uint64_t deadline = rc_now_ms () + timeout_ms;
  unsigned pause_us = 100;
  int ret = -1;

  /* Bounded: each round kills everything listed; a fork bomb cannot
   * outrun it for long because pids.max caps the slot. */
  for (;;)
    {
      int left = kill_round (dirs, n, &now, &again, err);
      if (left < 0)
        break;
      if (left == 0)
        {
          ret = 0;
          break;
        }
      if (rc_now_ms () >= deadline)
        {
          rc_error_set (err, ETIMEDOUT, "cgroup: %d processes left in the slot after %u ms", left,
                        timeout_ms);
          break;
        }
      rc_cg_sleep_us (pause_us);
      if (pause_us < 2000)
        pause_us *= 2;
    }
  free (now.pids);
  free (again.pids);
  return ret;
}

void
rc_cg_remove_dir (const char *dir)
{
  cleanup_close int dfd = -1;

  /* The kernel refuses (EBUSY) to remove a cgroup that still holds a
   * process, so an empty one, the usual case at teardown, goes at once,
   * without the kill loop's reads of cgroup.procs (on v1 each read builds
   * a pid list the kernel frees later from a work queue). */
  if (rmdir (dir) == 0 || errno != EBUSY)
    return;
  dfd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return;
  (void)rc_cg_kill_loop (&dfd, 1, 2000, NULL);
  /* rmdir can briefly fail with EBUSY while the last exiting task is
   * still being unlinked from the cgroup. */
  for (int i = 0; i < 100 && rmdir (dir) < 0 && errno == EBUSY; i++)
    rc_cg_sleep_us (10000);
}

static uint64_t
mem_total_bytes (void)
{
  char buf[4096];
  const char *p;
  uint64_t kb = 0;
  if (rc_cg_read_file ("/proc", "meminfo", buf, sizeof buf, NULL) < 0)
    return 0;
  p = strstr (buf, "MemTotal:");
  if (p == NULL)
    return 0;
  p += 9;
  while (*p == ' ')
    p++;
  kb = strtoull (p, NULL, 10);
  return kb * 1024;
}

uint64_t
rc_cgroup_total_auto (const char *own_dir, bool v2)
{
  uint64_t total = mem_total_bytes (), reserve, v;
  char buf[8192];

  if (v2)
    {
      /* Every enclosing cgroup's memory.max, up to the hierarchy's root
       * (which has none). */
      char *dir = strdup (own_dir), *slash;
      while (dir && rc_cg_read_file (dir, "memory.max", buf, sizeof buf, NULL) == 0)
        {
          if (parse_u64 (buf, &v) == 0 && v < total)
            total = v;
          slash = strrchr (dir, '/');
          if (slash == NULL || slash == dir)
            break;
          *slash = '\0';
        }
      free (dir);
    }
  else if (rc_cg_read_file (own_dir, "memory.stat", buf, sizeof buf, NULL) == 0)
    {
      /* v1 sums the enclosing limits up for us. */
      const char *p = strstr (buf, "hierarchical_memory_limit ");
      if (p && parse_u64 (p + 26, &v) == 0 && v < total)
        total = v;
    }
  reserve = total / 8 > (256u << 20) ? total / 8 : (256u << 20);
  /* A tiny machine (or unit) still gets half of what it has. */
  return total > 2 * reserve ? total - reserve : total / 2;
}

int
rc_cg_write_at (int dirfd, const char *file, const char *value, rc_err_t *err)
{
  cleanup_close int fd = rc_cg_open (dirfd, file, file, O_WRONLY, err);
  if (fd < 0)
    return -1;
  return rc_cg_write_fd (fd, value, file, err);
}

void
rc_cg_close (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

int
rc_cg_remove_at (int parentfd, const char *name)
{
  cleanup_close int dfd = -1;
  if (unlinkat (parentfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
    return 0;
  if (errno != EBUSY)
    return -1;
  dfd = openat (parentfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return -1;
  (void)rc_cg_kill_loop (&dfd, 1, 2000, NULL);
  /* rmdir can fail with EBUSY for a moment while the last exiting task
   * is still being unlinked from the cgroup. */
  for (int i = 0; i < 200; i++)
    {
      if (unlinkat (parentfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
        return 0;
      if (errno != EBUSY)
        return -1;
      rc_cg_sleep_us (1000);
    }
  return -1;
}

/* The file-page refault counter, hierarchical: v1 prints the cgroup's own
 * counters and then total_* ones over its subtree, v2 is hierarchical
 * throughout.  Kernels before 5.9 have one counter for anon and file
 * together, which serves as well without swap (no anon page is ever
 * evicted, so none can refault). */
static const char *const refault_keys_v1[]
    = { "total_workingset_refault_file", "total_workingset_refault" };
static const char *const refault_keys_v2[] = { "workingset_refault_file", "workingset_refault" };

const char *
rc_cg_refault_key_name (int key, bool v2)
{
  if (key < 1 || key > 2)
    return NULL;
  return v2 ? refault_keys_v2[key - 1] : refault_keys_v1[key - 1];
}

int
rc_cg_find_refault_key (int stat_fd, bool v2)
{
  for (int k = 1; k <= 2; k++)
    {
      uint64_t v;
      bool found = false;
      if (rc_cg_read_key_fd (stat_fd, rc_cg_refault_key_name (k, v2), &v, &found, "memory.stat",
                             NULL)
              == 0
          && found)
        return k;
    }
  return 0;
}
