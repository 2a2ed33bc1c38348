/* jobs_test.c - the sandbox library's job semantics, driven through the
 * public interface (sandbox/sandbox.h) as the FastCGI workers use it:
 * several steps sharing one workspace, stop_on_failure, per-step stdin,
 * the combined output budget (truncated, the job keeps running), the
 * session (bind) workspace written by the job and seen by the host, a
 * setup failure reported as "sandbox: <step> errno=N" with no user code
 * run, and slot cleaning between jobs (which refuses a slot whose uid a
 * process outside the slot cgroup holds).  Root only (TAP; never skips as
 * root).
 */
#include "config.h"

#include "t/unit/tap.h"

#include "common/config.h"
#include "common/error.h"
#include "common/job.h"
#include "sandbox/cgroup/cgroup.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const envp[] = { "PATH=/usr/bin:/bin", "HOME=/sandbox", NULL };

static struct rc_step
step (const char *const *argv)
{
  struct rc_step s = { .argv = argv };
  s.limits.wall_ms = 10000;
  s.limits.memory_bytes = 256ULL << 20;
  s.limits.pids = 64;
  return s;
}

/* One job on whichever slot is ready, its claim ended before returning
 * (the slot's init has killed what it left): as a session's worker does. */
static int
run (struct rc_sandbox *sb, struct rc_job_spec *spec, struct rc_job_result *res, rc_err_t *err)
{
  struct rc_slot_claim c = rc_slot_claim_wait (10000, 10000, NULL);
  int r;
  if (c.slot < 0)
    return rc_error_set (err, EBUSY, "no slot ready");
  spec->slot = c.slot;
  r = rc_sandbox_run (sb, spec, c.seq, res, err);
  rc_sandbox_end_claims (sb, true);
  return r;
}

/* Whether every slot is ready again within a second. */
static bool
all_ready (unsigned n)
{
  for (int i = 0; i < 100; i++)
    {
      if (rc_slot_table_count (RC_SLOT_READY) == n)
        return true;
      usleep (10000);
    }
  return false;
}

static struct rc_lang cache_lang;

