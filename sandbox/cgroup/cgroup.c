/* cgroup.c - mode detection, our own cgroup, file helpers, the kill loop,
 * and the public entry points of cgroup.h, which dispatch to the v1
 * (cgroup_v1.c: hybrid and legacy hosts) or v2 (cgroup_v2.c) backend.
 *
 * Mode detection follows crun and systemd: statfs(/sys/fs/cgroup) says
 * CGROUP2_SUPER_MAGIC on a unified host; a tmpfs there with a cgroup2 mount
 * at /sys/fs/cgroup/unified is the hybrid layout (controllers on v1, the
 * cgroup2 tree controller-less), and a tmpfs without it is legacy.  Hybrid
 * and legacy both use the v1 backend: the controllers we need are on v1.
 *
 * Where our own cgroup is: /proc/self/cgroup has one line per v1 hierarchy
 * ("4:memory:/process_api/x") and "0::/path" for cgroup2; the path is
 * relative to the hierarchy root as seen by our cgroup namespace.  The
 * hierarchy's mount (from /proc/self/mountinfo) may itself be rooted below
 * that root (field 4), so the directory is mountpoint + (path - mount root).
 * Everything runcell creates lives below that directory.
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

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

#define CGROUP_ROOT "/sys/fs/cgroup"

/* --- mode --- */

static enum rc_cgroup_mode detected_mode = RC_CGROUP_UNKNOWN;

int
rc_cgroup_detect_mode (enum rc_cgroup_mode *mode, rc_err_t *err)
{
  struct statfs st;

  if (detected_mode != RC_CGROUP_UNKNOWN)
    {
      *mode = detected_mode;
      return 0;
    }
  if (statfs (CGROUP_ROOT, &st) < 0)
    return rc_error_sys (err, "cgroup: statfs %s", CGROUP_ROOT);
  if (st.f_type == CGROUP2_SUPER_MAGIC)
    detected_mode = RC_CGROUP_UNIFIED;
  else if (st.f_type == TMPFS_MAGIC)
    {
      /* A missing unified mount is normal on legacy hosts. */
      if (statfs (CGROUP_ROOT "/unified", &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC)
        detected_mode = RC_CGROUP_HYBRID;
      else
        detected_mode = RC_CGROUP_LEGACY;
    }
  else
    return rc_error_set (err, 0, "cgroup: %s is neither cgroup2 nor tmpfs (f_type 0x%lx)",
                         CGROUP_ROOT, (unsigned long)st.f_type);
  *mode = detected_mode;
  return 0;
}

const char *
rc_cgroup_mode_name (enum rc_cgroup_mode mode)
{
  switch (mode)
    {
    case RC_CGROUP_UNIFIED:
      return "unified";
    case RC_CGROUP_HYBRID:
      return "hybrid";
    case RC_CGROUP_LEGACY:
      return "legacy";
    case RC_CGROUP_UNKNOWN:
      break;
    }
  return "unknown";
}

static bool
is_v2 (enum rc_cgroup_mode mode)
{
  return mode == RC_CGROUP_UNIFIED;
}

/* --- our own cgroup --- */

bool
rc_cg_name_ok (const char *name)
{
  return name != NULL && name[0] != '\0' && strchr (name, '/') == NULL && strcmp (name, ".") != 0
         && strcmp (name, "..") != 0 && strlen (name) < NAME_MAX;
}

bool
rc_cg_list_has (const char *list, const char *word)
{
  size_t len = strlen (word);
  const char *p = list;

  while (p != NULL && *p != '\0')
    {
      const char *end = p + strcspn (p, " ,\n");
      if ((size_t)(end - p) == len && strncmp (p, word, len) == 0)
        return true;
      p = *end != '\0' ? end + 1 : end;
    }
  return false;
}

/* mountinfo escapes blanks and backslashes as \ooo. */
static void
unescape_octal (char *s)
{
  char *out = s;
  for (; *s != '\0'; s++)
    {
      if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0'
          && s[3] <= '7')
        {
          *out++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
          s += 3;
        }
      else
        *out++ = *s;
    }
  *out = '\0';
}

