/* cgroup_test.c - TAP test of sandbox/cgroup.c against this machine's real
 * cgroup hierarchy (v1 hybrid on the development and CI machines, v2 in
 * the t/vm guest).
 *
 * Needs root: it creates a throwaway subtree "rc-test-<pid>" below our own
 * cgroup, runs forked children in a slot (CPU spin, allocation, OOM, a
 * setsid double-fork daemon, a fork loop against pids.max) and removes the
 * subtree at the end.  Every child is ours and is killed by pid or by the
 * slot's kill_all.  As non-root it skips (the cgroup files are root's);
 * CI runs it as root, where it never skips.
 */
#include "config.h"

#include "sandbox/cgroup.h"
#include "sandbox/cgroup_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int test_no;
static int failures;

static void
ok (int cond, const char *fmt, ...)
{
  va_list ap;
  printf ("%sok %d - ", cond ? "" : "not ", ++test_no);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
  fflush (stdout);
  if (!cond)
    failures++;
}

static void
diag_err (rc_err_t *err)
{
  if (*err != NULL)
    printf ("# error: %s\n", rc_error_text (*err));
  rc_error_free (err);
}

/* The mode as mount shows it: the fstype mounted at /sys/fs/cgroup and
 * whether a cgroup2 sits at /sys/fs/cgroup/unified.  Read from
 * /proc/self/mounts independently of the statfs probe under test; the last
 * mount on a path is the visible one. */
static const char *
mode_from_mounts (void)
{
  FILE *f = fopen ("/proc/self/mounts", "re");
  char src[512], dir[512], type[64], rest[1024];
  char root_type[64] = "", unified_type[64] = "";

  if (f == NULL)
    return "unknown";
  while (fscanf (f, "%511s %511s %63s %1023[^\n]\n", src, dir, type, rest) == 4)
    {
      if (strcmp (dir, "/sys/fs/cgroup") == 0)
        snprintf (root_type, sizeof (root_type), "%s", type);
      else if (strcmp (dir, "/sys/fs/cgroup/unified") == 0)
        snprintf (unified_type, sizeof (unified_type), "%s", type);
    }
  fclose (f);
  if (strcmp (root_type, "cgroup2") == 0)
    return "unified";
  if (strcmp (root_type, "tmpfs") == 0)
    return strcmp (unified_type, "cgroup2") == 0 ? "hybrid" : "legacy";
  return "unknown";
}

/* A forked child that waits for one byte on a pipe, then runs fn. */
struct child
{
  pid_t pid;
  int go;
};

static struct child
spawn (void (*fn) (long), long arg)
{
  struct child c = { -1, -1 };
  int p[2];

  if (pipe2 (p, O_CLOEXEC) < 0)
    return c;
  c.pid = fork ();
  if (c.pid == 0)
    {
      char b;
      close (p[1]);
      if (read (p[0], &b, 1) != 1)
        _exit (3);
      fn (arg);
      _exit (0);
    }
  close (p[0]);
  c.go = p[1];
  return c;
}

static int
start_and_wait (struct child *c)
{
  int status = -1;
  if (write (c->go, "x", 1) != 1)
    return -1;
  close (c->go);
  if (waitpid (c->pid, &status, 0) < 0)
    return -1;
  return status;
}

static double
cpu_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
spin (long ms)
{
  volatile unsigned long x = 0;
  /* Bounded by the process CPU clock, not wall time. */
  while (cpu_seconds () * 1000.0 < (double)ms)
    x++;
}

