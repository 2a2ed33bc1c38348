/* cgroup_test.c - TAP test of sandbox/cgroup/ against this machine's real
 * cgroup hierarchy (v1 hybrid on the development and CI machines, v2 in
 * the t/vm guest).
 *
 * Needs root: it creates a throwaway subtree "rc-test-<pid>" below our own
 * cgroup and plays both sides of a slot: the keeper (setup, open, kill_all,
 * teardown) in this process, the slot's init in a forked child that enters
 * the slot and prepares steps, and each step's first process forked from
 * that child (on v2 cloned into its step's leaf) to spin, allocate, get
 * OOM-killed, fork against pids.max or leave a daemon.  Every process is
 * ours and ends by pid or by kill_all; the subtree is removed at the end.
 * As non-root it skips (the cgroup files are root's); CI runs it as root.
 */
#include "config.h"

#include "t/unit/tap.h"

#include "sandbox/cgroup/cgroup.h"
#include "sandbox/cgroup/cgroup_internal.h"
#include "sandbox/host/syscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static void
diag_err (rc_err_t *err)
{
  if (*err != NULL)
    printf ("# error: %s\n", rc_error_text (*err)), fflush (stdout);
  rc_error_free (err);
}

/* The mode as mount shows it, read independently of the statfs probe. */
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

/* ---- what the step's first process does (forked by the "init") ---- */

enum job
{
  JOB_SPIN = 1,  /* 300 ms of CPU */
  JOB_TOUCH,     /* 32 MiB touched */
  JOB_OOM,       /* more than its limit */
  JOB_FORKS,     /* 40 forks against pids.max */
  JOB_DAEMON,    /* a setsid daemon left behind, then exit 0 */
  JOB_SHMEM,     /* 16 MiB written to a tmpfs file, left there */
};