/* The path of our cgroup in the hierarchy holding controller (NULL: the
 * cgroup2 line "0::"), from the text of /proc/self/cgroup. */
static int
parse_own_path (const char *text, const char *controller, char **path, rc_err_t *err)
{
  cleanup_free char *copy = strdup (text);
  char *save = NULL;

  if (copy == NULL)
    return rc_error_sys (err, "cgroup: strdup");
  for (char *line = strtok_r (copy, "\n", &save); line != NULL; line = strtok_r (NULL, "\n", &save))
    {
      char *ctls = strchr (line, ':');
      char *p = ctls ? strchr (ctls + 1, ':') : NULL;
      if (p == NULL)
        continue;
      *ctls++ = '\0';
      *p++ = '\0';
      if ((controller == NULL && strcmp (line, "0") == 0 && *ctls == '\0')
          || (controller != NULL && rc_cg_list_has (ctls, controller)))
        {
          *path = strdup (p);
          return *path ? 0 : rc_error_sys (err, "cgroup: strdup");
        }
    }
  return rc_error_set (err, ENOENT, "cgroup: controller %s not available",
                       controller ? controller : "cgroup2");
}

/* Finds, in the text of /proc/self/mountinfo, the mount of the hierarchy
 * (fstype cgroup with controller in its super options, or cgroup2) whose
 * root is a prefix of own_path.  A hierarchy mounted in several places
 * (bind mounts) is fine: the first is taken. */
static int
parse_mount (const char *text, const char *controller, const char *own_path, char **mnt,
             char **mnt_root, rc_err_t *err)
{
  cleanup_free char *copy = strdup (text);
  char *lsave = NULL;

  if (copy == NULL)
    return rc_error_sys (err, "cgroup: strdup");
  for (char *line = strtok_r (copy, "\n", &lsave); line != NULL;
       line = strtok_r (NULL, "\n", &lsave))
    {
      char *fields[6] = { NULL };
      char *save = NULL, *tok, *dash, *fstype, *superopts;
      size_t n = 0, root_len;

      dash = strstr (line, " - ");
      if (dash == NULL)
        continue;
      *dash = '\0';
      fstype = strtok_r (dash + 3, " ", &save);
      (void)strtok_r (NULL, " ", &save); /* source */
      superopts = strtok_r (NULL, " ", &save);
      if (fstype == NULL || superopts == NULL)
        continue;
      if (controller == NULL
              ? strcmp (fstype, "cgroup2") != 0
              : (strcmp (fstype, "cgroup") != 0 || !rc_cg_list_has (superopts, controller)))
        continue;
      for (tok = strtok_r (line, " ", &save); tok != NULL && n < 6;
           tok = strtok_r (NULL, " ", &save))
        fields[n++] = tok;
      if (n < 5)
        continue;
      unescape_octal (fields[3]);
      unescape_octal (fields[4]);
      root_len = strlen (fields[3]);
      if (strcmp (fields[3], "/") == 0)
        root_len = 0;
      else if (strncmp (own_path, fields[3], root_len) != 0
               || (own_path[root_len] != '/' && own_path[root_len] != '\0'))
        continue; /* a mount of a subtree we are not in */
      *mnt = strdup (fields[4]);
      *mnt_root = strndup (fields[3], root_len);
      if (*mnt == NULL || *mnt_root == NULL)
        {
          free (*mnt);
          free (*mnt_root);
          return rc_error_sys (err, "cgroup: strdup");
        }
      return 0;
    }
  return rc_error_set (err, ENOENT,
                       "cgroup: controller %s not available (no mount of its hierarchy)",
                       controller ? controller : "cgroup2");
}