static void
alloc_touch (long bytes)
{
  char *p = mmap (NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    _exit (4);
  for (long i = 0; i < bytes; i += 4096)
    p[i] = 1;
}

/* setsid + double fork: the grandchild outlives its parent and leaves the
 * process group, the way DMOJ #318 escaped a pgid kill. */
static void
daemonize (long fd)
{
  pid_t pid;
  setsid ();
  pid = fork ();
  if (pid == 0)
    {
      pid_t gc = fork ();
      if (gc == 0)
        {
          int w = (int)fd;
          pid_t me = getpid ();
          if (write (w, &me, sizeof (me)) != (ssize_t)sizeof (me))
            _exit (5);
          close (w);
          for (int i = 0; i < 600; i++) /* at most 60 s: never outlives the test */
            usleep (100000);
          _exit (0);
        }
      _exit (0);
    }
  waitpid (pid, NULL, 0);
  /* The first child stays too, sleeping, so the slot holds two processes. */
  for (int i = 0; i < 600; i++)
    usleep (100000);
}

static void
fork_many (long n)
{
  int made = 0;
  for (long i = 0; i < n; i++)
    {
      pid_t p = fork ();
      if (p == 0)
        {
          usleep (300000);
          _exit (0);
        }
      if (p > 0)
        made++;
    }
  while (wait (NULL) > 0)
    ;
  _exit (made > 250 ? 250 : made);
}

static uint64_t
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Every process keeps forking until the deadline (inherited by all of
 * them), so only pids.max bounds the tree: kill_all races a live bomb. */
static void
fork_bomb (long seconds)
{
  uint64_t end = now_ms () + (uint64_t)seconds * 1000;
  while (now_ms () < end)
    if (fork () < 0)
      usleep (1000);
  _exit (0);
}

static uint64_t
now_us (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static int
read_file (const char *dir, const char *name, char *buf, size_t size)
{
  char path[4096];
  int fd;
  ssize_t n;

  snprintf (path, sizeof (path), "%s/%s", dir, name);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  n = read (fd, buf, size - 1);
  close (fd);
  if (n < 0)
    return -1;
  buf[n] = '\0';
  return 0;
}

/* Whether pid is a live process (not gone, not a zombie waiting for its
 * parent: a killed daemon reparented to init stays a zombie until init
 * reaps it, and a zombie is no longer in any cgroup's population). */
static bool
alive (pid_t pid)
{
  char path[64], buf[512];
  const char *p;
  int fd;
  ssize_t n;

  if (pid <= 0)
    return false;
  snprintf (path, sizeof (path), "/proc/%d/stat", (int)pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  n = read (fd, buf, sizeof (buf) - 1);
  close (fd);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  p = strrchr (buf, ')');
  return p != NULL && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* Whether /proc/<pid>/cgroup lists a path ending in suffix. */
static int
pid_in_cgroup (pid_t pid, const char *suffix)
{
  char path[64], line[1024];
  FILE *f;
  int found = 0;
  size_t sl = strlen (suffix);

  snprintf (path, sizeof (path), "/proc/%d/cgroup", (int)pid);
  f = fopen (path, "re");
  if (f == NULL)
    return 0;
  while (fgets (line, sizeof (line), f) != NULL)
    {
      size_t l;
      line[strcspn (line, "\n")] = '\0';
      l = strlen (line);
      if (l >= sl && strcmp (line + l - sl, suffix) == 0)
        found++;
    }
  fclose (f);
  return found;
}

/* Hybrid hosts only (mode-specific): the controller-less cgroup2 tree at
 * /sys/fs/cgroup/unified still has cgroup.procs, cgroup.kill,
 * cgroup.events and cpu.stat, so the v2 backend's kill, emptiness and CPU
 * code runs here on a slot handle built by hand in a throwaway directory
 * below our own cgroup2 cgroup.  Limits need controllers and are left to
 * the t/vm guest. */
static void own_dir (bool v2, char *out, size_t size);

static void
hybrid_v2_checks (void)
{
  char own[2048], dir[2300];
  struct rc_cgroup_slot *s = calloc (1, sizeof (*s));
  rc_err_t err = NULL;

  own_dir (true, own, sizeof (own));
  /* own_dir built /sys/fs/cgroup<path>; the cgroup2 tree is at .../unified. */
  snprintf (dir, sizeof (dir), "/sys/fs/cgroup/unified%s/rc-test-v2-%d",
            own + strlen ("/sys/fs/cgroup"), (int)getpid ());
  if (s == NULL || mkdir (dir, 0755) < 0)
    {
      ok (0, "hybrid: mkdir %s: %s", dir, strerror (errno));
      free (s);
      return;
    }
  rc_cg_slot_init_fds (s);
  s->mode = RC_CGROUP_UNIFIED;
  s->index = 99;
  s->n_procs = 1;
  s->v2_dir = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  s->dirs[0] = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  s->procs[0] = openat (s->v2_dir, "cgroup.procs", O_WRONLY | O_CLOEXEC);
  s->v2_cpu_stat = openat (s->v2_dir, "cpu.stat", O_RDONLY | O_CLOEXEC);
  s->v2_kill = openat (s->v2_dir, "cgroup.kill", O_WRONLY | O_CLOEXEC);
  s->v2_cg_events = openat (s->v2_dir, "cgroup.events", O_RDONLY | O_CLOEXEC);
  ok (s->procs[0] >= 0 && s->v2_cpu_stat >= 0 && s->v2_kill >= 0 && s->v2_cg_events >= 0,
      "hybrid: cgroup2 files of %s open", dir);

  {
    struct child c = spawn (spin, 300);
    uint64_t us = 0;
    int r = rc_cgroup_slot_attach (s, c.pid, &err);
    diag_err (&err);
    start_and_wait (&c);
    r = r == 0 ? rc_cgroup_slot_cpu_usage_us (s, &us, &err) : r;
    ok (r == 0 && us >= 150000, "hybrid: v2 cpu.stat usage %" PRIu64 " us after a 300 ms spin", us);
    diag_err (&err);
  }

  /* Twice: with cgroup.kill, then with the procs loop (kernels < 5.14). */
  for (int round = 0; round < 2; round++)
    {
      int p[2];
      pid_t daemon_pid = -1;
      bool empty = true;
      struct child c;
      const char *how = round == 0 ? "cgroup.kill" : "procs loop";
      if (round == 1)
        {
          close (s->v2_kill);
          s->v2_kill = -1;
        }
      if (pipe2 (p, O_CLOEXEC) < 0)
        return;
      c = spawn (daemonize, p[1]);
      close (p[1]);
      rc_cgroup_slot_attach (s, c.pid, &err);
      diag_err (&err);
      if (write (c.go, "x", 1) != 1)
        return;
      close (c.go);
      if (read (p[0], &daemon_pid, sizeof (daemon_pid)) != (ssize_t)sizeof (daemon_pid))
        daemon_pid = -1;
      close (p[0]);
      rc_cgroup_slot_is_empty (s, &empty, &err);
      diag_err (&err);
      ok (daemon_pid > 0 && !empty, "hybrid: v2 slot populated with a daemon (%s round)", how);
      ok (rc_cgroup_slot_kill_all (s, 3000, &err) == 0, "hybrid: v2 kill_all by %s", how);
      diag_err (&err);
      waitpid (c.pid, NULL, 0);
      ok (rc_cgroup_slot_is_empty (s, &empty, &err) == 0 && empty && !alive (daemon_pid),
          "hybrid: v2 populated 0 and the daemon gone (%s)", how);
      diag_err (&err);
    }
  rc_cgroup_slot_close (s);
  ok (rmdir (dir) == 0, "hybrid: %s removed", dir);
}

/* Our own memory cgroup directory (v1) or cgroup2 directory (v2), from
 * /proc/self/cgroup and the standard mount points. */
static void
own_dir (bool v2, char *out, size_t size)
{
  FILE *f = fopen ("/proc/self/cgroup", "re");
  char line[1024];

  snprintf (out, size, "?");
  if (f == NULL)
    return;
  while (fgets (line, sizeof (line), f) != NULL)
    {
      char *a = strchr (line, ':'), *b = a ? strchr (a + 1, ':') : NULL;
      if (b == NULL)
        continue;
      *a = '\0';
      *b = '\0';
      b[1 + strcspn (b + 1, "\n")] = '\0';
      if (v2 ? strcmp (line, "0") == 0 : strcmp (a + 1, "memory") == 0)
        snprintf (out, size, "/sys/fs/cgroup%s%s", v2 ? "" : "/memory",
                  strcmp (b + 1, "/") == 0 ? "" : b + 1);
    }
  fclose (f);
}

static uint64_t
limit_file (const struct rc_cgroup_slot *slot, bool v2)
{
  char buf[64] = "";
  read_file (rc_cgroup_slot_path (slot), v2 ? "memory.max" : "memory.limit_in_bytes", buf,
             sizeof (buf));
  if (strncmp (buf, "max", 3) == 0)
    return UINT64_MAX;
  return strtoull (buf, NULL, 10);
}

/* A tree of one slot (runcell exec): on v1 the slot is <name> itself, and
 * the all-slots cap becomes the slot's ceiling; v2 keeps <name>/slot0. */
static void
flat_tree_checks (bool v2, const char *own_mem_dir)
{
  char name[64], suffix[96], path[4096];
  struct rc_cgroup_slot *slot = NULL, *other = NULL;
  rc_err_t err = NULL;
  struct stat st;
  const uint64_t cap = 96ull << 20;
  const struct rc_cgroup_tree tree
      = { .name = name, .n_slots = 1, .pids_max = 16, .total_max = cap };

  snprintf (name, sizeof (name), "rc-flat-%d", (int)getpid ());
  snprintf (suffix, sizeof (suffix), v2 ? "/%s/slot0" : "/%s", name);
  ok (rc_cgroup_setup_tree (&tree, &err) == 0, "setup_tree %s with 1 slot", name);
  diag_err (&err);
  ok (rc_cgroup_slot_open (&slot, &tree, 0, &err) == 0, "slot_open in the one-slot tree");
  diag_err (&err);
  if (slot == NULL)
    {
      rc_cgroup_teardown_tree (&tree);
      return;
    }
  {
    const char *p = rc_cgroup_slot_path (slot);
    size_t pl = strlen (p), sl = strlen (suffix);
    ok (pl > sl && strcmp (p + pl - sl, suffix) == 0, "slot path %s ends in %s", p, suffix);
  }
  snprintf (path, sizeof (path), "%s/%s/slot0", own_mem_dir, name);
  ok ((stat (path, &st) == 0) == v2, "%s",
      v2 ? "v2 keeps the slot0 level" : "v1 has no slot0 level");
  ok (rc_cgroup_slot_open (&other, &tree, 1, &err) < 0 && err != NULL,
      "slot 1 of a one-slot tree is refused");
  diag_err (&err);
  /* A second handle opened after a job changed the limit (a respawned
   * worker) still knows the cap: it is not read back from the file. */
  ok (rc_cgroup_slot_prepare (slot, 32 << 20, 16, &err) == 0
          && rc_cgroup_slot_open (&other, &tree, 0, &err) == 0
          && rc_cgroup_slot_prepare (other, 80 << 20, 16, &err) == 0
          && limit_file (other, v2) == 80ull << 20,
      "a handle opened after a 32 MiB job still grants an 80 MiB job");
  diag_err (&err);
  if (other != NULL)
    rc_cgroup_slot_close (other);

  ok (rc_cgroup_slot_prepare (slot, 64 << 20, 16, &err) == 0
          && limit_file (slot, v2) == 64ull << 20,
      "a 64 MiB job under a 96 MiB cap gets 64 MiB");
  diag_err (&err);
  ok (rc_cgroup_slot_prepare (slot, 200 << 20, 16, &err) == 0
          && limit_file (slot, v2) == (v2 ? 200ull << 20 : cap),
      "a 200 MiB job: %s", v2 ? "200 MiB on the slot, the cap on its parent" : "capped at 96 MiB");
  diag_err (&err);
  ok (rc_cgroup_slot_prepare (slot, 0, 16, &err) == 0
          && limit_file (slot, v2) == (v2 ? UINT64_MAX : cap),
      "no job limit: %s", v2 ? "max on the slot" : "the cap");
  diag_err (&err);
  {
    struct child c = spawn (alloc_touch, 128 << 20);
    uint64_t kills = 0;
    int status;
    ok (rc_cgroup_slot_attach (slot, c.pid, &err) == 0 && pid_in_cgroup (c.pid, suffix) > 0,
        "attach puts the child in %s", suffix);
    diag_err (&err);
    status = start_and_wait (&c);
    ok (WIFSIGNALED (status) && rc_cgroup_slot_oom_kills (slot, &kills, &err) == 0 && kills >= 1,
        "128 MiB touched without a job limit dies at the 96 MiB cap");
    diag_err (&err);
  }
  rc_cgroup_slot_close (slot);
  rc_cgroup_teardown_tree (&tree);
  snprintf (path, sizeof (path), "%s/%s", own_mem_dir, name);
  ok (stat (path, &st) < 0 && errno == ENOENT, "%s removed", path);
}

int
main (void)
{
  char own_mem_dir[2048];
  rc_err_t err = NULL;
  enum rc_cgroup_mode mode = RC_CGROUP_UNKNOWN;
  struct rc_cgroup_slot *slot = NULL;
  char name[64], suffix[96], buf[256];
  const struct rc_cgroup_tree tree = { .name = name, .n_slots = 2, .pids_max = 64 };
  const char *expected = mode_from_mounts ();
  bool v2;
  int r;

  if (geteuid () != 0)
    {
      printf ("1..0 # SKIP needs root (creates cgroups)\n");
      return 0;
    }

  ok (rc_cgroup_detect_mode (&mode, &err) == 0, "detect mode");
  diag_err (&err);
  ok (strcmp (rc_cgroup_mode_name (mode), expected) == 0, "mode %s matches mounts (%s)",
      rc_cgroup_mode_name (mode), expected);
  v2 = mode == RC_CGROUP_UNIFIED;
  own_dir (v2, own_mem_dir, sizeof (own_mem_dir));

  ok (rc_cgroup_setup_tree (&(struct rc_cgroup_tree){ .name = "../escape", .n_slots = 1 }, &err) < 0
          && err != NULL,
      "a subtree name with a slash is refused");
  diag_err (&err);

  snprintf (name, sizeof (name), "rc-test-%d", (int)getpid ());
  snprintf (suffix, sizeof (suffix), "/%s/slot0", name);
  ok (rc_cgroup_setup_tree (&tree, &err) == 0, "setup_tree %s with 2 slots", name);
  diag_err (&err);

  ok (rc_cgroup_slot_open (&slot, &tree, 0, &err) == 0, "slot_open slot0");
  diag_err (&err);
  if (slot == NULL)
    {
      rc_cgroup_teardown_tree (&tree);
      printf ("Bail out! no slot\n");
      return 1;
    }
  printf ("# slot path %s\n", rc_cgroup_slot_path (slot));
  ok ((rc_cgroup_slot_dirfd (slot) >= 0) == v2, "dirfd is %s", v2 ? "a directory fd" : "-1 on v1");

  ok (rc_cgroup_slot_prepare (slot, 64 << 20, 32, &err) == 0, "prepare 64 MiB, 32 pids");
  diag_err (&err);
  buf[0] = '\0';
  read_file (rc_cgroup_slot_path (slot), v2 ? "memory.max" : "memory.limit_in_bytes", buf,
             sizeof (buf));
  buf[strcspn (buf, "\n")] = '\0';
  ok (strtoull (buf, NULL, 10) == 64ull << 20, "memory limit file says 64 MiB (%.20s)", buf);

  /* CPU: a child spinning 300 ms of its own CPU clock; the cgroup must see
   * at least half of it (emulated guests, as in t/vm under TCG, account
   * noticeably less than the task clock). */
  {
    struct child c = spawn (spin, 300);
    uint64_t us = 0;
    int st;
    ok (rc_cgroup_slot_attach (slot, c.pid, &err) == 0 && pid_in_cgroup (c.pid, suffix) > 0,
        "attach puts the child in %s", suffix);
    diag_err (&err);
    st = start_and_wait (&c);
    r = rc_cgroup_slot_cpu_usage_us (slot, &us, &err);
    ok (r == 0 && us >= 150000 && us < 5000000 && WIFEXITED (st),
        "cpu usage %" PRIu64 " us after a 300 ms spin", us);
    diag_err (&err);
  }

  /* Peak: reset by prepare, then a 32 MiB allocation. */
  {
    struct child c;
    uint64_t before = 0, after = 0;
    int st;
    r = rc_cgroup_slot_prepare (slot, 128 << 20, 32, &err);
    if (r == 0)
      r = rc_cgroup_slot_memory_peak (slot, &before, &err);
    ok (r == 0 && before < (16 << 20), "peak after prepare is small (%" PRIu64 ")", before);
    diag_err (&err);
    c = spawn (alloc_touch, 32 << 20);
    rc_cgroup_slot_attach (slot, c.pid, &err);
    diag_err (&err);
    st = start_and_wait (&c);
    r = rc_cgroup_slot_memory_peak (slot, &after, &err);
    ok (r == 0 && after >= (32u << 20) && WIFEXITED (st), "peak %" PRIu64 " after touching 32 MiB",
        after);
    diag_err (&err);
  }

  /* OOM: 16 MiB limit, 64 MiB touched. */
  {
    struct child c;
    uint64_t kills = 99;
    int st;
    ok (rc_cgroup_slot_prepare (slot, 16 << 20, 32, &err) == 0
            && rc_cgroup_slot_oom_kills (slot, &kills, &err) == 0 && kills == 0,
        "no OOM kill counted after prepare");
    diag_err (&err);
    c = spawn (alloc_touch, 64 << 20);
    rc_cgroup_slot_attach (slot, c.pid, &err);
    diag_err (&err);
    st = start_and_wait (&c);
    ok (WIFSIGNALED (st) && WTERMSIG (st) == SIGKILL, "the child over the limit died of SIGKILL");
    r = rc_cgroup_slot_oom_kills (slot, &kills, &err);
    ok (r == 0 && kills == 1, "one OOM kill counted: %" PRIu64, kills);
    diag_err (&err);
  }

  /* pids.max: 8 pids, the child tries 40 forks. */
  {
    struct child c;
    int st;
    char lim[64] = "", sw[64] = "";
    r = rc_cgroup_slot_prepare (slot, 64 << 20, 8, &err);
    diag_err (&err);
    /* Raised from 16 MiB: v1 must have moved memsw along (it is written
     * before the limit when raising); v2 keeps swap at 0. */
    read_file (rc_cgroup_slot_path (slot), v2 ? "memory.max" : "memory.limit_in_bytes", lim,
               sizeof (lim));
    if (read_file (rc_cgroup_slot_path (slot),
                   v2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes", sw, sizeof (sw))
        < 0)
      snprintf (sw, sizeof (sw), v2 ? "0" : "%s", lim); /* no swap accounting here */
    lim[strcspn (lim, "\n")] = sw[strcspn (sw, "\n")] = '\0';
    ok (r == 0 && strtoull (lim, NULL, 10) == 64ull << 20
            && (v2 ? strcmp (sw, "0") == 0 : strcmp (sw, lim) == 0),
        "limit raised to 64 MiB (%s), swap %s", lim, v2 ? sw : "limit follows");
    c = spawn (fork_many, 40);
    rc_cgroup_slot_attach (slot, c.pid, &err);
    diag_err (&err);
    st = start_and_wait (&c);
    ok (WIFEXITED (st) && WEXITSTATUS (st) < 8, "pids.max 8 holds (%d forks succeeded of 40)",
        WIFEXITED (st) ? WEXITSTATUS (st) : -1);
  }

  /* kill_all: a setsid double-fork daemon and its parent. */
  {
    int p[2];
    struct child c;
    pid_t daemon_pid = -1;
    bool empty = false;
    if (pipe2 (p, O_CLOEXEC) < 0)
      return 1;
    rc_cgroup_slot_prepare (slot, 64 << 20, 32, &err);
    diag_err (&err);
    /* The daemon writes its pid on p[1] (inherited across fork; CLOEXEC
     * only matters for exec). */
    c = spawn (daemonize, p[1]);
    close (p[1]);
    rc_cgroup_slot_attach (slot, c.pid, &err);
    diag_err (&err);
    if (write (c.go, "x", 1) != 1)
      return 1;
    close (c.go);
    if (read (p[0], &daemon_pid, sizeof (daemon_pid)) != (ssize_t)sizeof (daemon_pid))
      daemon_pid = -1;
    close (p[0]);
    r = rc_cgroup_slot_is_empty (slot, &empty, &err);
    ok (daemon_pid > 0 && r == 0 && !empty && pid_in_cgroup (daemon_pid, suffix) > 0,
        "slot holds the daemon %d", (int)daemon_pid);
    diag_err (&err);
    /* Our direct child is left unreaped on purpose: a zombie must not
     * keep kill_all waiting. */
    ok (rc_cgroup_slot_kill_all (slot, 3000, &err) == 0, "kill_all within 3 s");
    diag_err (&err);
    waitpid (c.pid, NULL, 0);
    ok (rc_cgroup_slot_is_empty (slot, &empty, &err) == 0 && empty && !alive (daemon_pid),
        "slot empty and the daemon gone");
    diag_err (&err);
  }

  /* kill_all against a running fork bomb capped by pids.max 32. */
  {
    struct child c;
    bool empty = true;
    r = rc_cgroup_slot_prepare (slot, 256 << 20, 32, &err);
    diag_err (&err);
    c = spawn (fork_bomb, 10);
    rc_cgroup_slot_attach (slot, c.pid, &err);
    diag_err (&err);
    if (write (c.go, "x", 1) != 1)
      return 1;
    close (c.go);
    usleep (300000);
    rc_cgroup_slot_is_empty (slot, &empty, &err);
    diag_err (&err);
    ok (r == 0 && !empty, "fork bomb running in the slot");
    {
      uint64_t t0 = now_us ();
      r = rc_cgroup_slot_kill_all (slot, 3000, &err);
      ok (r == 0, "kill_all stops the fork bomb (%" PRIu64 " us)", now_us () - t0);
    }
    diag_err (&err);
    waitpid (c.pid, NULL, 0);
    r = rc_cgroup_slot_is_empty (slot, &empty, &err);
    ok (r == 0 && empty, "slot empty after the fork bomb");
    diag_err (&err);
  }

  /* Per-job cost of the cgroup part (diagnostic, no assertion): prepare,
   * attach, the three counters, kill_all on an empty slot. */
  {
    uint64_t t0, best = UINT64_MAX, us, peak, kills;
    struct child c = spawn (spin, 0);
    for (int i = 0; i < 20; i++)
      {
        t0 = now_us ();
        rc_cgroup_slot_prepare (slot, 64 << 20, 32, NULL);
        rc_cgroup_slot_attach (slot, c.pid, NULL);
        rc_cgroup_slot_cpu_usage_us (slot, &us, NULL);
        rc_cgroup_slot_memory_peak (slot, &peak, NULL);
        rc_cgroup_slot_oom_kills (slot, &kills, NULL);
        t0 = now_us () - t0;
        if (t0 < best)
          best = t0;
      }
    start_and_wait (&c);
    printf ("# per-job cgroup calls (prepare+attach+3 counters): best of 20 %" PRIu64 " us\n",
            best);
  }

  rc_cgroup_slot_close (slot);
  rc_cgroup_teardown_tree (&tree);
  {
    char path[4096];
    struct stat st;
    /* Reopening must fail once the subtree is gone. */
    ok (rc_cgroup_slot_open (&slot, &tree, 0, &err) < 0, "slot_open fails after teardown");
    diag_err (&err);
    snprintf (path, sizeof (path), "%s/%s", own_mem_dir, name);
    ok (stat (path, &st) < 0 && errno == ENOENT, "%s removed", path);
  }
  flat_tree_checks (v2, own_mem_dir);
  if (mode == RC_CGROUP_HYBRID)
    hybrid_v2_checks ();
  printf ("1..%d\n", test_no);
  return failures ? 1 : 0;
}
