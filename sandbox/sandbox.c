/* sandbox.c - the sandbox library's life cycle: host setup, per-worker
 * state, dispatch of a job to the isolated or unsandboxed implementation,
 * and slot hygiene.
 *
 * THEORY OF OPERATION (isolated mode)
 *
 * Processes, per job:
 *
 *   worker (root, host namespaces; owns slot N: uid BASE+N, cgroup slotN)
 *    └─ [cgroup v1: shim (on the worker's memory, CLONE_VM; in the worker's
 *       │           cgroups; clones the init as its vfork child, reaps it,
 *       │           exits: spawn.c, "The init on the worker's memory")]
 *    └─ init (pid 1 of a new pid namespace; root; new mount, ipc and uts
 *       │     namespaces from the clone; joins the slot's pre-made network
 *       │     namespace (only lo) with setns; in the slot cgroup from birth
 *       │     on v2, moves itself there first thing on v1;
 *       │     then unshares its cgroup namespace, rooted at the slot)
 *       └─ user program, one per step (uid/gid BASE+N, no supplementary
 *          groups, no capabilities, no_new_privs, rlimits, seccomp; never
 *          pid 1, its own session without a controlling tty)
 *
 * Who is root: the worker and the init.  The init stays root only to build
 * the mount view, vfork each step's child and wait for it; it runs no code
 * of the job and is invisible to the job (/proc is mounted hidepid=2 and the
 * job runs as another uid).
 *
 * Channels:
 *   - control socket (SOCK_SEQPACKET pair, CLOEXEC, worker <-> init):
 *       worker -> init  GO step (step 0 is sent right after the clone, so
 *                       the init runs it as soon as the view is built)
 *       init -> worker  READY (view built), STARTED step (exec'd),
 *                       EXITED step + wait status,
 *                       FAIL "sandbox: <step> errno=N" (setup failed, no
 *                       user code ran; the worker returns it as the error)
 *     The init exits when the socket reaches EOF; its death makes the kernel
 *     kill everything left in the pid namespace.
 *     A resident init (spawn.c, "The resident init"; a forked init kept
 *     for the worker's next job of the same slot and language) also takes
 *       worker -> init  GO_JOB (the job, from the shared arena, with its
 *                       pipe ends), END (the job is over)
 *       init -> worker  CLEAN: it killed and reaped every other process
 *                       of its pid namespace and unmounted the job's /tmp
 *                       and workspace; the next job gets fresh ones and a
 *                       new IPC namespace in the same init.
 *   - error pipe (CLOEXEC, init <- user child, one per step): the child
 *     writes "sandbox: <step> errno=N" if privilege drop, rlimits, stdio or
 *     seccomp fail; EOF means execve succeeded.
 *   - per step: stdin pipe (only when the step has input; otherwise the
 *     child opens the sandbox's /dev/null, so fd 0 of the worker, the
 *     FastCGI listen socket, can never reach the job), stdout and stderr
 *     pipes.  All are created by the worker before the clone; the init
 *     closes the worker's ends at once and the child's ends as soon as it
 *     has forked that step, so EOF works.
 *
 * The worker supervises (supervise.c): it writes stdin non-blocking, reads
 * output under the caps, runs the wall, idle and CPU clocks (CPU from the
 * slot cgroup) and, when one fires, SIGKILLs the init (tearing down the pid
 * namespace) and kills the slot cgroup.  After the job the init is killed
 * and reaped (or a resident init clears the job away), and
 * rc_sandbox_slot_clean verifies the cgroup is empty (but for a resident
 * init) and no process of the slot uid is left before the slot is used
 * again.  The host
 * mount table never changes: every mount lived in the job's namespace.
 *
 * Host setup (master, once): the cgroup subtree and slots (cgroup.c), the
 * root-only state dir (skeleton cache), one network namespace per slot
 * (kept by fds the workers inherit; no mount), and the empty directory
 * /sandbox, which must exist on the host as the mount point of every job's
 * workspace.  docs/sandbox.md has the mount view and the measurements.
 */
