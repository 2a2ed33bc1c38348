/* sandbox.c - the sandbox library's life cycle: host setup, the handle,
 * dispatch of a job to the isolated or the unsandboxed implementation.
 *
 * THEORY OF OPERATION (isolated mode)
 *
 * Processes:
 *
 *   keeper (the master, or `runcell exec`; root, host namespaces)
 *    └─ one init per slot (slot/init.c; root; pid 1 of its own pid
 *       │   namespace; its own mount, ipc, uts and network namespaces; its
 *       │   own root, pivoted into; v2: in slot<N>/init, v1: in slot<N>)
 *       └─ a job's processes: each step's first process is cloned by the
 *          init (CLONE_VM | CLONE_VFORK; v2: into slot<N>/step<I>), then
 *          drops to uid BASE+N, no groups, no capabilities,
 *          no_new_privs, rlimits, seccomp, and execs; never pid 1, its own
 *          session without a controlling tty
 *   worker (root, host namespaces): claims a slot, sends it a job over the
 *          init's control socket and supervises it (process/run.c)
 *
 * Who is root: the keeper, the workers and the inits.  An init runs no code
 * of a job and is invisible to it (/proc is mounted hidepid=2 and the job
 * runs as another uid); it serves one job after another of any language,
 * and between two of them resets every piece of state a job can observe
 * (docs/sandbox.md, "The per-job contract"), so a job finds its slot as a
 * fresh one.  A slot whose reset fails is broken: its init exits and the
 * keeper starts another.
 *
 * Channels:
 *   - the slot table (MAP_SHARED, slot/slot_table.h): each slot's state
 *     (cold, starting, ready, running, cleaning, broken), claim sequence
 *     and owner; a futex word for claimers waiting for a ready slot;
 *   - per claim, a SOCK_SEQPACKET connection to the slot's init
 *     (<state>/slot<N>.sock, root-only), carrying the protocol of
 *     slot/ctl.h: JOB (its spec in a memfd, its pipe ends), GO, KILL,
 *     SIGNAL, END one way; STARTED (with the step's cgroup meter), EXITED,
 *     FAIL the other;
 *   - per step: stdin (only when the step has input; otherwise the child
 *     opens the sandbox's /dev/null), stdout and stderr pipes, made by the
 *     worker; the init holds the child's ends until it starts the step;
 *   - an error pipe (CLOEXEC, init <- child) per step: the child writes
 *     "sandbox: <step> errno=N" if its setup fails; EOF means it exec'd.
 *
 * The worker supervises (process/supervise.c): it writes stdin
 * non-blocking, reads output under the caps, runs the wall, idle and CPU
 * clocks (CPU from the step's cgroup, through the meter's fds) and, when
 * one fires, has the init kill every process of the job (and on v2 writes
 * the step's cgroup.kill).  It answers its client, then sends END; the init
 * clears the job away on its own and marks the slot ready.  The host mount
 * table never changes: every mount lives in an init's namespace.
 *
 * Host setup (keeper, once): the cgroup subtree and slots (cgroup/), the
 * root-only state directory (the inits' sockets), and the empty directory
 * /sandbox, the mount point each init builds its root on.
 */
#include "config.h"

#include "common/log.h"
#include "sandbox/host/syscalls.h"
#include "sandbox/process/process.h"
#include "sandbox/sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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

/* The highest capability number this kernel knows; 63 when unreadable. */
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

/* The service's cgroup tree, as setup, the keeper and teardown see it. */
struct rc_cgroup_tree
rc_sandbox_cgroup_tree (const struct rc_config *cfg)
{
  return (struct rc_cgroup_tree){ .name = cfg->cgroup_name,
                                  .n_slots = cfg->concurrency,
                                  .pids_max = cfg->pids_max,
                                  .total_max = cfg->memory_total_max };
}

int
rc_sandbox_host_setup (const struct rc_config *cfg, enum rc_sandbox_mode *mode, rc_err_t *err)
{
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
    const struct rc_cgroup_tree tree = rc_sandbox_cgroup_tree (cfg);
    if (rc_cgroup_setup_tree (&tree, err) < 0)
      return rc_error_wrap (err, "sandbox host setup");
  }
  if (ensure_parents (cfg->state_dir, err) < 0 || ensure_root_dir (cfg->state_dir, 0700, err) < 0)
    return rc_error_wrap (err, "sandbox host setup");
  /* The mount point of every slot's root; empty and never written. */
  if (ensure_root_dir (RC_ROOT_NR, 0755, err) < 0)
    return rc_error_wrap (err, "sandbox host setup");
  return 0;
}

