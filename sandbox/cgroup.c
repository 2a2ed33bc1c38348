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

#include "sandbox/cgroup_internal.h"
#include "common/config.h"
#include "sandbox/syscalls.h"

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
rc_cg_slot_init_fds (struct rc_cgroup_slot *slot)
{
  for (size_t i = 0; i < RC_CG_MAX_HIER; i++)
    slot->procs[i] = slot->dirs[i] = slot->tasks[i] = -1;
  slot->v1_limit = slot->v1_memsw = slot->v1_max_usage = slot->v1_failcnt = -1;
  slot->v1_oom = slot->v1_pids_max = slot->v1_cpu_usage = slot->v1_usage = -1;
  slot->mem_stat = -1;
  slot->v2_dir = slot->v2_memory_max = slot->v2_pids_max = slot->v2_peak = -1;
  slot->v2_current = slot->v2_cpu_stat = slot->v2_events = slot->v2_kill = -1;
  slot->v2_cg_events = -1;
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

uint64_t
rc_cg_leftover_shmem (struct rc_cgroup_slot *slot)
{
  rc_err_t err = NULL;
  uint64_t v = 0;
  bool found;

  /* "shmem N" at the start of a line (v1 also has "total_shmem"). */
  if (rc_cg_read_key_fd (slot->mem_stat, "shmem", &v, &found, "memory.stat", &err) < 0)
    {
      rc_error_free (&err);
      return 0;
    }
  return found ? v : 0;
}

int
rc_cg_open_memory_stat (struct rc_cgroup_slot *slot, int dirfd, const char *dir, bool v2,
                        rc_err_t *err)
{
  /* The file-page refault counter, hierarchical: v1 prints the slot's own
   * counters and then total_* ones over its subtree, v2 is hierarchical
   * throughout.  Kernels before 5.9 have one counter for anon and file
   * together, which serves as well without swap (no anon page is ever
   * evicted, so none can refault). */
  static const char *const keys_v1[]
      = { "total_workingset_refault_file", "total_workingset_refault" };
  static const char *const keys_v2[] = { "workingset_refault_file", "workingset_refault" };
  const char *const *keys = v2 ? keys_v2 : keys_v1;

  slot->mem_stat = rc_cg_open (dirfd, dir, "memory.stat", O_RDONLY, err);
  if (slot->mem_stat < 0)
    return -1;
  slot->refault_key = NULL;
  for (size_t i = 0; i < 2 && slot->refault_key == NULL; i++)
    {
      uint64_t v;
      bool found;
      if (rc_cg_read_key_fd (slot->mem_stat, keys[i], &v, &found, "memory.stat", err) < 0)
        return -1;
      if (found)
        slot->refault_key = keys[i];
    }
  return 0;
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

/* --- public entry points --- */

int
rc_cgroup_setup_tree (const struct rc_cgroup_tree *tree, rc_err_t *err)
{
  enum rc_cgroup_mode mode;

  if (!rc_cg_name_ok (tree->name))
    return rc_error_set (err, EINVAL, "cgroup: bad subtree name '%s'",
                         tree->name ? tree->name : "(null)");
  if (rc_cgroup_detect_mode (&mode, err) < 0)
    return -1;
  if (is_v2 (mode))
    return rc_cg2_setup_tree (tree, err);
  return rc_cg1_setup_tree (tree, err);
}

void
rc_cgroup_teardown_tree (const struct rc_cgroup_tree *tree)
{
  enum rc_cgroup_mode mode;

  if (!rc_cg_name_ok (tree->name) || rc_cgroup_detect_mode (&mode, NULL) < 0)
    return;
  if (is_v2 (mode))
    rc_cg2_teardown_tree (tree);
  else
    rc_cg1_teardown_tree (tree);
}

int
rc_cgroup_slot_open (struct rc_cgroup_slot **slotp, const struct rc_cgroup_tree *tree,
                     unsigned index, rc_err_t *err)
{
  struct rc_cgroup_slot *slot;
  enum rc_cgroup_mode mode;
  int ret;

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
  rc_cg_slot_init_fds (slot);
  slot->mode = mode;
  slot->index = index;
  ret = is_v2 (mode) ? rc_cg2_slot_open (slot, tree, err) : rc_cg1_slot_open (slot, tree, err);
  if (ret < 0)
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
  int *fds[] = { &slot->v1_limit,      &slot->v1_memsw,    &slot->v1_max_usage, &slot->v1_failcnt,
                 &slot->v1_oom,        &slot->v1_pids_max, &slot->v1_cpu_usage, &slot->v2_dir,
                 &slot->v2_memory_max, &slot->v2_pids_max, &slot->v2_peak,      &slot->v2_current,
                 &slot->v2_cpu_stat,   &slot->v2_events,   &slot->v2_kill,      &slot->v2_cg_events,
                 &slot->v1_usage,      &slot->mem_stat };

  if (slot == NULL)
    return;
  for (size_t i = 0; i < RC_CG_MAX_HIER; i++)
    {
      if (slot->procs[i] >= 0)
        close (slot->procs[i]);
      if (slot->dirs[i] >= 0)
        close (slot->dirs[i]);
      if (slot->tasks[i] >= 0)
        close (slot->tasks[i]);
    }
  for (size_t i = 0; i < sizeof (fds) / sizeof (fds[0]); i++)
    if (*fds[i] >= 0)
      close (*fds[i]);
  free (slot->path);
  free (slot);
}

int
rc_cgroup_slot_prepare (struct rc_cgroup_slot *slot, uint64_t memory_bytes, uint64_t pids_max,
                        rc_err_t *err)
{
  if (is_v2 (slot->mode))
    return rc_cg2_prepare (slot, memory_bytes, pids_max, err);
  return rc_cg1_prepare (slot, memory_bytes, pids_max, err);
}

int
rc_cgroup_slot_dirfd (const struct rc_cgroup_slot *slot)
{
  return is_v2 (slot->mode) ? slot->v2_dir : -1;
}

size_t
rc_cgroup_slot_attach_fds (const struct rc_cgroup_slot *slot, int *out, size_t max)
{
  size_t n = 0;
  for (size_t i = 0; i < slot->n_procs; i++)
    {
      if (slot->procs[i] >= 0 && n < max)
        out[n++] = slot->procs[i];
      if (slot->dirs[i] >= 0 && n < max)
        out[n++] = slot->dirs[i];
      if (slot->tasks[i] >= 0 && n < max)
        out[n++] = slot->tasks[i];
    }
  return n;
}

int
rc_cgroup_slot_attach (struct rc_cgroup_slot *slot, pid_t pid, rc_err_t *err)
{
  char buf[24];

  if (pid == 0 && !is_v2 (slot->mode))
    {
      /* The caller moves itself (the namespace init, single-threaded,
       * right after the clone).  Writing "0" to a v1 `tasks` file moves
       * only the current thread, and for that the kernel skips the global
       * threadgroup rwsem (cgroup_procs_write_start: no pid, no
       * threadgroup), whose write side waits for an RCU grace period each
       * time it leaves its fast path: 5-9 ms per job here, against about
       * 0.15 ms per hierarchy this way (docs/sandbox.md, "Changes made for speed").  A
       * single-threaded process is its only thread, so the result is the
       * same as a cgroup.procs write.  Pass err NULL after a clone: nothing is
       * then allocated, errno says what failed. */
      for (size_t i = 0; i < slot->n_procs; i++)
        {
          /* A missing fd fails here too: pwrite sets EBADF. */
          ssize_t n = pwrite (slot->tasks[i], "0", 1, 0);
          if (n != 1)
            {
              if (n >= 0)
                errno = EIO;
              return rc_error_sys (err, "cgroup: slot%u: join tasks", slot->index);
            }
        }
      return 0;
    }
  snprintf (buf, sizeof (buf), "%d", (int)pid);
  /* v1: every hierarchy, memory first so the process is charged to the
   * slot before anything else can fail. */
  for (size_t i = 0; i < slot->n_procs; i++)
    if (slot->procs[i] >= 0 && rc_cg_write_fd (slot->procs[i], buf, "cgroup.procs", err) < 0)
      return rc_error_wrap (err, "slot%u", slot->index);
  return 0;
}

int
rc_cgroup_slot_cpu_usage_us (struct rc_cgroup_slot *slot, uint64_t *usage_us, rc_err_t *err)
{
  if (is_v2 (slot->mode))
    return rc_cg2_cpu_usage_us (slot, usage_us, err);
  return rc_cg1_cpu_usage_us (slot, usage_us, err);
}

int
rc_cgroup_slot_memory_peak (struct rc_cgroup_slot *slot, uint64_t *bytes, rc_err_t *err)
{
  if (is_v2 (slot->mode))
    return rc_cg2_memory_peak (slot, bytes, err);
  return rc_cg1_memory_peak (slot, bytes, err);
}

int
rc_cgroup_slot_oom_kills (struct rc_cgroup_slot *slot, uint64_t *count, rc_err_t *err)
{
  if (is_v2 (slot->mode))
    return rc_cg2_oom_kills (slot, count, err);
  return rc_cg1_oom_kills (slot, count, err);
}

int
rc_cgroup_slot_memory_sample (struct rc_cgroup_slot *slot, struct rc_memory_sample *s,
                              rc_err_t *err)
{
  bool found = false;

  s->limit = slot->limit_bytes;
  s->refaults = 0;
  if (rc_cg_read_u64_fd (is_v2 (slot->mode) ? slot->v2_current : slot->v1_usage, &s->usage,
                         "memory usage", err)
      < 0)
    return -1;
  if (slot->refault_key != NULL
      && rc_cg_read_key_fd (slot->mem_stat, slot->refault_key, &s->refaults, &found, "memory.stat",
                            err)
             < 0)
    return -1;
  s->has_refaults = found;
  return 0;
}

int
rc_cgroup_slot_kill_all (struct rc_cgroup_slot *slot, unsigned timeout_ms, rc_err_t *err)
{
  if (is_v2 (slot->mode))
    return rc_cg2_kill_all (slot, timeout_ms, err);
  /* v1 has no cgroup.kill; the freezer would make this atomic but is one
   * more hierarchy to manage, and pids.max bounds how long a fork bomb can
   * keep the loop busy. */
  if (rc_cg_kill_loop (slot->dirs, slot->n_procs, timeout_ms, err) < 0)
    return rc_error_wrap (err, "slot%u", slot->index);
  return 0;
}

int
rc_cgroup_slot_is_empty (struct rc_cgroup_slot *slot, bool *empty, rc_err_t *err)
{
  if (is_v2 (slot->mode))
    return rc_cg2_is_empty (slot, empty, err);
  return rc_cg_procs_empty (slot->dirs, slot->n_procs, empty, err);
}

/* Whether pid is a namespace init between jobs: root, pid 1 of a pid
 * namespace of its own, without a child.  No job process can look so: a
 * job runs as its slot's uid, never root, and cannot make a pid
 * namespace (no capability, and seccomp refuses user namespaces). */
static bool
is_idle_init (pid_t pid)
{
  char path[64], buf[2048], *uid, *nspid, *end;
  ssize_t k;
  int fd;

  snprintf (path, sizeof path, "/proc/%ld/status", (long)pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  k = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (k <= 0)
    return false;
  buf[k] = '\0';
  uid = strstr (buf, "\nUid:\t");
  nspid = strstr (buf, "\nNSpid:\t");
  if (uid == NULL || nspid == NULL || strtol (uid + 6, NULL, 10) != 0)
    return false;
  end = strchr (nspid + 1, '\n');
  if (end)
    *end = '\0';
  /* Two pids at least (the host's, then the namespace's), the last 1. */
  end = strrchr (nspid, '\t');
  if (end == NULL || end == nspid + 7 || strcmp (end, "\t1") != 0)
    return false;
  snprintf (path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid, (long)pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  k = read (fd, buf, sizeof buf);
  close (fd);
  return k == 0;
}

int
rc_cgroup_slot_holds_only_inits (struct rc_cgroup_slot *slot, pid_t known, bool *only,
                                 rc_err_t *err)
{
  char want[24], buf[64];
  bool others = false;

  snprintf (want, sizeof want, "%ld\n", (long)known);
  *only = true;
  for (size_t i = 0; i < slot->n_procs; i++)
    {
      cleanup_close int fd = -1;
      if (slot->dirs[i] < 0)
        continue;
      fd = open_procs (slot->dirs[i], err);
      /* The common case, a slot holding its worker's own resident init
       * (or nothing), is decided from these few bytes. */
      if (fd < 0 || rc_cg_read_fd (fd, buf, sizeof (buf), "cgroup.procs", err) < 0)
        return -1;
      if (buf[0] != '\0' && (known <= 0 || strcmp (buf, want) != 0))
        others = true;
    }
  if (others)
    {
      struct pid_list now = { 0 };
      if (collect_pids (slot->dirs, slot->n_procs, &now, err) < 0)
        {
          free (now.pids);
          return -1;
        }
      for (size_t i = 0; i < now.n && *only; i++)
        if (now.pids[i] != known && !is_idle_init (now.pids[i]))
          *only = false;
      free (now.pids);
    }
  return 0;
}

const char *
rc_cgroup_slot_path (const struct rc_cgroup_slot *slot)
{
  return slot->path;
}