#include "config.h"

#include "common/log.h"
#include "sandbox/sandbox_internal.h"
#include "sandbox/syscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* mkdir -p of one level with an exact mode, refusing a symlink or a
 * directory someone else owns. */
static int
ensure_root_dir (const char *path, mode_t mode, rc_err_t *err)
{
  struct stat st;
  if (mkdir (path, mode) < 0 && errno != EEXIST)
    return rc_error_sys (err, "mkdir %s", path);
  if (lstat (path, &st) < 0)
    return rc_error_sys (err, "stat %s", path);
  if (!S_ISDIR (st.st_mode) || st.st_uid != 0)
    return rc_error_set (err, EPERM, "%s: not a directory owned by root", path);
  if ((st.st_mode & 07777) != mode && chmod (path, mode) < 0)
    return rc_error_sys (err, "chmod %s", path);
  return 0;
}

/* The highest capability number this kernel knows; 63 when unreadable
 * (rc_child_drop_bounding then stops at the first EINVAL). */
static unsigned
read_cap_last (void)
{
  char buf[16];
  int fd = open ("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
  ssize_t k = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;
  unsigned long v;
  char *end;
  if (fd >= 0)
    close (fd);
  if (k <= 0)
    return 63;
  buf[k] = '\0';
  v = strtoul (buf, &end, 10);
  return end != buf && v < 64 ? (unsigned)v : 63;
}

static int
ensure_parents (const char *path, rc_err_t *err)
{
  char buf[4096];
  char *p;
  if (strlen (path) >= sizeof buf)
    return rc_error_set (err, ENAMETOOLONG, "state dir too long");
  strcpy (buf, path);
  for (p = buf + 1; (p = strchr (p, '/')) != NULL; p++)
    {
      *p = '\0';
      if (mkdir (buf, 0755) < 0 && errno != EEXIST)
        return rc_error_sys (err, "mkdir %s", buf);
      *p = '/';
    }
  return 0;
}

/* A network namespace with only lo (up), kept alive by the returned fd.
 * Made by stepping the worker into a fresh namespace and straight back:
 * no helper process, four system calls.  Sockets the worker already has
 * keep their own namespace either way. */
static int
netns_create (int *out, rc_err_t *err)
{
  int orig = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), fd = -1, saved = 0;
  if (orig < 0)
    return rc_error_sys (err, "sandbox: netns errno=%d: open /proc/self/ns/net", errno);
  if (unshare (CLONE_NEWNET) < 0)
    {
      saved = errno;
      close (orig);
      errno = saved;
      return rc_error_sys (err, "sandbox: netns errno=%d: unshare", errno);
    }
  fd = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || rc_net_lo_up () < 0)
    saved = errno ? errno : EIO;
  if (setns (orig, CLONE_NEWNET) < 0)
    {
      /* Stuck in the empty namespace: the worker must not go on. */
      saved = errno;
      close (orig);
      if (fd >= 0)
        close (fd);
      errno = saved;
      return rc_error_sys (err, "sandbox: netns errno=%d: setns back", errno);
    }
  close (orig);
  if (saved)
    {
      if (fd >= 0)
        close (fd);
      errno = saved;
      return rc_error_sys (err, "sandbox: netns errno=%d", errno);
    }
  *out = fd;
  return 0;
}

/* The slots' network namespaces, made once by the master in host setup and
 * inherited by every worker it forks (a worker dups them in
 * rc_sandbox_open).  One per slot, not per worker: a slot runs one job at
 * a time whichever worker holds it.  Process-wide because host setup has
 * nowhere else to keep them; a worker whose master did not make them
 * creates its own lazily. */
static int *host_netns;
static unsigned host_netns_n;

static void
host_netns_close (void)
{
  for (unsigned i = 0; i < host_netns_n; i++)
    if (host_netns[i] >= 0)
      close (host_netns[i]);
  free (host_netns);
  host_netns = NULL;
  host_netns_n = 0;
}