static double
cpu_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void __attribute__ ((noreturn)) job_main (enum job j)
{
  /* As the sandbox's child does (sandbox/process/child.c): under its
   * limit, the job is the OOM killer's first choice, never the init. */
  int adj = open ("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (adj >= 0)
    {
      (void)!write (adj, "1000", 4);
      close (adj);
    }
  switch (j)
    {
    case JOB_SPIN:
      {
        double t0 = cpu_seconds ();
        volatile unsigned long x = 0;
        while (cpu_seconds () - t0 < 0.3)
          x++;
        _exit (0);
      }
    case JOB_TOUCH:
    case JOB_OOM:
      {
        size_t n = j == JOB_TOUCH ? 32u << 20 : 256u << 20;
        char *p = mmap (NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
          _exit (2);
        for (size_t i = 0; i < n; i += 4096)
          p[i] = 1;
        _exit (0);
      }
    case JOB_FORKS:
      {
        int made = 0;
        for (int i = 0; i < 40; i++)
          {
            pid_t c = fork ();
            if (c == 0)
              {
                pause ();
                _exit (0);
              }
            if (c > 0)
              made++;
          }
        _exit (made > 100 ? 100 : made);
      }
    case JOB_DAEMON:
      if (fork () == 0)
        {
          setsid ();
          if (fork () == 0)
            {
              for (;;)
                pause ();
            }
          _exit (0);
        }
      _exit (0);
    case JOB_SHMEM:
      {
        /* A tmpfs file outlives the step's processes, and stays charged
         * to the slot: what a session's files or a page cache do. */
        char path[64], buf[65536];
        int fd;
        snprintf (path, sizeof path, "/dev/shm/rc-cgroup-test-%ld", (long)getppid ());
        fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0)
          _exit (2);
        memset (buf, 1, sizeof buf);
        for (int i = 0; i < 256; i++)
          if (write (fd, buf, sizeof buf) != (ssize_t)sizeof buf)
            _exit (2);
        close (fd);
        _exit (0);
      }
    }
  _exit (99);
}

/* One step in the "init": prepare, fork (or clone into the leaf) the job,
 * wait for it, read the meter.  Results go back through a pipe. */
struct step_report
{
  int prepared;
  int status;
  uint64_t cpu_us, peak, ooms;
  uint64_t limit;
  int unmet;
};

static struct step_report
run_step (struct rc_cgroup_slot *slot, unsigned step, uint64_t mem, uint64_t pids, enum job j)
{
  struct step_report r = { 0 };
  struct rc_cgroup_meter m;
  rc_err_t err = NULL;
  int clone_fd = -1, join_fd = -1;
  bool unmet = false;
  pid_t pid;

  if (rc_cgroup_step_prepare (slot, step, mem, pids, &m, &clone_fd, &join_fd, &unmet, &err) < 0)
    {
      diag_err (&err);
      return r;
    }
  r.prepared = 1;
  r.unmet = unmet;
  r.limit = m.limit_bytes;
  if (clone_fd >= 0)
    {
      struct rc_clone_args a = { .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD,
                                 .cgroup = (uint64_t)clone_fd };
      pid = rc_clone3 (&a);
    }
  else
    pid = fork ();
  if (pid == 0)
    {
      /* v1: the job's memory cgroup, below the init's (as the sandbox's
       * child joins it before it execs). */
      if (join_fd >= 0 && pwrite (join_fd, "0", 1, 0) != 1)
        _exit (99);
      job_main (j);
    }
  if (pid < 0 || waitpid (pid, &r.status, 0) < 0)
    r.status = -1;
  (void)rc_cgroup_meter_cpu_us (&m, &r.cpu_us, NULL);
  (void)rc_cgroup_meter_peak (&m, &r.peak, NULL);
  (void)rc_cgroup_meter_oom_kills (&m, &r.ooms, NULL);
  return r;
}

/* The "init": enters the slot, then runs each step the parent asks for
 * over the pipe (a byte: the job), reporting back.  Step numbers count up
 * within a "job"; 'c' clears the job (job_clear), 'q' ends. */
static void __attribute__ ((noreturn)) init_main (struct rc_cgroup_slot *slot, int in, int out)
{
  rc_err_t err = NULL;
  unsigned step = 0;
  uint64_t mem = 0, pids = 0;
  char cmd[24];

  if (rc_cgroup_slot_enter (slot, &err) < 0)
    {
      diag_err (&err);
      _exit (2);
    }
  while (read (in, cmd, sizeof cmd) == (ssize_t)sizeof cmd)
    {
      if (cmd[0] == 'q')
        _exit (0);
      if (cmd[0] == 'c')
        {
          bool renewed = false;
          int r = rc_cgroup_job_clear (slot, &renewed, &err);
          int rep[2] = { r, renewed };
          diag_err (&err);
          step = 0;
          if (write (out, rep, sizeof rep) < 0)
            _exit (3);
          continue;
        }
      memcpy (&mem, cmd + 8, 8);
      memcpy (&pids, cmd + 16, 8);
      {
        struct step_report r = run_step (slot, step++, mem, pids, (enum job)cmd[0]);
        if (write (out, &r, sizeof r) < 0)
          _exit (3);
      }
    }
  _exit (0);
}

struct init
{
  pid_t pid;
  int to, from;
};

static struct init
init_start (struct rc_cgroup_slot *slot)
{
  struct init in = { -1, -1, -1 };
  int a[2], b[2];
  if (pipe (a) < 0 || pipe (b) < 0)
    return in;
  if (rc_cgroup_slot_init_fd (slot) >= 0)
    {
      struct rc_clone_args args = { .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD,
                                    .cgroup = (uint64_t)rc_cgroup_slot_init_fd (slot) };
      in.pid = rc_clone3 (&args);
    }
  else
    in.pid = fork ();
  if (in.pid == 0)
    {
      close (a[1]);
      close (b[0]);
      init_main (slot, a[0], b[1]);
    }
  close (a[0]);
  close (b[1]);
  in.to = a[1];
  in.from = b[0];
  return in;
}

static struct step_report
init_step (struct init *in, enum job j, uint64_t mem, uint64_t pids)
{
  struct step_report r = { 0 };
  char cmd[24] = { (char)j };
  memcpy (cmd + 8, &mem, 8);
  memcpy (cmd + 16, &pids, 8);
  if (write (in->to, cmd, sizeof cmd) != (ssize_t)sizeof cmd
      || read (in->from, &r, sizeof r) != (ssize_t)sizeof r)
    r.prepared = 0;
  return r;
}

static int
init_clear (struct init *in, bool *renewed)
{
  char cmd[24] = { 'c' };
  int rep[2] = { -1, 0 };
  if (write (in->to, cmd, sizeof cmd) != (ssize_t)sizeof cmd
      || read (in->from, rep, sizeof rep) != (ssize_t)sizeof rep)
    return -1;
  *renewed = rep[1];
  return rep[0];
}

static void
init_stop (struct init *in)
{
  char cmd[24] = { 'q' };
  (void)write (in->to, cmd, sizeof cmd);
  close (in->to);
  close (in->from);
  waitpid (in->pid, NULL, 0);
}

int
main (void)
{
  enum rc_cgroup_mode mode;
  rc_err_t err = NULL;
  char name[64];
  struct rc_cgroup_tree tree;
  struct rc_cgroup_slot *slot = NULL;
  struct init in;
  struct step_report r;
  bool v2, renewed = false, empty = false;

  if (geteuid () != 0)
    {
      printf ("1..0 # SKIP cgroup_test needs root (the cgroup files are root's)\n");
      return 0;
    }
  tap_ok (rc_cgroup_detect_mode (&mode, &err) == 0, "detect mode");
  diag_err (&err);
  tap_ok (strcmp (rc_cgroup_mode_name (mode), mode_from_mounts ()) == 0,
      "mode %s matches the mounts (%s)", rc_cgroup_mode_name (mode), mode_from_mounts ());
  v2 = mode == RC_CGROUP_UNIFIED;
  tap_ok (rc_cgroup_setup_tree (&(struct rc_cgroup_tree){ .name = "../escape", .n_slots = 1 }, &err)
          < 0,
      "a subtree name with a slash is refused");
  rc_error_free (&err);

  snprintf (name, sizeof name, "rc-test-%ld", (long)getpid ());
  tree = (struct rc_cgroup_tree){ .name = name, .n_slots = 2, .pids_max = 64 };
  tap_ok (rc_cgroup_setup_tree (&tree, &err) == 0, "setup_tree %s with 2 slots", name);
  diag_err (&err);
  tap_ok (rc_cgroup_slot_open (&slot, &tree, 1, &err) == 0, "slot_open slot1");
  diag_err (&err);
  if (slot == NULL)
    goto out;
  tap_ok ((rc_cgroup_slot_init_fd (slot) >= 0) == v2, "the init's clone target is %s",
      v2 ? "a leaf of its own" : "none on v1 (it moves itself)");
  in = init_start (slot);

  r = init_step (&in, JOB_SPIN, 64 << 20, 32);
  tap_ok (r.prepared && WIFEXITED (r.status) && r.cpu_us >= 150000 && r.cpu_us < 5000000,
      "a step's CPU clock reads its 300 ms spin (%" PRIu64 " us)", r.cpu_us);
  r = init_step (&in, JOB_TOUCH, 128 << 20, 32);
  tap_ok (r.prepared && WIFEXITED (r.status) && r.peak >= (31u << 20) && r.peak < (48u << 20),
      "the next step's peak is its own 32 MiB (%" PRIu64 " KiB)", r.peak >> 10);
  r = init_step (&in, JOB_OOM, 16 << 20, 32);
  tap_ok (r.prepared && WIFSIGNALED (r.status) && WTERMSIG (r.status) == SIGKILL && r.ooms >= 1,
      "256 MiB under a 16 MiB limit: SIGKILL, %" PRIu64 " OOM kill(s) counted", r.ooms);
  r = init_step (&in, JOB_FORKS, 64 << 20, 8);
  tap_ok (r.prepared && WIFEXITED (r.status) && WEXITSTATUS (r.status) < 8 && WEXITSTATUS (r.status) >= 5,
      "pids 8 holds (%d of 40 forks succeeded)", WIFEXITED (r.status) ? WEXITSTATUS (r.status) : -1);
  r = init_step (&in, JOB_DAEMON, 64 << 20, 32);
  tap_ok (r.prepared && WIFEXITED (r.status), "a step leaves a setsid daemon");
  tap_ok (rc_cgroup_slot_is_empty (slot, &empty, &err) == 0 && !empty,
      "the keeper sees the slot populated");
  diag_err (&err);

  /* The keeper's kill: everything in the slot, the "init" too. */
  tap_ok (rc_cgroup_slot_kill_all (slot, 3000, &err) == 0, "kill_all within 3 s");
  diag_err (&err);
  tap_ok (rc_cgroup_slot_is_empty (slot, &empty, &err) == 0 && empty, "the slot is empty after");
  diag_err (&err);
  close (in.to);
  close (in.from);
  waitpid (in.pid, NULL, 0);

  /* A fresh "init" for the clearing between jobs. */
  in = init_start (slot);
  r = init_step (&in, JOB_SHMEM, 64 << 20, 32);
  tap_ok (r.prepared && WIFEXITED (r.status) && WEXITSTATUS (r.status) == 0,
      "a step leaves a 16 MiB tmpfs file");
  {
    rc_err_t e2 = NULL;
    /* Kill every job process but the "init": by pid from its leaf (v2) or
     * the slot (v1), as the init's kill(-1) would. */
    char procs[512], line[32];
    FILE *f;
    if (v2)
      snprintf (procs, sizeof procs, "%s/step0/cgroup.procs", rc_cgroup_slot_path (slot));
    else
      snprintf (procs, sizeof procs, "%s/cgroup.procs", rc_cgroup_slot_path (slot));
    f = fopen (procs, "re");
    while (f && fgets (line, sizeof line, f))
      {
        pid_t p = (pid_t)atol (line);
        if (p > 0 && p != in.pid)
          kill (p, SIGKILL);
      }
    if (f)
      fclose (f);
    rc_error_free (&e2);
    usleep (200000);
  }
  tap_ok (init_clear (&in, &renewed) == 0, "job_clear");
  if (v2)
    tap_ok (!renewed, "v2: the step leaves are removed (no new generation: each job's leaves are new)");
  else
    tap_ok (renewed, "v1: 16 MiB left charged: the slot gets a new memory cgroup");
  r = init_step (&in, JOB_TOUCH, 64 << 20, 32);
  tap_ok (r.prepared && WIFEXITED (r.status) && r.peak >= (31u << 20) && r.peak < (48u << 20),
      "the next job's peak is its own, not the 16 MiB left before (%" PRIu64 " KiB)",
      r.peak >> 10);
  tap_ok (init_clear (&in, &renewed) == 0 && !renewed,
      "a job that left nothing charged: cleared without a new generation");
  r = init_step (&in, JOB_TOUCH, 1 << 20, 32);
  tap_ok (r.prepared && (r.unmet || (WIFSIGNALED (r.status) && r.ooms >= 1)),
      "a 1 MiB limit: set (the program is OOM-killed) or unmet, never an error");
  if (!(r.prepared && (r.unmet || (WIFSIGNALED (r.status) && r.ooms >= 1))))
    tap_diag ("prepared %d unmet %d status 0x%x ooms %" PRIu64, (int) r.prepared, (int) r.unmet,
              (unsigned) r.status, (uint64_t) r.ooms);
  init_stop (&in);
  (void)rc_cgroup_slot_kill_all (slot, 3000, NULL);
  {
    char path[64];
    snprintf (path, sizeof path, "/dev/shm/rc-cgroup-test-%ld", (long)in.pid);
    unlink (path);
  }

out:
  rc_cgroup_slot_close (slot);
  rc_cgroup_teardown_tree (&tree);
  {
    char path[512];
    struct stat st;
    char *own = NULL;
    if (rc_cg_own_dir (v2 ? NULL : "memory", &own, NULL, NULL) == 0)
      {
        snprintf (path, sizeof path, "%s/%s", own, name);
        tap_ok (stat (path, &st) < 0 && errno == ENOENT, "teardown removed %s", path);
        free (own);
      }
  }
  return tap_done ();
}
