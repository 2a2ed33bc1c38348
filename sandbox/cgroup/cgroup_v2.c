/* cgroup_v2.c - slot cgroups on a unified (pure cgroup2) host.
 *
 * Layout, all below the cgroup runcell starts in ("own", from the "0::"
 * line of /proc/self/cgroup):
 *   own/<name>                 memory.max: all slots together
 *   own/<name>/slot<N>         pids.max, memory.swap.max 0, cpu.weight 100;
 *                              hands memory, pids and cpu to its leaves
 *   own/<name>/slot<N>/init    the slot's init (born there: the keeper
 *                              clones it with CLONE_INTO_CGROUP)
 *   own/<name>/slot<N>/step<I> step I of the current job: memory.max,
 *                              pids.max, memory.oom.group 1 (an OOM kills
 *                              the whole step, not one random process)
 *   own/<name>/service         only when needed, see below
 *
 * Why a leaf per step, made fresh for each job: every counter a job can
 * read or we report (memory.peak, memory.events, cpu.stat, pids.events,
 * memory.stat) then starts at zero, on every kernel: memory.peak became
 * resettable only in 6.12, and nothing else can be reset at all.  Pages an
 * earlier job left in the page cache stay charged to its removed leaf, so
 * they are neither in a later job's usage nor against its limit (issue 29).
 * The step's first process is cloned into its leaf (CLONE_INTO_CGROUP): no
 * migration, whose write lock costs an RCU grace period.  The next job's
 * first leaf is made, and its files opened, while the slot is cleaned.
 *
 * The "no internal processes" rule: a non-root cgroup that hands
 * controllers to its children may not contain processes itself.  If own
 * already hands them on (systemd Delegate=, or a container runtime did it)
 * nothing moves.  If enabling fails with EBUSY because we are in own, the
 * calling process (the master, before it forks anything) moves itself into
 * own/<name>/service and retries.  Only our own pid is moved; teardown
 * undoes the move.
 *
 * Exercised by t/unit/cgroup_test on a pure-v2 guest (Debian's 6.1 kernel
 * under qemu, make check-vm).
 */
#include "config.h"

#include "sandbox/cgroup/cgroup_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const needed[] = { "memory", "pids", "cpu" };
#define ENABLE_ALL "+memory +pids +cpu"
#define DISABLE_ALL "-memory -pids -cpu"

/* The files of a step leaf its meter reads, in enum rc_cgroup_meter_fd
 * order. */
static const char *const meter_files[RC_CG_METER_FDS]
    = { "cpu.stat", "memory.peak", "memory.events", "memory.current", "memory.stat",
        "cgroup.kill" };

/* Our own cgroup2 directory: the cgroup we started in.  Once setup has
 * moved the service into <name>/service, /proc/self/cgroup says so (and
 * so it does for the processes forked after setup), so that suffix is
 * stripped to find the same "own" again. */
static int
own_dir_v2 (const char *name, char **own, rc_err_t *err)
{
  char *dir = NULL;
  size_t len, slen;
  cleanup_free char *suffix = NULL;

  if (rc_cg_own_dir (NULL, &dir, NULL, err) < 0)
    return -1;
  if (asprintf (&suffix, "/%s/service", name) < 0)
    {
      free (dir);
      return rc_error_sys (err, "cgroup: asprintf");
    }
  len = strlen (dir);
  slen = strlen (suffix);
  if (len > slen && strcmp (dir + len - slen, suffix) == 0)
    dir[len - slen] = '\0';
  *own = dir;
  return 0;
}

static int
controllers_ok (const char *own, rc_err_t *err)
{
  char list[512];

  if (rc_cg_read_file (own, "cgroup.controllers", list, sizeof (list), err) < 0)
    return -1;
  for (size_t i = 0; i < sizeof (needed) / sizeof (needed[0]); i++)
    if (!rc_cg_list_has (list, needed[i]))
      return rc_error_set (err, ENOENT, "cgroup: controller %s not available in %s", needed[i],
                           own);
  return 0;
}