/* The service's cgroup tree, as setup, every worker and teardown see it. */
static struct rc_cgroup_tree
cgroup_tree_of (const struct rc_config *cfg)
{
  return (struct rc_cgroup_tree){ .name = cfg->cgroup_name,
                                  .n_slots = cfg->concurrency,
                                  .pids_max = cfg->pids_max,
                                  .total_max = cfg->memory_total_max };
}

int
rc_sandbox_host_setup (const struct rc_config *cfg, enum rc_sandbox_mode *mode, rc_err_t *err)
{
  char skel[4096];

  if (!cfg->sandbox)
    {
      *mode = RC_SANDBOX_UNSANDBOXED;
      return 0;
    }
  if (geteuid () != 0)
    {
      if (cfg->sandbox_required)
        return rc_error_set (err, EPERM, "RUN_SANDBOX=on: the sandbox needs root (euid %ld)",
                             (long)geteuid ());
      *mode = RC_SANDBOX_UNSANDBOXED;
      return 0;
    }
  *mode = RC_SANDBOX_ISOLATED;
  if (cfg->state_dir == NULL || cfg->state_dir[0] != '/')
    return rc_error_set (err, EINVAL, "RUN_STATE_DIR must be an absolute path");
  {
    const struct rc_cgroup_tree tree = cgroup_tree_of (cfg);
    if (rc_cgroup_setup_tree (&tree, err) < 0)
      return rc_error_wrap (err, "sandbox host setup");
  }
  if (ensure_parents (cfg->state_dir, err) < 0 || ensure_root_dir (cfg->state_dir, 0700, err) < 0)
    return rc_error_wrap (err, "sandbox host setup");
  snprintf (skel, sizeof skel, "%s/skel", cfg->state_dir);
  if (ensure_root_dir (skel, 0700, err) < 0)
    return rc_error_wrap (err, "sandbox host setup");
  /* The mount point of every job's workspace; empty and never written. */
  if (ensure_root_dir ("/sandbox", 0755, err) < 0)
    return rc_error_wrap (err, "sandbox host setup");
  host_netns_close ();
  host_netns = malloc ((cfg->concurrency ? cfg->concurrency : 1) * sizeof (int));
  if (host_netns == NULL)
    return rc_error_set (err, ENOMEM, "sandbox host setup");
  for (host_netns_n = 0; host_netns_n < cfg->concurrency; host_netns_n++)
    if (netns_create (&host_netns[host_netns_n], err) < 0)
      {
        host_netns_close ();
        return rc_error_wrap (err, "sandbox host setup");
      }
  return 0;
}

void
rc_sandbox_host_teardown (const struct rc_config *cfg)
{
  host_netns_close ();
  if (geteuid () == 0 && cfg->sandbox)
    {
      const struct rc_cgroup_tree tree = cgroup_tree_of (cfg);
      rc_cgroup_teardown_tree (&tree);
    }
}