int
main (void)
{
  struct rc_config cfg;
  struct rc_sandbox *sb = NULL;
  enum rc_sandbox_mode mode;
  rc_err_t err = NULL;
  char name[64], sessdir[] = "/var/tmp/rc-jobs-test-XXXXXX";
  char cache[] = "/var/cache/rc-jobs-cache-XXXXXX";
  const char *cache_paths[3] = { NULL, NULL, NULL };
  int r;

  if (geteuid () != 0)
    {
      if (getenv ("RC_NO_SKIP"))
        {
          printf ("1..1\nnot ok 1 - needs root (RC_NO_SKIP set)\n");
          return 1;
        }
      printf ("1..0 # SKIP needs root\n");
      return 0;
    }

  setenv ("RUN_UID_BASE", "30200", 1);
  memset (&cfg, 0, sizeof cfg);
  if (rc_config_load_env (&cfg, &err) < 0)
    {
      printf ("Bail out! config: %s\n", rc_error_text (err));
      return 1;
    }
  snprintf (name, sizeof name, "runcell-jobs-test-%ld", (long)getpid ());
  free (cfg.cgroup_name);
  cfg.cgroup_name = strdup (name);
  cfg.concurrency = 2;
  cfg.memory_total_max = 768ULL << 20; /* RUN_MEMORY_TOTAL_MAX=768m */
  /* A language whose only feature is a cache overlay (and a missing one,
   * skipped): its directories must exist before the slots' roots are
   * built. */
  if (mkdtemp (cache) == NULL)
    return 1;
  chmod (cache, 0777);
  {
    char path[128];
    FILE *f;
    snprintf (path, sizeof path, "%s/warm", cache);
    f = fopen (path, "w");
    if (f)
      {
        fputs ("warm\n", f);
        fclose (f);
      }
  }
  cache_paths[0] = "/nonexistent/runcell-cache";
  cache_paths[1] = cache;
  cache_lang.slug = (char *)"cachetest";
  cache_lang.overlay_paths = (char **)cache_paths;
  cache_lang.n_overlay_paths = 2;
  cache_lang.available = true;
  if (rc_sandbox_host_setup (&cfg, &mode, &err) < 0 || rc_sandbox_open (&sb, &cfg, mode, &err) < 0
      || rc_sandbox_keeper_start (sb, &(struct rc_lang_table){ &cache_lang, 1 }, NULL, &err) < 0
      || rc_sandbox_keeper_wait_ready (sb, 30000, &err) < 0)
    {
      printf ("Bail out! setup: %s\n", rc_error_text (err));
      rc_sandbox_host_teardown (&cfg);
      return 1;
    }
  tap_ok (mode == RC_SANDBOX_ISOLATED, "root gets the isolated mode");
  {
    /* The subtree holding every slot has the cap of all slots together:
     * the configured one here, and an automatic one below the host's
     * memory otherwise. */
    char own[512], path[700], buf[256];
    bool v2 = false;
    unsigned long long cap = 0, total = 0;
    FILE *f = fopen ("/proc/self/cgroup", "re");
    own[0] = '\0';
    while (f && fgets (buf, sizeof buf, f))
      {
        char *p = strstr (buf, ":memory:");
        buf[strcspn (buf, "\n")] = '\0';
        if (p)
          snprintf (own, sizeof own, "/sys/fs/cgroup/memory%s", p + 8);
        else if (strncmp (buf, "0::", 3) == 0 && own[0] == '\0'
                 && access ("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0)
          {
            snprintf (own, sizeof own, "/sys/fs/cgroup%s", buf + 3);
            v2 = true;
          }
      }
    if (f)
      fclose (f);
    /* v2: the service may have moved itself into <name>/service */
    if (v2 && strstr (own, "/service"))
      *strrchr (own, '/') = '\0', *strrchr (own, '/') = '\0';
    snprintf (path, sizeof path, "%s/%s/%s", own, name,
              v2 ? "memory.max" : "memory.limit_in_bytes");
    f = fopen (path, "re");
    if (f && fscanf (f, "%llu", &cap) != 1)
      cap = 0;
    if (f)
      fclose (f);
    printf ("# %s = %llu\n", path, cap);
    tap_ok (cap == 768ULL << 20, "RUN_MEMORY_TOTAL_MAX=768m caps the slots' subtree");
    f = fopen ("/proc/meminfo", "re");
    if (f && fscanf (f, "MemTotal: %llu", &total) != 1)
      total = 0;
    if (f)
      fclose (f);
    cap = rc_cgroup_total_auto (own, v2);
    printf ("# automatic cap %llu of MemTotal %llu KiB\n", cap, total);
    tap_ok (cap > 0 && cap <= total * 1024 - (256ULL << 20) && cap <= total * 1024 / 8 * 7 + 4096,
            "the automatic cap leaves the host max(256 MiB, 1/8) of its memory");
  }

  {
    /* Three steps: the first writes into the workspace, the second reads
     * it and its stdin, the third fails and stops the job, the fourth never
     * runs. */
    static const char *const s1[] = { "/bin/sh", "-c", "echo built > out.txt; echo one", NULL };
    static const char *const s2[] = { "/bin/sh", "-c", "cat out.txt; tr a-z A-Z", NULL };
    static const char *const s3[] = { "/bin/sh", "-c", "echo failing >&2; exit 3", NULL };
    static const char *const s4[] = { "/bin/echo", "never", NULL };
    struct rc_step steps[4] = { step (s1), step (s2), step (s3), step (s4) };
    struct rc_file files[] = { { .path = "src/main.txt", .data = "input", .len = 5 } };
    struct rc_job_spec spec
        = { .slot = 0, .files = files, .n_files = 1, .steps = steps, .n_steps = 4, .envp = envp };
    struct rc_job_result res = { 0 };
    steps[1].stdin_data = "hello stdin";
    steps[1].stdin_len = 11;
    steps[2].stop_on_failure = true;
    r = run (sb, &spec, &res, &err);
    tap_ok (r == 0 && res.n_steps == 4, "a four-step job runs");
    tap_ok (r == 0 && res.steps[0].ran && res.steps[0].exited && res.steps[0].exit_code == 0
                && strcmp (res.steps[0].out.data, "one\n") == 0,
            "step 1 ran and printed");
    tap_ok (r == 0 && res.steps[1].ran && strcmp (res.steps[1].out.data, "built\nHELLO STDIN") == 0,
            "step 2 sees step 1's file and its own stdin");
    tap_ok (r == 0 && res.steps[2].ran && res.steps[2].exit_code == 3
                && strcmp (res.steps[2].err.data, "failing\n") == 0,
            "step 3 failed with its exit code and stderr");
    tap_ok (r == 0 && !res.steps[3].ran, "stop_on_failure: step 4 did not run");
    if (r < 0)
      printf ("# %s\n", rc_error_text (err));
    rc_error_free (&err);
    rc_job_result_free (&res);
    tap_ok (all_ready (2), "every slot is ready again after the job");
  }

  {
    /* An earlier step's tmpfs pages (a compile step's /tmp) neither eat
     * into a later step's memory limit nor count in its peak: step 1
     * leaves 32 MiB in /tmp, step 2 (limit 64 MiB) touches 40 MiB with
     * python3 and must not be OOM-killed, and its peak is that of the same
     * step in a job whose first step left nothing, within 2 MiB. */
    static const char *const fill[]
        = { "/bin/sh", "-c", "head -c 33554432 /dev/zero > /tmp/leftover", NULL };
    static const char *const none[] = { "/bin/true", NULL };
    static const char *const touch[]
        = { "python3", "-c", "b = b'x' * (40 << 20); print(len(b))", NULL };
    uint64_t peak[2] = { 0, 0 };
    bool fine[2] = { false, false };
    {
      /* Warm-up: python3's files are in the page cache before either
       * measured job, so that neither pays for reading them first (on v2
       * a step's leaf is charged the page cache it brings in). */
      struct rc_step warm[1] = { step (touch) };
      struct rc_job_spec spec = { .steps = warm, .n_steps = 1, .envp = envp };
      struct rc_job_result res = { 0 };
      (void)run (sb, &spec, &res, &err);
      rc_job_result_free (&res);
      rc_error_free (&err);
    }
    for (int k = 0; k < 2; k++)
      {
        struct rc_step steps[2] = { step (k == 0 ? fill : none), step (touch) };
        struct rc_job_spec spec = { .slot = 1, .steps = steps, .n_steps = 2, .envp = envp };
        struct rc_job_result res = { 0 };
        steps[1].limits.memory_bytes = 64ULL << 20;
        r = run (sb, &spec, &res, &err);
        fine[k] = r == 0 && res.n_steps == 2 && res.steps[0].exit_code == 0 && res.steps[1].exited
                  && res.steps[1].exit_code == 0 && res.steps[1].outcome != RC_OUTCOME_MEMORY;
        if (r == 0 && res.n_steps == 2)
          {
            peak[k] = res.steps[1].memory_peak_kb;
            printf ("# %s: step 2 exit %d oom %d peak %llu KiB\n", k ? "empty /tmp" : "32 MiB left",
                    res.steps[1].exit_code, res.steps[1].outcome == RC_OUTCOME_MEMORY,
                    (unsigned long long)peak[k]);
          }
        else
          printf ("# %s\n", err ? rc_error_text (err) : "no steps");
        rc_error_free (&err);
        rc_job_result_free (&res);
        rc_error_free (&err);
      }
    tap_ok (fine[0], "32 MiB left in /tmp: the next step still has its 64 MiB (no OOM)");
    tap_ok (fine[1], "the same step after an empty first step");
    {
      /* Every step has its own peak, on every kernel (v2: a leaf of its
       * own per step; v1: measured from what was charged before it). */
      bool cond = peak[0] && peak[1] && peak[0] < peak[1] + 2048 && peak[1] < peak[0] + 2048;
      tap_ok (cond, "the leftover pages are not in the later step's peak");
    }
  }

  {
    /* The combined budget drops output past it but lets the program
     * finish; exit code and flags say so. */
    static const char *const s1[]
        = { "/bin/sh", "-c", "head -c 100000 /dev/zero; echo done >&2", NULL };
    struct rc_step steps[1] = { step (s1) };
    struct rc_job_spec spec = { .slot = 1, .steps = steps, .n_steps = 1, .envp = envp };
    struct rc_job_result res = { 0 };
    steps[0].limits.output_bytes = 1000;
    r = run (sb, &spec, &res, &err);
    tap_ok (r == 0 && res.steps[0].truncated && res.steps[0].outcome == RC_OUTCOME_EXITED
                && res.steps[0].exited && res.steps[0].exit_code == 0
                && res.steps[0].out.len + res.steps[0].err.len == 1000,
            "output budget: truncated at 1000 bytes, program ran to its end");
    rc_error_free (&err);
    rc_job_result_free (&res);
  }

  {
    /* A session workspace: the host directory is bound at /sandbox; the
     * job's writes land there, owned by the slot uid. */
    static const char *const s1[] = { "/bin/sh", "-c", "cat note.txt; echo made > made.txt", NULL };
    struct rc_step steps[1] = { step (s1) };
    struct rc_file files[] = { { .path = "note.txt", .data = "from host\n", .len = 10 } };
    struct rc_job_spec spec = { .workspace = RC_WORKSPACE_BIND,
                                .files = files,
                                .n_files = 1,
                                .steps = steps,
                                .n_steps = 1,
                                .envp = envp };
    struct rc_job_result res = { 0 };
    struct stat st;
    char path[128];
    int dfd = -1;
    if (mkdtemp (sessdir) != NULL)
      {
        chmod (sessdir, 0777);
        dfd = open (sessdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
      }
    spec.bind_dirfd = dfd;
    r = run (sb, &spec, &res, &err);
    tap_ok (r == 0 && res.steps[0].exit_code == 0
                && strcmp (res.steps[0].out.data, "from host\n") == 0,
            "bind workspace: input file visible in /sandbox");
    snprintf (path, sizeof path, "%s/made.txt", sessdir);
    /* run() takes whichever slot is ready first: the file is its uid's. */
    tap_ok (stat (path, &st) == 0 && st.st_uid == (uid_t)(30200 + spec.slot),
            "the job's file is in the session dir, owned by the slot's uid");
    if (r < 0)
      printf ("# %s\n", rc_error_text (err));
    rc_error_free (&err);
    rc_job_result_free (&res);
    if (dfd >= 0)
      close (dfd);
    unlink (path);
    snprintf (path, sizeof path, "%s/note.txt", sessdir);
    unlink (path);
    rmdir (sessdir);
  }

  {
    /* A cache overlay: the pre-warmed content is visible and writable, the
     * writes stay in the job (the host dir and the next job see none);
     * a missing cache path is skipped. */
    static const char *const s1[]
        = { "/bin/sh", "-c", "cat \"$C/warm\" && echo job > \"$C/new\" && cat \"$C/new\"", NULL };
    static const char *const s2[] = { "/bin/sh", "-c", "ls -A \"$C\"", NULL };
    char path[128], envc[160];
    const char *cenv[] = { "PATH=/usr/bin:/bin", envc, NULL };
    struct rc_step steps[1] = { step (s1) };
    struct rc_job_spec spec
        = { .slot = 0, .steps = steps, .n_steps = 1, .envp = cenv, .lang = "cachetest" };
    struct rc_job_result res = { 0 };
    snprintf (envc, sizeof envc, "C=%s", cache);
    r = run (sb, &spec, &res, &err);
    tap_ok (r == 0 && res.steps[0].exit_code == 0
                && strcmp (res.steps[0].out.data, "warm\njob\n") == 0,
            "cache overlay: warm content visible, writable, missing path skipped");
    if (r < 0)
      printf ("# %s\n", rc_error_text (err));
    rc_error_free (&err);
    rc_job_result_free (&res);
    steps[0] = step (s2);
    r = run (sb, &spec, &res, &err);
    snprintf (path, sizeof path, "%s/new", cache);
    tap_ok (r == 0 && strcmp (res.steps[0].out.data, "warm\n") == 0 && access (path, F_OK) < 0,
            "cache writes stay in their job: not on the host, not in the next job");
    rc_error_free (&err);
    rc_job_result_free (&res);
  }

  {
    /* A setup failure (a job file whose parent is a file) is the
     * sandbox's: rc_sandbox_run fails with the step name, nothing ran. */
    static const char *const s1[] = { "/bin/sh", "-c", "echo ran", NULL };
    struct rc_step steps[1] = { step (s1) };
    struct rc_file files[]
        = { { .path = "a", .data = "x", .len = 1 }, { .path = "a/b", .data = "y", .len = 1 } };
    struct rc_job_spec spec
        = { .slot = 0, .files = files, .n_files = 2, .steps = steps, .n_steps = 1, .envp = envp };
    struct rc_job_result res = { 0 };
    r = run (sb, &spec, &res, &err);
    tap_ok (r < 0 && err && strncmp (err->msg, "sandbox: write input file errno=", 32) == 0,
            "setup failure: 'sandbox: write input file errno=N'");
    if (err)
      printf ("# %s\n", rc_error_text (err));
    tap_ok (res.n_steps == 0 && res.steps == NULL, "no result for a job that never ran");
    rc_error_free (&err);
  }

  {
    /* An exec failure is the program's (127), not the sandbox's. */
    static const char *const s1[] = { "/no/such/program", NULL };
    struct rc_step steps[1] = { step (s1) };
    struct rc_job_spec spec = { .slot = 0, .steps = steps, .n_steps = 1, .envp = envp };
    struct rc_job_result res = { 0 };
    r = run (sb, &spec, &res, &err);
    tap_ok (r == 0 && res.steps[0].exited && res.steps[0].exit_code == 127
                && strstr (res.steps[0].err.data, "/no/such/program") != NULL,
            "missing program: exit 127 with a message");
    rc_error_free (&err);
    rc_job_result_free (&res);
  }

  tap_ok (all_ready (2), "both slots ready at the end");

  {
    /* A slot's init serves one job after another: the next job finds
     * nothing of the one before (files, processes, pid numbering), and a
     * job killed by its clock leaves the init serving. */
    static const char *const leave[]
        = { "/bin/sh", "-c", "echo x > /tmp/left; echo y > w; setsid sleep 60 & echo ok", NULL };
    static const char *const look[] = { "/bin/sh", "-c",
                                        "test -e /tmp/left && echo LEFT; test -e w && echo W; n=0; "
                                        "for p in /proc/[0-9]*; do n=$((n+1)); done; "
                                        "echo procs=$n pid=$$",
                                        NULL };
    static const char *const slow[] = { "/bin/sleep", "5", NULL };
    struct rc_step steps[1] = { step (leave) };
    struct rc_job_spec spec = { .slot = 0, .steps = steps, .n_steps = 1, .envp = envp };
    struct rc_job_result res = { 0 };
    bool fine;

    for (int k = 0; k < 2; k++)
      {
        steps[0] = step (leave);
        r = run (sb, &spec, &res, &err);
        rc_job_result_free (&res);
        rc_error_free (&err);
      }
    steps[0] = step (look);
    r = run (sb, &spec, &res, &err);
    tap_ok (r == 0 && strcmp (res.steps[0].out.data, "procs=1 pid=2\n") == 0,
            "the next job finds no process or file of the ones before, and is pid 2");
    if (r == 0)
      printf ("# %s", res.steps[0].out.data);
    rc_job_result_free (&res);
    rc_error_free (&err);

    steps[0] = step (slow);
    steps[0].limits.wall_ms = 200;
    r = run (sb, &spec, &res, &err);
    fine = r == 0 && res.steps[0].outcome == RC_OUTCOME_WALL;
    rc_job_result_free (&res);
    rc_error_free (&err);
    steps[0] = step (look);
    r = run (sb, &spec, &res, &err);
    tap_ok (fine && r == 0 && strcmp (res.steps[0].out.data, "procs=1 pid=2\n") == 0,
            "a job past its wall clock: the next one finds nothing of it");
    rc_job_result_free (&res);
    rc_error_free (&err);
    tap_ok (all_ready (2), "both slots ready");
  }

  {
    /* A process of a slot's uid outside the slot: that slot's init refuses
     * to start (a live service or another runner on the same uids), so no
     * job ever shares a uid with a stranger. */
    struct rc_sandbox *sb2 = NULL;
    struct rc_config cfg2 = cfg;
    enum rc_sandbox_mode mode2;
    int pfd[2];
    pid_t pid;
    char c, name2[80];
    if (pipe (pfd) < 0)
      return 1;
    pid = fork ();
    if (pid == 0)
      {
        close (pfd[0]);
        if (setgroups (0, NULL) < 0 || setresgid (30200, 30200, 30200) < 0
            || setresuid (30200, 30200, 30200) < 0)
          _exit (1);
        if (write (pfd[1], "x", 1) < 0)
          _exit (1);
        pause ();
        _exit (0);
      }
    close (pfd[1]);
    if (read (pfd[0], &c, 1) != 1)
      c = 0;
    close (pfd[0]);
    snprintf (name2, sizeof name2, "%s-b", name);
    cfg2.cgroup_name = name2;
    cfg2.concurrency = 1;
    r = rc_sandbox_host_setup (&cfg2, &mode2, &err) == 0
                && rc_sandbox_open (&sb2, &cfg2, mode2, &err) == 0
                && rc_sandbox_keeper_start (sb2, NULL, NULL, &err) == 0
            ? rc_sandbox_keeper_wait_ready (sb2, 10000, &err)
            : -2;
    tap_ok (c == 'x' && r == -1, "a stranger with the slot uid: the slot's init refuses to start");
    rc_error_free (&err);
    kill (pid, SIGKILL);
    waitpid (pid, NULL, 0);
    rc_sandbox_close (sb2);
    rc_sandbox_host_teardown (&cfg2);
  }
  rc_sandbox_close (sb);
  rc_sandbox_host_teardown (&cfg);
  rc_config_free (&cfg);
  {
    char path[128];
    snprintf (path, sizeof path, "%s/warm", cache);
    unlink (path);
    rmdir (cache);
  }
  return tap_done ();
}