int
rc_cg_dir_from (const char *cgroup_text, const char *mountinfo_text, const char *controller,
                char **dir, char **mount_dir, rc_err_t *err)
{
  cleanup_free char *own = NULL;
  cleanup_free char *mnt_root = NULL;
  char *mnt = NULL;
  const char *rel;

  if (parse_own_path (cgroup_text, controller, &own, err) < 0)
    return -1;
  if (parse_mount (mountinfo_text, controller, own, &mnt, &mnt_root, err) < 0)
    return -1;
  rel = own + strlen (mnt_root);
  if (strcmp (rel, "/") == 0)
    rel = "";
  if (asprintf (dir, "%s%s", mnt, rel) < 0)
    {
      free (mnt);
      return rc_error_sys (err, "cgroup: asprintf");
    }
  if (mount_dir != NULL)
    *mount_dir = mnt;
  else
    free (mnt);
  return 0;
}

/* procfs files have no size: read until EOF. */
static int
read_whole (const char *path, char **text, rc_err_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  size_t len = 0, cap = 8192;
  char *buf;

  if (fd < 0)
    return rc_error_sys (err, "cgroup: open %s", path);
  buf = malloc (cap);
  if (buf == NULL)
    return rc_error_sys (err, "cgroup: malloc");
  for (;;)
    {
      ssize_t n;
      if (len + 1 >= cap)
        {
          char *nb = realloc (buf, cap * 2);
          if (nb == NULL)
            {
              free (buf);
              return rc_error_sys (err, "cgroup: realloc");
            }
          buf = nb;
          cap *= 2;
        }
      n = read (fd, buf + len, cap - 1 - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          free (buf);
          return rc_error_sys (err, "cgroup: read %s", path);
        }
      if (n == 0)
        break;
      len += (size_t)n;
    }
  buf[len] = '\0';
  *text = buf;
  return 0;
}

int
rc_cg_read_self (char **cgroup_text, char **mountinfo_text, rc_err_t *err)
{
  *cgroup_text = *mountinfo_text = NULL;
  if (read_whole ("/proc/self/cgroup", cgroup_text, err) < 0)
    return -1;
  if (read_whole ("/proc/self/mountinfo", mountinfo_text, err) < 0)
    {
      free (*cgroup_text);
      *cgroup_text = NULL;
      return -1;
    }
  return 0;
}

int
rc_cg_own_dir (const char *controller, char **dir, char **mount_dir, rc_err_t *err)
{
  cleanup_free char *cg = NULL;
  cleanup_free char *mi = NULL;

  if (rc_cg_read_self (&cg, &mi, err) < 0)
    return -1;
  return rc_cg_dir_from (cg, mi, controller, dir, mount_dir, err);
}

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
static const char *const refault_keys_v1[] = { "total_workingset_refault_file",
                                               "total_workingset_refault" };
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

/* --- public entry points: the backend of the detected mode --- */

static const struct rc_cgroup_ops *
ops_for (enum rc_cgroup_mode mode)
{
  return is_v2 (mode) ? &rc_cgroup_v2_ops : &rc_cgroup_v1_ops;
}

int
rc_cgroup_setup_tree (const struct rc_cgroup_tree *tree, rc_err_t *err)
{
  enum rc_cgroup_mode mode;

  if (!rc_cg_name_ok (tree->name))
    return rc_error_set (err, EINVAL, "cgroup: bad subtree name '%s'",
                         tree->name ? tree->name : "(null)");
  if (rc_cgroup_detect_mode (&mode, err) < 0)
    return -1;
  return ops_for (mode)->setup_tree (tree, err);
}

void
rc_cgroup_teardown_tree (const struct rc_cgroup_tree *tree)
{
  enum rc_cgroup_mode mode;

  if (!rc_cg_name_ok (tree->name) || rc_cgroup_detect_mode (&mode, NULL) < 0)
    return;
  ops_for (mode)->teardown_tree (tree);
}