static bool
subtree_has_all (const char *dir)
{
  char list[512];

  if (rc_cg_read_file (dir, "cgroup.subtree_control", list, sizeof (list), NULL) < 0)
    return false;
  for (size_t i = 0; i < sizeof (needed) / sizeof (needed[0]); i++)
    if (!rc_cg_list_has (list, needed[i]))
      return false;
  return true;
}

static int
move_self (const char *dir, rc_err_t *err)
{
  char pid[24];

  snprintf (pid, sizeof (pid), "%d", (int)getpid ());
  return rc_cg_write_file (dir, "cgroup.procs", pid, err);
}

/* Enables the controllers in own for <name>, moving ourselves out of own
 * when the no-internal-process rule demands it. */
static int
enable_in_own (const char *own, const char *base, rc_err_t *err)
{
  cleanup_free char *service = NULL;

  if (subtree_has_all (own))
    return 0;
  if (rc_cg_write_file (own, "cgroup.subtree_control", ENABLE_ALL, NULL) == 0)
    return 0;
  if (errno != EBUSY)
    return rc_error_sys (err, "cgroup: enable controllers in %s/cgroup.subtree_control", own);
  if (asprintf (&service, "%s/service", base) < 0)
    return rc_error_sys (err, "cgroup: asprintf");
  if (mkdir (service, 0755) < 0 && errno != EEXIST)
    return rc_error_sys (err, "cgroup: mkdir %s", service);
  if (move_self (service, err) < 0)
    return rc_error_wrap (err, "cgroup: moving the service out of %s", own);
  if (rc_cg_write_file (own, "cgroup.subtree_control", ENABLE_ALL, err) < 0)
    return rc_error_wrap (err,
                          "cgroup: %s still holds processes that are not runcell's (no "
                          "internal processes rule)",
                          own);
  return 0;
}

/* Removes what a slot directory holds (step leaves, the init's leaf). */
static void
empty_slot_dir (const char *dir)
{
  DIR *d = opendir (dir);
  struct dirent *de;
  if (d == NULL)
    return;
  while ((de = readdir (d)) != NULL)
    {
      cleanup_free char *sub = NULL;
      if (de->d_type != DT_DIR || de->d_name[0] == '.')
        continue;
      if (asprintf (&sub, "%s/%s", dir, de->d_name) >= 0)
        rc_cg_remove_dir (sub);
    }
  closedir (d);
}

static int
setup_slot (const char *dir, uint64_t pids_max, rc_err_t *err)
{
  char val[32];
  struct stat st;
  cleanup_free char *swap = NULL;
  cleanup_free char *init = NULL;

  if (mkdir (dir, 0755) < 0 && errno != EEXIST)
    return rc_error_sys (err, "cgroup: mkdir %s", dir);
  /* A slot left by a service that died: its leaves go (whatever is in
   * them is killed), so the subtree control can be set. */
  empty_slot_dir (dir);
  if (pids_max == 0)
    snprintf (val, sizeof (val), "max");
  else
    snprintf (val, sizeof (val), "%" PRIu64, pids_max);
  if (asprintf (&swap, "%s/memory.swap.max", dir) < 0 || asprintf (&init, "%s/init", dir) < 0)
    return rc_error_sys (err, "cgroup: asprintf");
  /* memory.swap.max is missing only without swap support (CONFIG_SWAP or
   * swap accounting off), where there is nothing to bypass the limit.
   * Set here, it holds for every leaf below. */
  if (stat (swap, &st) == 0 && rc_cg_write_file (dir, "memory.swap.max", "0", err) < 0)
    return -1;
  if (rc_cg_write_file (dir, "pids.max", val, err) < 0
      || rc_cg_write_file (dir, "cpu.weight", "100", err) < 0
      || (!subtree_has_all (dir)
          && rc_cg_write_file (dir, "cgroup.subtree_control", ENABLE_ALL, err) < 0))
    return -1;
  if (mkdir (init, 0755) < 0 && errno != EEXIST)
    return rc_error_sys (err, "cgroup: mkdir %s", init);
  return 0;
}