int
rc_sandbox_open (struct rc_sandbox **out, const struct rc_config *cfg, enum rc_sandbox_mode mode,
                 rc_err_t *err)
{
  struct rc_sandbox *sb = calloc (1, sizeof (*sb));
  if (sb == NULL)
    return rc_error_set (err, ENOMEM, "sandbox open");
  sb->cfg = cfg;
  sb->warm_ctl = -1;
  sb->root_tpl = -1;
  sb->mode = mode;
  if (mode == RC_SANDBOX_ISOLATED)
    {
      if (rc_cgroup_detect_mode (&sb->cgmode, err) < 0)
        goto fail;
      if (rc_seccomp_build (&sb->seccomp, err) < 0)
        goto fail;
      sb->have_seccomp = true;
      sb->n_slots = cfg->concurrency;
      sb->slots = calloc (sb->n_slots ? sb->n_slots : 1, sizeof (*sb->slots));
      sb->slot_verified = calloc (sb->n_slots ? sb->n_slots : 1, sizeof (bool));
      sb->netns = malloc ((sb->n_slots ? sb->n_slots : 1) * sizeof (int));
      sb->dying_init = calloc (sb->n_slots ? sb->n_slots : 1, sizeof (pid_t));
      sb->init_area = calloc (sb->n_slots ? sb->n_slots : 1, sizeof (void *));
      sb->cap_last = read_cap_last ();
      if (sb->slots == NULL || sb->slot_verified == NULL || sb->netns == NULL
          || sb->dying_init == NULL || sb->init_area == NULL)
        {
          rc_error_set (err, ENOMEM, "sandbox open");
          goto fail;
        }
      for (unsigned i = 0; i < sb->n_slots; i++)
        sb->netns[i] = i < host_netns_n ? fcntl (host_netns[i], F_DUPFD_CLOEXEC, 3) : -1;
    }
  else
    rc_log (RC_LOG_WARN, "sandbox_unsafe",
            "UNSANDBOXED mode: jobs run as uid %ld with no isolation (not root or "
            "RUN_SANDBOX=off); for development only",
            (long)geteuid ());
  *out = sb;
  return 0;
fail:
  rc_sandbox_close (sb);
  return -1;
}

void
rc_sandbox_close (struct rc_sandbox *sb)
{
  size_t i;
  if (sb == NULL)
    return;
  rc_sandbox_warm_stop (sb);
  rc_root_template_close (sb);
  rc_job_arena_free (sb->arena);
  for (i = 0; sb->dying_init && i < sb->n_slots; i++)
    rc_sandbox_reap_dying (sb, (int)i);
  free (sb->dying_init);
  rc_sandbox_init_areas_free (sb);
  for (i = 0; i < sb->n_slots; i++)
    if (sb->slots[i])
      rc_cgroup_slot_close (sb->slots[i]);
  free (sb->slots);
  free (sb->slot_verified);
  for (i = 0; sb->netns && i < sb->n_slots; i++)
    if (sb->netns[i] >= 0)
      close (sb->netns[i]);
  free (sb->netns);
  for (i = 0; i < sb->n_skels; i++)
    {
      free (sb->skels[i].template_dir);
      free (sb->skels[i].skel_dir);
    }
  free (sb->skels);
  if (sb->have_seccomp)
    rc_seccomp_free (&sb->seccomp);
  free (sb);
}

void
rc_sandbox_set_prestart (struct rc_sandbox *sb, enum rc_prestart how)
{
  sb->prestart = sb->mode == RC_SANDBOX_ISOLATED ? how : RC_PRESTART_OFF;
  if (sb->prestart == RC_PRESTART_OFF)
    rc_sandbox_warm_stop (sb);
}

void
rc_sandbox_set_resident (struct rc_sandbox *sb, bool on)
{
  sb->resident_on = on && sb->mode == RC_SANDBOX_ISOLATED && sb->cfg->resident_init;
  if (!sb->resident_on && sb->warm_resident)
    rc_sandbox_warm_stop (sb);
}

int
rc_sandbox_resident_slot (const struct rc_sandbox *sb)
{
  return sb->warm_pid > 0 && sb->warm_resident ? sb->warm_slot : -1;
}

enum rc_sandbox_mode
rc_sandbox_mode_of (const struct rc_sandbox *sb)
{
  return sb->mode;
}