int
rc_cgroup_slot_open (struct rc_cgroup_slot **slotp, const struct rc_cgroup_tree *tree,
                     unsigned index, rc_err_t *err)
{
  struct rc_cgroup_slot *slot;
  enum rc_cgroup_mode mode;

  if (!rc_cg_name_ok (tree->name))
    return rc_error_set (err, EINVAL, "cgroup: bad subtree name '%s'",
                         tree->name ? tree->name : "(null)");
  if (index >= tree->n_slots)
    return rc_error_set (err, EINVAL, "cgroup: slot %u of a tree of %u", index, tree->n_slots);
  if (rc_cgroup_detect_mode (&mode, err) < 0)
    return -1;
  slot = calloc (1, sizeof (*slot));
  if (slot == NULL)
    return rc_error_sys (err, "cgroup: calloc");
  for (size_t i = 0; i < RC_CG1_COUNT; i++)
    slot->dirs[i] = slot->parents[i] = slot->v1_tasks[i] = -1;
  for (size_t i = 0; i < RC_CG_MAX_STEPS; i++)
    {
      struct rc_cg2_leaf *l = &slot->v2_steps[i];
      l->dir = l->memory_max = l->pids_max = -1;
      for (int f = 0; f < RC_CG_METER_FDS; f++)
        l->fd[f] = -1;
    }
  slot->v2_slot = slot->v2_init = slot->v2_kill = slot->v2_events = slot->v2_view = -1;
  slot->v1_limit = slot->v1_memsw = slot->v1_max_usage = slot->v1_failcnt = -1;
  slot->v1_oom = slot->v1_usage = slot->v1_stat = slot->v1_pids_max = slot->v1_cpu_usage = -1;
  slot->v1_memsw_max_usage = slot->v1_memsw_failcnt = -1;
  slot->ops = ops_for (mode);
  slot->mode = mode;
  slot->index = index;
  slot->pids_max = tree->pids_max;
  if (slot->ops->slot_open (slot, tree, err) < 0)
    {
      rc_cgroup_slot_close (slot);
      return -1;
    }
  *slotp = slot;
  return 0;
}

void
rc_cgroup_slot_close (struct rc_cgroup_slot *slot)
{
  if (slot == NULL)
    return;
  slot->ops->slot_close (slot);
  for (size_t i = 0; i < RC_CG1_COUNT; i++)
    {
      rc_cg_close (&slot->dirs[i]);
      rc_cg_close (&slot->parents[i]);
      rc_cg_close (&slot->v1_tasks[i]);
    }
  free (slot->path);
  free (slot);
}

int
rc_cgroup_slot_init_fd (const struct rc_cgroup_slot *slot)
{
  return slot->v2_init;
}

int
rc_cgroup_slot_kill_all (struct rc_cgroup_slot *slot, unsigned timeout_ms, rc_err_t *err)
{
  return slot->ops->kill_all (slot, timeout_ms, err);
}

int
rc_cgroup_slot_is_empty (struct rc_cgroup_slot *slot, bool *empty, rc_err_t *err)
{
  return slot->ops->is_empty (slot, empty, err);
}

size_t
rc_cgroup_slot_fds (const struct rc_cgroup_slot *slot, int *out, size_t max)
{
  const int single[] = { slot->v2_slot,      slot->v2_init,       slot->v2_kill,
                         slot->v2_events,    slot->v2_view,       slot->v1_limit,
                         slot->v1_memsw,     slot->v1_max_usage,  slot->v1_failcnt,
                         slot->v1_oom,       slot->v1_usage,      slot->v1_stat,
                         slot->v1_pids_max,  slot->v1_cpu_usage,  slot->v1_memsw_max_usage,
                         slot->v1_memsw_failcnt };
  size_t n = 0;
#define PUT(fd)                                                                                    \
  do                                                                                               \
    if ((fd) >= 0 && n < max)                                                                      \
      out[n++] = (fd);                                                                             \
  while (0)
  for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
    PUT (single[i]);
  for (size_t i = 0; i < RC_CG1_COUNT; i++)
    {
      PUT (slot->dirs[i]);
      PUT (slot->parents[i]);
      PUT (slot->v1_tasks[i]);
    }
  for (size_t i = 0; i < RC_CG_MAX_STEPS; i++)
    {
      const struct rc_cg2_leaf *l = &slot->v2_steps[i];
      PUT (l->dir);
      PUT (l->memory_max);
      PUT (l->pids_max);
      for (int f = 0; f < RC_CG_METER_FDS; f++)
        PUT (l->fd[f]);
    }
#undef PUT
  return n;
}

const char *
rc_cgroup_slot_path (const struct rc_cgroup_slot *slot)
{
  return slot->path;
}