static int
v2_setup_tree (const struct rc_cgroup_tree *tree, rc_err_t *err)
{
  const char *name = tree->name;
  uint64_t total_max = tree->total_max;
  cleanup_free char *own = NULL;
  cleanup_free char *base = NULL;
  char cap[32];

  if (own_dir_v2 (name, &own, err) < 0 || controllers_ok (own, err) < 0)
    return -1;
  if (asprintf (&base, "%s/%s", own, name) < 0)
    return rc_error_sys (err, "cgroup: asprintf");
  if (mkdir (base, 0755) < 0 && errno != EEXIST)
    return rc_error_sys (err, "cgroup: mkdir %s", base);
  if (enable_in_own (own, base, err) < 0)
    return -1;
  if (!subtree_has_all (base)
      && rc_cg_write_file (base, "cgroup.subtree_control", ENABLE_ALL, err) < 0)
    return -1;
  /* All slots together stay below the host's (or the unit's) memory.  When
   * the service had to move into <name>/service it is under this cap too;
   * a job (oom_score_adj 1000, memory.oom.group) is then the OOM killer's
   * first choice. */
  if (total_max == 0)
    total_max = rc_cgroup_total_auto (own, true);
  snprintf (cap, sizeof cap, "%" PRIu64, total_max);
  if (rc_cg_write_file (base, "memory.max", cap, err) < 0)
    return -1;
  for (unsigned s = 0; s < tree->n_slots; s++)
    {
      cleanup_free char *dir = NULL;
      if (asprintf (&dir, "%s/slot%u", base, s) < 0)
        return rc_error_sys (err, "cgroup: asprintf");
      if (setup_slot (dir, tree->pids_max, err) < 0)
        return -1;
    }
  return 0;
}

/* Whether our pid is listed in dir/cgroup.procs. */
static bool
self_in (const char *dir)
{
  char buf[4096], pid[24];
  size_t len;
  const char *p;

  if (rc_cg_read_file (dir, "cgroup.procs", buf, sizeof (buf), NULL) < 0)
    return false;
  len = (size_t)snprintf (pid, sizeof (pid), "%d", (int)getpid ());
  for (p = buf; p != NULL && *p != '\0'; p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL)
    if (strncmp (p, pid, len) == 0 && (p[len] == '\n' || p[len] == '\0'))
      return true;
  return false;
}

static void
v2_teardown_tree (const struct rc_cgroup_tree *tree)
{
  const char *name = tree->name;
  cleanup_free char *own = NULL;
  cleanup_free char *base = NULL;
  cleanup_free char *service = NULL;
  DIR *d;
  struct dirent *de;

  if (own_dir_v2 (name, &own, NULL) < 0 || asprintf (&base, "%s/%s", own, name) < 0)
    return;
  d = opendir (base);
  if (d == NULL)
    return;
  while ((de = readdir (d)) != NULL)
    {
      cleanup_free char *dir = NULL;
      if (de->d_type != DT_DIR || strncmp (de->d_name, "slot", 4) != 0)
        continue;
      if (asprintf (&dir, "%s/%s", base, de->d_name) < 0)
        continue;
      /* The whole slot first (cgroup.kill reaches the leaves), then the
       * leaves, then the slot. */
      (void)rc_cg_write_file (dir, "cgroup.kill", "1", NULL);
      empty_slot_dir (dir);
      rc_cg_remove_dir (dir);
    }
  closedir (d);
  if (asprintf (&service, "%s/service", base) >= 0 && self_in (service))
    {
      /* We moved ourselves here in setup because own could not enable the
       * controllers while holding us; undo it in reverse order. */
      (void)rc_cg_write_file (base, "cgroup.subtree_control", DISABLE_ALL, NULL);
      (void)rc_cg_write_file (own, "cgroup.subtree_control", DISABLE_ALL, NULL);
      (void)move_self (own, NULL);
    }
  if (service != NULL)
    (void)rmdir (service);
  rc_cg_remove_dir (base);
}