int
rc_sandbox_drop_bounding (struct rc_sandbox *sb, rc_err_t *err)
{
  /* The bounding set only limits what an exec may gain: this process
   * keeps its effective capabilities (mounts, setns, the slot uid), and
   * every init and job child it clones inherits the empty set, so the
   * job's child only checks it (rc_child_lock_caps) instead of dropping
   * each capability again.  What this process execs itself (a
   * toolchain's version command for /v1/languages) runs as root without
   * capabilities.  Every number up to the kernel's last: the drop of the
   * first number past it fails with EINVAL, which ends the loop should
   * cap_last_cap have been unreadable. */
  if (sb->mode != RC_SANDBOX_ISOLATED || sb->bounding_empty)
    return 0;
  for (unsigned long c = 0; c <= sb->cap_last && c < 64; c++)
    if (prctl (PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
      {
        if (errno == EINVAL && c > 0)
          {
            sb->cap_last = (unsigned)c - 1;
            break;
          }
        return rc_error_sys (err, "sandbox: capability bounding set errno=%d", errno);
      }
  sb->bounding_empty = true;
  return 0;
}

int
rc_sandbox_get_slot (struct rc_sandbox *sb, int slot, struct rc_cgroup_slot **out, rc_err_t *err)
{
  if (slot < 0 || (unsigned)slot >= sb->n_slots)
    return rc_error_set (err, EINVAL, "sandbox: slot %d errno=%d: out of range", slot, EINVAL);
  if (sb->slots[slot] == NULL)
    {
      const struct rc_cgroup_tree tree = cgroup_tree_of (sb->cfg);
      if (rc_cgroup_slot_open (&sb->slots[slot], &tree, (unsigned)slot, err) < 0)
        return rc_error_wrap (err, "sandbox: cgroup slot errno=%d", (*err)->status);
    }
  if (sb->netns[slot] < 0 && netns_create (&sb->netns[slot], err) < 0)
    return -1;
  *out = sb->slots[slot];
  return 0;
}

static int
check_spec (const struct rc_job_spec *spec, rc_err_t *err)
{
  size_t i;
  if (spec->n_steps == 0 || spec->n_steps > RC_SANDBOX_MAX_STEPS)
    return rc_error_set (err, EINVAL, "sandbox: job errno=%d: %zu steps (1..%d)", EINVAL,
                         spec->n_steps, RC_SANDBOX_MAX_STEPS);
  for (i = 0; i < spec->n_steps; i++)
    if (spec->steps[i].argv == NULL || spec->steps[i].argv[0] == NULL)
      return rc_error_set (err, EINVAL, "sandbox: job errno=%d: step %zu has no argv", EINVAL, i);
  if (spec->envp == NULL)
    return rc_error_set (err, EINVAL, "sandbox: job errno=%d: no environment", EINVAL);
  if (spec->workspace == RC_WORKSPACE_TEMPLATE && spec->template_dir != NULL
      && spec->template_dir[0] != '/')
    return rc_error_set (err, EINVAL, "sandbox: job errno=%d: template dir must be absolute",
                         EINVAL);
  if (spec->workspace == RC_WORKSPACE_BIND && spec->bind_dirfd < 0)
    return rc_error_set (err, EINVAL, "sandbox: job errno=%d: no session directory", EINVAL);
  return 0;
}

int
rc_sandbox_run (struct rc_sandbox *sb, const struct rc_job_spec *spec, struct rc_job_result *res,
                rc_err_t *err)
{
  memset (res, 0, sizeof (*res));
  if (check_spec (spec, err) < 0)
    return -1;
  if (sb->mode == RC_SANDBOX_ISOLATED)
    return rc_isolated_run (sb, spec, res, err);
  return rc_unsandboxed_run (sb, spec, res, err);
}

/* Whether a process other than the probe has uid as its real uid.  A
 * vfork child takes the uid (dropping every capability with root), caps
 * its RLIMIT_NPROC at 2 and vforks once more: the kernel counts the
 * processes of each real uid and refuses that fork (EAGAIN) exactly when
 * a third one exists besides the probe and the new child.  Per process a
 * counter the kernel keeps anyway, where a walk of /proc cost an fstatat
 * per process (0.3 ms on an idle host, milliseconds on a busy one).
 * 1 yes, 0 no, -1 with errno set when the probe could not run. */
static int
uid_has_processes (uid_t uid)
{
  int st = 0;
  pid_t pid = vfork ();
  if (pid == 0)
    {
      struct rlimit two = { 2, 2 };
      long r = rc_raw_syscall4 (SYS_setresuid, (long)uid, (long)uid, (long)uid, 0);
      if (r < 0 || rc_raw_syscall4 (SYS_prlimit64, 0, RLIMIT_NPROC, (long)&two, 0) < 0)
        _exit (2);
      r = rc_raw_syscall4 (SYS_vfork, 0, 0, 0, 0);
      if (r == 0)
        _exit (0);
      if (r > 0)
        {
          while (rc_raw_syscall4 (SYS_wait4, r, 0, 0, 0) == -EINTR)
            ;
          _exit (0);
        }
      _exit (r == -EAGAIN ? 1 : 2);
    }
  if (pid < 0)
    return -1;
  while (waitpid (pid, &st, 0) < 0)
    if (errno != EINTR)
      return -1;
  if (!WIFEXITED (st) || WEXITSTATUS (st) > 1)
    {
      errno = EPERM;
      return -1;
    }
  return WEXITSTATUS (st);
}

/* A finished job's init is killed at once but reaped here, so that the
 * teardown of its namespaces (the pid namespace's processes, the mount
 * tree, one RCU grace period) is not on the request's path: the service
 * answers first and cleans the slot after (fcgi/jobs_wait.c). */
void
rc_sandbox_reap_dying (struct rc_sandbox *sb, int slot)
{
  pid_t pid;
  if (sb->dying_init == NULL || slot < 0 || (unsigned)slot >= sb->n_slots)
    return;
  pid = sb->dying_init[slot];
  if (pid <= 0)
    return;
  while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
    ;
  sb->dying_init[slot] = 0;
}

int
rc_sandbox_slot_clean (struct rc_sandbox *sb, int slot, rc_err_t *err)
{
  struct rc_cgroup_slot *cg;
  bool empty = false, scan;
  pid_t resident;
  uid_t uid;
  int n;

  if (sb->mode != RC_SANDBOX_ISOLATED)
    return 0;
  if (rc_sandbox_get_slot (sb, slot, &cg, err) < 0)
    return -1;
  rc_sandbox_reap_dying (sb, slot);
  /* Resident inits stay in their slots between jobs (spawn.c): once this
   * worker's has cleared its job away, the slot must hold nothing but
   * idle inits, it and perhaps another worker's. */
  resident = rc_sandbox_resident_settle (sb, slot);
  if (rc_cgroup_slot_holds_only_inits (cg, resident, &empty, err) < 0)
    return rc_error_wrap (err, "slot %d", slot);
  if (!empty && resident > 0)
    rc_sandbox_warm_stop (sb); /* the cgroup kill below takes it too */
  /* The uid check runs when this handle first sees the slot (another
   * process may have held it) and whenever something was left behind.
   * Otherwise the empty cgroup is the proof: a job's processes cannot
   * leave it. */
  scan = !empty || !sb->slot_verified[slot];
  if (!empty)
    {
      if (rc_cgroup_slot_kill_all (cg, 2000, err) < 0)
        return rc_error_wrap (err, "slot %d not clean", slot);
      if (rc_cgroup_slot_is_empty (cg, &empty, err) < 0)
        return rc_error_wrap (err, "slot %d", slot);
      if (!empty)
        return rc_error_set (err, EBUSY, "slot %d not clean: processes left in its cgroup", slot);
    }
  if (!scan)
    return 0;
  /* Processes of the slot uid outside the slot cgroup are not ours to
   * kill (another runner sharing RUN_UID_BASE, an operator's mistake):
   * the slot is refused instead, so two jobs never share a uid. */
  uid = rc_slot_uid (sb->cfg, slot);
  n = uid_has_processes (uid);
  if (n < 0)
    return rc_error_sys (err, "slot %d: cannot look for processes of uid %ld", slot, (long)uid);
  if (n > 0)
    return rc_error_set (err, EBUSY, "slot %d not clean: processes of uid %ld outside its cgroup",
                         slot, (long)uid);
  sb->slot_verified[slot] = true;
  return 0;
}