void
rc_sandbox_host_teardown (const struct rc_config *cfg)
{
  if (geteuid () == 0 && cfg->sandbox)
    {
      const struct rc_cgroup_tree tree = rc_sandbox_cgroup_tree (cfg);
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
  sb->mode = mode;
  sb->n_slots = cfg->concurrency;
  sb->keeper_pidfd = -1;
  if (mode == RC_SANDBOX_ISOLATED)
    {
      if (rc_cgroup_detect_mode (&sb->cgmode, err) < 0)
        goto fail;
      if (rc_seccomp_build (&sb->seccomp, err) < 0)
        goto fail;
      sb->have_seccomp = true;
      sb->cap_last = read_cap_last ();
      sb->sock_paths = calloc (sb->n_slots + 1, sizeof (char *));
      if (sb->sock_paths == NULL)
        {
          rc_error_set (err, ENOMEM, "sandbox open");
          goto fail;
        }
      for (unsigned i = 0; i < sb->n_slots; i++)
        if (asprintf (&sb->sock_paths[i], "%s/slot%u.sock", cfg->state_dir, i) < 0)
          {
            sb->sock_paths[i] = NULL;
            rc_error_set (err, ENOMEM, "sandbox open");
            goto fail;
          }
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
  if (sb == NULL)
    return;
  if (sb->keeper)
    rc_sandbox_keeper_stop (sb);
  for (unsigned i = 0; sb->sock_paths && i < sb->n_slots; i++)
    free (sb->sock_paths[i]);
  free (sb->sock_paths);
  for (unsigned i = 0; sb->ks && i < sb->n_slots; i++)
    rc_cgroup_slot_close (sb->ks[i].cg);
  free (sb->ks);
  free (sb->plan_langs);
  free (sb->plan_host_paths);
  if (sb->have_seccomp)
    rc_seccomp_free (&sb->seccomp);
  free (sb);
}

enum rc_sandbox_mode
rc_sandbox_mode_of (const struct rc_sandbox *sb)
{
  return sb->mode;
}

uid_t
rc_slot_uid (const struct rc_config *cfg, int slot)
{
  return (uid_t)(cfg->uid_base + (unsigned)slot);
}

int
rc_sandbox_drop_bounding (struct rc_sandbox *sb, rc_err_t *err)
{
  /* The bounding set only limits what an exec may gain: this process
   * keeps its effective capabilities.  What it execs itself (a
   * toolchain's version command for /v1/languages) runs as root without
   * capabilities.  The inits empty their own set when they start
   * (slot/init.c), and each job's first process checks it is empty
   * (rc_child_lock_caps); the keeper keeps its set. */
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

static int
check_spec (const struct rc_job_spec *spec, rc_err_t *err)
{
  size_t i;
  if (spec->n_steps == 0 || spec->n_steps > 16)
    return rc_error_set (err, EINVAL, "sandbox: job errno=%d: %zu steps (1..16)", EINVAL,
                         spec->n_steps);
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
rc_sandbox_run (struct rc_sandbox *sb, const struct rc_job_spec *spec, uint32_t claim_seq,
                struct rc_job_result *res, rc_err_t *err)
{
  struct rc_run *r = NULL;
  int ret = 0;

  memset (res, 0, sizeof (*res));
  if (check_spec (spec, err) < 0)
    {
      rc_sandbox_release (sb, spec->slot, claim_seq);
      return -1;
    }
  if (sb->mode != RC_SANDBOX_ISOLATED)
    {
      ret = rc_unsandboxed_run (sb, spec, res, err);
      rc_sandbox_release (sb, spec->slot, claim_seq);
      return ret;
    }
  if (rc_run_start (sb, spec, claim_seq, NULL, &r, err) < 0)
    return -1;
  while (ret == 0)
    {
      struct pollfd pfd[RC_RUN_POLLFDS];
      int timeout;
      size_t n = rc_run_pollfds (r, pfd, &timeout);
      if (poll (pfd, (nfds_t)n, timeout) < 0 && errno != EINTR)
        {
          rc_run_stop (r, RC_OUTCOME_SANDBOX);
          continue;
        }
      ret = rc_run_handle (r, pfd, n, err);
    }
  if (ret < 0)
    {
      struct rc_job_result partial;
      (void)rc_run_finish (r, &partial, NULL);
      rc_job_result_free (&partial);
      return -1;
    }
  return rc_run_finish (r, res, err);
}