static int
v2_slot_open (struct rc_cgroup_slot *slot, const struct rc_cgroup_tree *tree, rc_err_t *err)
{
  cleanup_free char *own = NULL;
  const char *dir;

  if (own_dir_v2 (tree->name, &own, err) < 0)
    return -1;
  if (asprintf (&slot->path, "%s/%s/slot%u", own, tree->name, slot->index) < 0)
    {
      slot->path = NULL;
      return rc_error_sys (err, "cgroup: asprintf");
    }
  dir = slot->path;
  /* Not O_PATH: mkdirat and CLONE_INTO_CGROUP need real directory fds. */
  slot->v2_slot = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (slot->v2_slot < 0)
    return rc_error_sys (err, "cgroup: open slot %s", dir);
  slot->v2_init = openat (slot->v2_slot, "init", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (slot->v2_init < 0)
    return rc_error_sys (err, "cgroup: open %s/init", dir);
  slot->n_dirs = 1;
  slot->dirs[0] = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (slot->dirs[0] < 0)
    return rc_error_sys (err, "cgroup: open slot %s", dir);
  if ((slot->v2_events = rc_cg_open (slot->v2_slot, dir, "cgroup.events", O_RDONLY, err)) < 0
      || (slot->v2_kill = rc_cg_open (slot->v2_slot, dir, "cgroup.kill", O_WRONLY, err)) < 0)
    return rc_error_wrap (err, "cgroup v2 needs Linux 5.14 or later (cgroup.kill)");
  return 0;
}

static void
close_leaf (struct rc_cg2_leaf *l)
{
  for (int f = 0; f < RC_CG_METER_FDS; f++)
    rc_cg_close (&l->fd[f]);
  rc_cg_close (&l->memory_max);
  rc_cg_close (&l->pids_max);
  rc_cg_close (&l->dir);
}

static void
v2_slot_close (struct rc_cgroup_slot *slot)
{
  for (unsigned i = 0; i < RC_CG_MAX_STEPS; i++)
    close_leaf (&slot->v2_steps[i]);
  rc_cg_close (&slot->v2_slot);
  rc_cg_close (&slot->v2_init);
  rc_cg_close (&slot->v2_kill);
  rc_cg_close (&slot->v2_events);
  rc_cg_close (&slot->v2_view);
}

/* Makes leaf step<i> and opens what its steps use. */
static int
make_leaf (struct rc_cgroup_slot *slot, unsigned i, rc_err_t *err)
{
  struct rc_cg2_leaf *l = &slot->v2_steps[i];
  char name[16];
  int fd;

  snprintf (name, sizeof name, "step%u", i);
  if (mkdirat (slot->v2_slot, name, 0755) < 0 && errno != EEXIST)
    return rc_error_sys (err, "cgroup: mkdir %s/%s", slot->path, name);
  fd = openat (slot->v2_slot, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return rc_error_sys (err, "cgroup: open %s/%s", slot->path, name);
  l->dir = fd;
  if (rc_cg_write_at (fd, "memory.oom.group", "1", err) < 0)
    goto fail;
  for (int f = 0; f < RC_CG_METER_FDS; f++)
    {
      int flags = f == RC_CG_FD_KILL ? O_WRONLY : O_RDONLY;
      l->fd[f] = rc_cg_open (fd, name, meter_files[f], flags, err);
      if (l->fd[f] < 0)
        goto fail;
    }
  if ((l->memory_max = rc_cg_open (fd, name, "memory.max", O_WRONLY, err)) < 0
      || (l->pids_max = rc_cg_open (fd, name, "pids.max", O_WRONLY, err)) < 0)
    goto fail;
  return 0;
fail:
  close_leaf (l);
  (void)unlinkat (slot->v2_slot, name, AT_REMOVEDIR);
  return rc_error_wrap (err, "slot%u", slot->index);
}

/* Removes every step leaf (the job's processes are gone) and makes the
 * next job's first one. */
static int
v2_job_clear (struct rc_cgroup_slot *slot, bool *renewed, rc_err_t *err)
{
  DIR *d;
  struct dirent *de;
  int dfd;

  (void)renewed;
  /* The view first: a leaf that is still mounted there stays busy. */
  if (slot->view_target[0] != '\0')
    (void)umount2 (slot->view_target, MNT_DETACH);
  for (unsigned i = 0; i < RC_CG_MAX_STEPS; i++)
    close_leaf (&slot->v2_steps[i]);
  /* By name, not only the leaves this process made: a slot's first clear
   * also removes what an init before it left. */
  dfd = fcntl (slot->v2_slot, F_DUPFD_CLOEXEC, 3);
  d = dfd >= 0 ? fdopendir (dfd) : NULL;
  if (d == NULL)
    {
      if (dfd >= 0)
        close (dfd);
      return rc_error_sys (err, "cgroup: list %s", slot->path);
    }
  rewinddir (d);
  while ((de = readdir (d)) != NULL)
    if (de->d_type == DT_DIR && strncmp (de->d_name, "step", 4) == 0
        && rc_cg_remove_at (slot->v2_slot, de->d_name) < 0)
      {
        int e = errno;
        closedir (d);
        return rc_error_set (err, e, "cgroup: remove %s/%s errno=%d", slot->path, de->d_name, e);
      }
  closedir (d);
  return make_leaf (slot, 0, err);
}

static int
v2_slot_enter (struct rc_cgroup_slot *slot, rc_err_t *err)
{
  bool renewed;
  /* Born in its leaf; what an earlier init left goes. */
  return v2_job_clear (slot, &renewed, err);
}

/* The slot, bound in the init's own mount namespace at hidden_dir (a
 * directory that a later mount covers): the per-step views are binds of
 * its leaves, and a bind's source must be a mount of the caller's
 * namespace (the slot's fds are mounts of the keeper's). */
static int
v2_view_setup (struct rc_cgroup_slot *slot, const char *hidden_dir, rc_err_t *err)
{
  if (mount (slot->path, hidden_dir, NULL, MS_BIND, NULL) < 0)
    return rc_error_sys (err, "cgroup: bind %s", slot->path);
  slot->v2_view = open (hidden_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (slot->v2_view < 0)
    return rc_error_sys (err, "cgroup: open %s", hidden_dir);
  return 0;
}

static int
v2_step_prepare (struct rc_cgroup_slot *slot, unsigned step, uint64_t memory_bytes, uint64_t pids,
                 struct rc_cgroup_meter *meter, int *clone_fd, int *join_fd, bool *unmet,
                 rc_err_t *err)
{
  char mem[32], pid[32];

  struct rc_cg2_leaf *l = &slot->v2_steps[step];

  (void)unmet; /* a fresh leaf holds nothing: any limit can be met */
  (void)join_fd; /* born into its leaf */
  if (l->dir < 0 && make_leaf (slot, step, err) < 0)
    return -1;
  if (memory_bytes == 0)
    snprintf (mem, sizeof (mem), "max");
  else
    snprintf (mem, sizeof (mem), "%" PRIu64, memory_bytes);
  if (pids == 0)
    snprintf (pid, sizeof (pid), "max");
  else
    snprintf (pid, sizeof (pid), "%" PRIu64, pids);
  if (rc_cg_write_fd (l->memory_max, mem, "memory.max", err) < 0
      || rc_cg_write_fd (l->pids_max, pid, "pids.max", err) < 0)
    return rc_error_wrap (err, "slot%u step%u", slot->index, step);
  rc_cgroup_meter_init (meter);
  meter->v2 = 1;
  for (int f = 0; f < RC_CG_METER_FDS; f++)
    meter->fd[f] = l->fd[f]; /* the slot's: sent, not given away */
  meter->limit_bytes = memory_bytes;
  meter->refault_key = rc_cg_find_refault_key (meter->fd[RC_CG_FD_STAT], true);
  *clone_fd = l->dir;
  return 0;
}

/* The step's leaf at target, read-only.  The job's cgroup namespace is
 * rooted at the leaf (its first process unshares it there), so paths in
 * /proc/self/cgroup and this view agree: "/" is the step. */
static int
v2_step_view (struct rc_cgroup_slot *slot, unsigned step, const char *target,
              const char *mask_file, rc_err_t *err)
{
  char src[64];
  (void)mask_file;
  (void)umount2 (target, MNT_DETACH); /* the step before's, if any */
  snprintf (slot->view_target, sizeof slot->view_target, "%s", target);
  snprintf (src, sizeof src, "/proc/self/fd/%d/step%u", slot->v2_view, step);
  if (mount (src, target, NULL, MS_BIND, NULL) < 0
      || mount (NULL, target, NULL,
                MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)
             < 0)
    return rc_error_sys (err, "cgroup: view of step%u", step);
  return 0;
}

static int
v2_is_empty (struct rc_cgroup_slot *slot, bool *empty, rc_err_t *err)
{
  uint64_t populated;
  bool found;

  if (rc_cg_read_key_fd (slot->v2_events, "populated", &populated, &found, "cgroup.events", err)
      < 0)
    return -1;
  if (!found)
    return rc_cg_procs_empty (slot->dirs, slot->n_dirs, empty, err);
  *empty = populated == 0;
  return 0;
}

static int
v2_kill_all (struct rc_cgroup_slot *slot, unsigned timeout_ms, rc_err_t *err)
{
  uint64_t deadline = rc_now_ms () + timeout_ms;
  unsigned pause_us = 100;
  bool empty;

  if (rc_cg_write_fd (slot->v2_kill, "1", "cgroup.kill", err) < 0)
    return rc_error_wrap (err, "slot%u", slot->index);
  /* cgroup.kill is asynchronous: the tasks get SIGKILL, and "populated"
   * drops once the last one has exited. */
  for (;;)
    {
      if (v2_is_empty (slot, &empty, err) < 0)
        return rc_error_wrap (err, "slot%u", slot->index);
      if (empty)
        return 0;
      if (rc_now_ms () >= deadline)
        return rc_error_set (err, ETIMEDOUT, "cgroup: slot%u not empty %u ms after cgroup.kill",
                             slot->index, timeout_ms);
      rc_cg_sleep_us (pause_us);
      if (pause_us < 2000)
        pause_us *= 2;
    }
}

static int
v2_cpu_us (const struct rc_cgroup_meter *m, uint64_t *usage_us, rc_err_t *err)
{
  bool found;

  if (rc_cg_read_key_fd (m->fd[RC_CG_FD_CPU], "usage_usec", usage_us, &found, "cpu.stat", err) < 0)
    return -1;
  if (!found)
    return rc_error_set (err, EINVAL, "cgroup: cpu.stat has no usage_usec");
  return 0;
}

static int
v2_oom_kills (const struct rc_cgroup_meter *m, uint64_t *count, rc_err_t *err)
{
  uint64_t kills = 0, group = 0;
  bool found;

  if (rc_cg_read_key_fd (m->fd[RC_CG_FD_OOM], "oom_kill", &kills, &found, "memory.events", err)
      < 0)
    return -1;
  if (rc_cg_read_key_fd (m->fd[RC_CG_FD_OOM], "oom_group_kill", &group, &found, "memory.events",
                         err)
      < 0)
    return -1;
  /* With memory.oom.group the kernel counts the victim twice in oom_kill
   * (once as the victim, once as a group member: seen on 6.1), so a group
   * kill is one event; oom_kill alone covers kernels before 5.17. */
  *count = group > 0 ? group : kills;
  return 0;
}

const struct rc_cgroup_ops rc_cgroup_v2_ops = {
  .setup_tree = v2_setup_tree,
  .teardown_tree = v2_teardown_tree,
  .slot_open = v2_slot_open,
  .slot_close = v2_slot_close,
  .slot_enter = v2_slot_enter,
  .view_setup = v2_view_setup,
  .step_prepare = v2_step_prepare,
  .step_view = v2_step_view,
  .job_clear = v2_job_clear,
  .kill_all = v2_kill_all,
  .is_empty = v2_is_empty,
  .cpu_us = v2_cpu_us,
  .oom_kills = v2_oom_kills,
};