int
rc_cgroup_slot_enter (struct rc_cgroup_slot *slot, rc_err_t *err)
{
  return slot->ops->slot_enter (slot, err);
}

int
rc_cgroup_slot_view_setup (struct rc_cgroup_slot *slot, const char *hidden_dir, rc_err_t *err)
{
  return slot->ops->view_setup (slot, hidden_dir, err);
}

int
rc_cgroup_step_prepare (struct rc_cgroup_slot *slot, unsigned step, uint64_t memory_bytes,
                        uint64_t pids, struct rc_cgroup_meter *meter, int *clone_fd, bool *unmet,
                        rc_err_t *err)
{
  *unmet = false;
  *clone_fd = -1;
  if (step >= RC_CG_MAX_STEPS)
    return rc_error_set (err, EINVAL, "cgroup: step %u of at most %d", step, RC_CG_MAX_STEPS);
  return slot->ops->step_prepare (slot, step, memory_bytes, pids, meter, clone_fd, unmet, err);
}

int
rc_cgroup_step_view (struct rc_cgroup_slot *slot, unsigned step, const char *target,
                     const char *mask_file, rc_err_t *err)
{
  return slot->ops->step_view (slot, step, target, mask_file, err);
}

int
rc_cgroup_job_clear (struct rc_cgroup_slot *slot, bool *renewed, rc_err_t *err)
{
  *renewed = false;
  return slot->ops->job_clear (slot, renewed, err);
}

/* --- the meter --- */

void
rc_cgroup_meter_init (struct rc_cgroup_meter *m)
{
  memset (m, 0, sizeof *m);
  for (int i = 0; i < RC_CG_METER_FDS; i++)
    m->fd[i] = -1;
}

void
rc_cgroup_meter_close (struct rc_cgroup_meter *m)
{
  for (int i = 0; i < RC_CG_METER_FDS; i++)
    rc_cg_close (&m->fd[i]);
}

static const struct rc_cgroup_ops *
meter_ops (const struct rc_cgroup_meter *m)
{
  return m->v2 ? &rc_cgroup_v2_ops : &rc_cgroup_v1_ops;
}

int
rc_cgroup_meter_cpu_us (const struct rc_cgroup_meter *m, uint64_t *usage_us, rc_err_t *err)
{
  return meter_ops (m)->cpu_us (m, usage_us, err);
}

int
rc_cgroup_meter_oom_kills (const struct rc_cgroup_meter *m, uint64_t *count, rc_err_t *err)
{
  return meter_ops (m)->oom_kills (m, count, err);
}

int
rc_cgroup_meter_peak (const struct rc_cgroup_meter *m, uint64_t *bytes, rc_err_t *err)
{
  uint64_t peak;
  if (rc_cg_read_u64_fd (m->fd[RC_CG_FD_PEAK], &peak, "memory peak", err) < 0)
    return -1;
  /* v1: what was charged before the step (pages an earlier step left in
   * /tmp) is not the step's. */
  *bytes = peak > m->base_bytes ? peak - m->base_bytes : 0;
  return 0;
}

int
rc_cgroup_meter_sample (const struct rc_cgroup_meter *m, struct rc_memory_sample *s,
                        rc_err_t *err)
{
  const char *key = rc_cg_refault_key_name (m->refault_key, m->v2);
  bool found = false;

  s->limit = m->limit_bytes;
  s->refaults = 0;
  if (rc_cg_read_u64_fd (m->fd[RC_CG_FD_CURRENT], &s->usage, "memory usage", err) < 0)
    return -1;
  if (key != NULL
      && rc_cg_read_key_fd (m->fd[RC_CG_FD_STAT], key, &s->refaults, &found, "memory.stat", err)
             < 0)
    return -1;
  s->has_refaults = found;
  return 0;
}

int
rc_cgroup_meter_kill (const struct rc_cgroup_meter *m)
{
  if (m->fd[RC_CG_FD_KILL] < 0)
    return 0;
  return pwrite (m->fd[RC_CG_FD_KILL], "1", 1, 0) == 1 ? 0 : -1;
}
