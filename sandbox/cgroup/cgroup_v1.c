/* cgroup_v1.c - slot cgroups on the v1 hierarchies (hybrid and legacy
 * hosts, like the development and CI machines).
 *
 * Layout: in each of the memory, pids, cpuacct and cpu hierarchies,
 *   <own cgroup in that hierarchy>/<name>/slot<N>
 * and, in the memory hierarchy, the job's own memory cgroup below it,
 *   <own>/<name>/slot<N>/j<gen>
 * "own" comes from /proc/self/cgroup, so nothing is created outside the
 * cgroup runcell was started in.  Co-mounted hierarchies ("cpu,cpuacct")
 * get one directory.  All four are required: memory and pids for the
 * limits, cpuacct for the CPU clock, cpu so that slots compete as equal
 * groups (cpu.shares 1024).
 *
 * The slot's init lives in slot<N> of every hierarchy: it moves there once,
 * when it starts, and roots its cgroup namespace there.  A step's first
 * process joins j<gen> in the memory hierarchy before it execs (a v1
 * process cannot be born into a cgroup; writing "0" to `tasks` moves just
 * that thread, a few microseconds, where moving every hierarchy would cost
 * tens), then roots its own cgroup namespace there.  So, as on v2, the
 * init's own pages are never the job's: the job's limit, usage and peak
 * are its own, and a tiny limit can only ever kill the job.  The pids and
 * CPU hierarchies stay shared with the init (one process, idle while the
 * job runs).
 * What a job must find as a fresh job would (issue 29):
 *   - the resettable counters are reset before each step: the peak
 *     (memory.max_usage_in_bytes), memory.failcnt, the memsw twins, the
 *     CPU time (cpuacct.usage);
 *   - the counters v1 cannot reset are not readable in the job's view:
 *     memory.stat, memory.oom_control, memory.numa_stat, the kmem and
 *     kmem.tcp peaks and failure counts, pids.events, pids.peak are masked
 *     by an empty read-only file; we read them through our own fds;
 *   - pages an earlier job left charged (page cache of the files it read,
 *     dentries, a session's tmpfs) would count in a later job's usage and
 *     against its limit: when more than RC_CG1_NOISE bytes are charged to
 *     j<gen> once a job is gone, the slot gets a new j<gen+1> and the old
 *     one is removed, its pages still cached but charged to the dead
 *     cgroup.  A step's peak is measured from what was charged when it
 *     started (a compile step's /tmp stays).
 * There is no cgroup.kill on v1: the init's kill(-1) ends a job, and the
 * keeper's kill_all loops over cgroup.procs (rc_cg_kill_loop in
 * cgroup_files.c).
 */
#include "config.h"

#include "common/log.h"
#include "sandbox/cgroup/cgroup_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* What is charged between two jobs without being anything of a job's:
 * the per-CPU charge caches (the kernel pre-charges pages in batches of 64
 * per CPU).  More than this left by a
 * job (page cache of the files it read, kernel memory of many processes,
 * a session's tmpfs) gets the slot a new memory cgroup; less is noise,
 * left out of a step's limit and measured out of its peak. */
#define RC_CG1_NOISE (1ull << 20)

static const char *const ctl_names[RC_CG1_COUNT] = {
  [RC_CG1_MEMORY] = "memory",
  [RC_CG1_PIDS] = "pids",
  [RC_CG1_CPUACCT] = "cpuacct",
  [RC_CG1_CPU] = "cpu",
};

/* The counters of the job's view that v1 cannot reset: masked. */
static const char *const masked_memory[]
    = { "memory.stat",         "memory.oom_control",         "memory.numa_stat",
        "memory.kmem.max_usage_in_bytes", "memory.kmem.failcnt", "memory.kmem.tcp.max_usage_in_bytes",
        "memory.kmem.tcp.failcnt", "memory.kmem.slabinfo", "memory.pressure_level" };
static const char *const masked_pids[] = { "pids.events", "pids.peak" };

struct v1_hier
{
  char *own; /* our cgroup's directory in this hierarchy */
  char *mnt; /* the hierarchy's mount point */
  int first; /* index of the first controller sharing this hierarchy */
};

/* Where each hierarchy and our cgroup in it are, from /proc/self/cgroup
 * and /proc/self/mountinfo, once per process (a v1 host never moves us);
 * forked children inherit the answer.  Fails naming the first one
 * missing: runcell does not start without all four. */
static struct v1_hier hier_cache[RC_CG1_COUNT];
static bool hier_cached;

static int
hier_find (const struct v1_hier **h, rc_err_t *err)
{
  char *cg, *mi;
  if (hier_cached)
    {
      *h = hier_cache;
      return 0;
    }
  if (rc_cg_read_self (&cg, &mi, err) < 0)
    return -1;
  for (int i = 0; i < RC_CG1_COUNT; i++)
    {
      struct v1_hier *x = &hier_cache[i];
      if (rc_cg_dir_from (cg, mi, ctl_names[i], &x->own, &x->mnt, err) < 0)
        {
          free (cg);
          free (mi);
          for (int j = 0; j < i; j++)
            {
              free (hier_cache[j].own);
              free (hier_cache[j].mnt);
            }
          return -1;
        }
      x->first = i;
      for (int j = 0; j < i; j++)
        if (strcmp (hier_cache[j].mnt, x->mnt) == 0)
          {
            x->first = j;
            break;
          }
    }
  free (cg);
  free (mi);
  hier_cached = true;
  *h = hier_cache;
  return 0;
}

static int
mkdir_ok (const char *path, rc_err_t *err)
{
  /* EEXIST: left by a previous run that died; reused. */
  if (mkdir (path, 0755) < 0 && errno != EEXIST)
    return rc_error_sys (err, "cgroup: mkdir %s", path);
  return 0;
}

/* The knobs of a slot directory in hierarchy `first` (and whatever is
 * co-mounted with it). */
static int
setup_slot_dir (const struct v1_hier *h, int first, int dirfd, const char *dir, uint64_t pids_max,
                rc_err_t *err)
{
  char buf[32];

  for (int c = 0; c < RC_CG1_COUNT; c++)
    {
      if (h[c].first != first)
        continue;
      switch ((enum rc_cg1_ctl)c)
        {
        case RC_CG1_MEMORY:
          /* The only swap brake when memsw is absent (swapaccount=0). */
          if (rc_cg_write_at (dirfd, "memory.swappiness", "0", err) < 0)
            return rc_error_wrap (err, "%s", dir);
          break;
        case RC_CG1_PIDS:
          if (pids_max == 0)
            snprintf (buf, sizeof (buf), "max");
          else
            snprintf (buf, sizeof (buf), "%" PRIu64, pids_max);
          if (rc_cg_write_at (dirfd, "pids.max", buf, err) < 0)
            return rc_error_wrap (err, "%s", dir);
          break;
        case RC_CG1_CPU:
          if (rc_cg_write_at (dirfd, "cpu.shares", "1024", err) < 0)
            return rc_error_wrap (err, "%s", dir);
          break;
        case RC_CG1_CPUACCT:
        case RC_CG1_COUNT:
          break;
        }
    }
  return 0;
}

/* Removes every cgroup below base, children first (depth: 2 for the
 * slots with their job cgroups). */
static void
empty_base (const char *base, int depth)
{
  DIR *d = opendir (base);
  struct dirent *de;
  while (d != NULL && (de = readdir (d)) != NULL)
    {
      cleanup_free char *dir = NULL;
      if (de->d_type != DT_DIR || de->d_name[0] == '.')
        continue;
      if (asprintf (&dir, "%s/%s", base, de->d_name) < 0)
        continue;
      if (depth > 1)
        empty_base (dir, depth - 1);
      rc_cg_remove_dir (dir);
    }
  if (d != NULL)
    closedir (d);
}

static int
v1_setup_tree (const struct rc_cgroup_tree *tree, rc_err_t *err)
{
  const struct v1_hier *h;

  if (hier_find (&h, err) < 0)
    return -1;
  for (int i = 0; i < RC_CG1_COUNT; i++)
    {
      cleanup_free char *base = NULL;
      char cap[32];
      if (h[i].first != i)
        continue;
      if (asprintf (&base, "%s/%s", h[i].own, tree->name) < 0)
        return rc_error_sys (err, "cgroup: asprintf");
      if (mkdir_ok (base, err) < 0)
        return -1;
      /* What a service that died left (its inits died with it). */
      empty_base (base, 2);
      if (h[RC_CG1_MEMORY].first == i)
        {
          /* Hierarchical accounting is forced on by 6.x kernels (writing
           * it then fails or is a no-op); older ones need it so a slot's
           * usage counts against our own cgroup's limit too. */
          char val[8] = "";
          if (rc_cg_write_file (base, "memory.use_hierarchy", "1", NULL) < 0
              && (rc_cg_read_file (base, "memory.use_hierarchy", val, sizeof (val), err) < 0
                  || val[0] != '1'))
            return rc_error_set (err, EINVAL, "cgroup: %s: memory.use_hierarchy is not 1", base);
          /* All slots together stay below the host's (or the unit's)
           * memory: concurrency x per-job limit cannot exhaust it. */
          snprintf (cap, sizeof cap, "%" PRIu64,
                    tree->total_max ? tree->total_max : rc_cgroup_total_auto (h[i].own, false));
          if (rc_cg_write_file (base, "memory.limit_in_bytes", cap, err) < 0)
            return -1;
        }
      for (unsigned s = 0; s < tree->n_slots; s++)
        {
          cleanup_free char *dir = NULL;
          cleanup_close int dfd = -1;
          if (asprintf (&dir, "%s/slot%u", base, s) < 0)
            return rc_error_sys (err, "cgroup: asprintf");
          if (mkdir_ok (dir, err) < 0)
            return -1;
          dfd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
          if (dfd < 0)
            return rc_error_sys (err, "cgroup: open %s", dir);
          if (setup_slot_dir (h, i, dfd, dir, tree->pids_max, err) < 0)
            return -1;
        }
    }
  return 0;
}

static void
v1_teardown_tree (const struct rc_cgroup_tree *tree)
{
  const struct v1_hier *h;

  if (hier_find (&h, NULL) < 0)
    return;
  for (int i = 0; i < RC_CG1_COUNT; i++)
    {
      cleanup_free char *base = NULL;
      if (h[i].first != i || asprintf (&base, "%s/%s", h[i].own, tree->name) < 0)
        continue;
      empty_base (base, 2);
      rc_cg_remove_dir (base);
    }
}

/* Removes the job cgroups below the slot's memory cgroup (an init before
 * this one made them), whatever their generation. */
static void
remove_jobs (const char *slot_dir)
{
  DIR *d = opendir (slot_dir);
  struct dirent *de;
  while (d != NULL && (de = readdir (d)) != NULL)
    {
      cleanup_free char *dir = NULL;
      if (de->d_type == DT_DIR && de->d_name[0] == 'j'
          && asprintf (&dir, "%s/%s", slot_dir, de->d_name) >= 0)
        rc_cg_remove_dir (dir);
    }
  if (d != NULL)
    closedir (d);
}

/* The memory files of the job's current memory cgroup (dirfd). */
static int
open_memory_files (struct rc_cgroup_slot *slot, int dfd, rc_err_t *err)
{
  const char *dir = slot->path;
  rc_cg_close (&slot->v1_limit);
  rc_cg_close (&slot->v1_memsw);
  rc_cg_close (&slot->v1_max_usage);
  rc_cg_close (&slot->v1_failcnt);
  rc_cg_close (&slot->v1_oom);
  rc_cg_close (&slot->v1_usage);
  rc_cg_close (&slot->v1_stat);
  rc_cg_close (&slot->v1_memsw_max_usage);
  rc_cg_close (&slot->v1_memsw_failcnt);
  if ((slot->v1_limit = rc_cg_open (dfd, dir, "memory.limit_in_bytes", O_WRONLY, err)) < 0
      || (slot->v1_max_usage = rc_cg_open (dfd, dir, "memory.max_usage_in_bytes", O_RDWR, err)) < 0
      || (slot->v1_failcnt = rc_cg_open (dfd, dir, "memory.failcnt", O_RDWR, err)) < 0
      || (slot->v1_oom = rc_cg_open (dfd, dir, "memory.oom_control", O_RDONLY, err)) < 0
      || (slot->v1_usage = rc_cg_open (dfd, dir, "memory.usage_in_bytes", O_RDONLY, err)) < 0
      || (slot->v1_stat = rc_cg_open (dfd, dir, "memory.stat", O_RDONLY, err)) < 0)
    return -1;
  /* Absent when the kernel runs with swapaccount=0. */
  slot->v1_memsw = openat (dfd, "memory.memsw.limit_in_bytes", O_WRONLY | O_CLOEXEC);
  slot->v1_memsw_max_usage = openat (dfd, "memory.memsw.max_usage_in_bytes", O_RDWR | O_CLOEXEC);
  slot->v1_memsw_failcnt = openat (dfd, "memory.memsw.failcnt", O_RDWR | O_CLOEXEC);
  return 0;
}

/* Opens (making it) the job's memory cgroup j<gen> below the slot's
 * memory cgroup, and its files. */
static int
open_job (struct rc_cgroup_slot *slot, rc_err_t *err)
{
  const int sfd = slot->dirs[slot->v1_hier[RC_CG1_MEMORY]];
  char name[24];
  int dfd;

  snprintf (name, sizeof name, "j%u", slot->v1_gen);
  if (mkdirat (sfd, name, 0755) < 0 && errno != EEXIST)
    return rc_error_sys (err, "cgroup: mkdir %s/%s", slot->path, name);
  dfd = openat (sfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return rc_error_sys (err, "cgroup: open %s/%s", slot->path, name);
  rc_cg_close (&slot->v1_job);
  rc_cg_close (&slot->v1_job_tasks);
  slot->v1_job = dfd;
  slot->v1_job_tasks = rc_cg_open (dfd, name, "tasks", O_WRONLY, err);
  if (slot->v1_job_tasks < 0 || rc_cg_write_at (dfd, "memory.swappiness", "0", err) < 0)
    return -1;
  return open_memory_files (slot, dfd, err);
}

static int
v1_slot_open (struct rc_cgroup_slot *slot, const struct rc_cgroup_tree *tree, rc_err_t *err)
{
  const struct v1_hier *h;

  if (hier_find (&h, err) < 0)
    return -1;
  slot->n_dirs = 0;
  for (int i = 0; i < RC_CG1_COUNT; i++)
    {
      cleanup_free char *base = NULL;
      cleanup_free char *dir = NULL;
      size_t k = slot->n_dirs;

      if (h[i].first != i)
        {
          slot->v1_hier[i] = slot->v1_hier[h[i].first];
          continue;
        }
      if (asprintf (&base, "%s/%s", h[i].own, tree->name) < 0
          || asprintf (&dir, "%s/slot%u", base, slot->index) < 0)
        return rc_error_sys (err, "cgroup: asprintf");
      if (mkdir_ok (dir, err) < 0)
        return -1;
      /* The job cgroups of the init before this one go: each init
       * starts from a fresh j0. */
      if (i == RC_CG1_MEMORY)
        remove_jobs (dir);
      slot->parents[k] = open (base, O_PATH | O_DIRECTORY | O_CLOEXEC);
      slot->dirs[k] = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
      slot->n_dirs++;
      if (slot->parents[k] < 0 || slot->dirs[k] < 0)
        return rc_error_sys (err, "cgroup: open slot %s", dir);
      slot->v1_tasks[k] = rc_cg_open (slot->dirs[k], dir, "tasks", O_WRONLY, err);
      if (slot->v1_tasks[k] < 0)
        return -1;
      slot->v1_hier[i] = (int)k;
      if (i == RC_CG1_MEMORY)
        {
          slot->path = strdup (dir);
          if (slot->path == NULL)
            return rc_error_sys (err, "cgroup: strdup");
        }
    }
  slot->v1_gen = 0;
  if (rc_cg_write_at (slot->dirs[slot->v1_hier[RC_CG1_MEMORY]], "memory.swappiness", "0", err) < 0
      || open_job (slot, err) < 0)
    return -1;
  {
    const int pk = slot->v1_hier[RC_CG1_PIDS], ck = slot->v1_hier[RC_CG1_CPUACCT];
    if ((slot->v1_pids_max = rc_cg_open (slot->dirs[pk], "pids", "pids.max", O_WRONLY, err)) < 0
        || (slot->v1_cpu_usage
            = rc_cg_open (slot->dirs[ck], "cpuacct", "cpuacct.usage", O_RDWR, err))
               < 0)
      return -1;
  }
  return 0;
}

static void
v1_slot_close (struct rc_cgroup_slot *slot)
{
  int *fds[] = { &slot->v1_limit,   &slot->v1_memsw,        &slot->v1_max_usage,
                 &slot->v1_failcnt, &slot->v1_oom,          &slot->v1_usage,
                 &slot->v1_stat,    &slot->v1_pids_max,     &slot->v1_cpu_usage,
                 &slot->v1_memsw_max_usage, &slot->v1_memsw_failcnt, &slot->v1_job,
                 &slot->v1_job_tasks, &slot->v1_mem_view, &slot->v1_pids_view };
  for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
    rc_cg_close (fds[i]);
}

/* The calling single-threaded process moves itself into the slot in
 * hierarchy k.  Writing "0" to a v1 `tasks` file moves only the current
 * thread, for which the kernel skips the global threadgroup rwsem (whose
 * write side waits for an RCU grace period); a single-threaded process is
 * its only thread. */
static int
move_self (struct rc_cgroup_slot *slot, size_t k, rc_err_t *err)
{
  ssize_t n = pwrite (slot->v1_tasks[k], "0", 1, 0);
  if (n != 1)
    {
      if (n >= 0)
        errno = EIO;
      return rc_error_sys (err, "cgroup: slot%u: join tasks", slot->index);
    }
  return 0;
}

/* The init joins the slot in every hierarchy, then roots its cgroup
 * namespace there: the job's /proc/self/cgroup and its view then say "/". */
static int
v1_slot_enter (struct rc_cgroup_slot *slot, rc_err_t *err)
{
  for (size_t k = 0; k < slot->n_dirs; k++)
    if (move_self (slot, k, err) < 0)
      return -1;
  if (unshare (CLONE_NEWCGROUP) < 0)
    return rc_error_sys (err, "cgroup: unshare cgroup namespace");
  return 0;
}

/* The memory and pids hierarchies mounted at hidden_dir/{memory,pids}, in
 * the init's mount namespace and rooted at its cgroup namespace (the
 * slot): a job's view is bound from there. */
static int
v1_view_setup (struct rc_cgroup_slot *slot, const char *hidden_dir, rc_err_t *err)
{
  const unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
  static const char *const names[] = { "memory", "pids" };
  int *fds[] = { &slot->v1_mem_view, &slot->v1_pids_view };

  for (size_t i = 0; i < 2; i++)
    {
      char dir[256];
      snprintf (dir, sizeof dir, "%s/%s", hidden_dir, names[i]);
      if ((mkdir (dir, 0700) < 0 && errno != EEXIST)
          || mount ("cgroup", dir, "cgroup", flags, names[i]) < 0)
        return rc_error_sys (err, "cgroup: mount the %s hierarchy at %s", names[i], dir);
      *fds[i] = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (*fds[i] < 0)
        return rc_error_sys (err, "cgroup: open %s", dir);
    }
  return 0;
}

static int
set_memory_limit (struct rc_cgroup_slot *slot, uint64_t memory_bytes, rc_err_t *err)
{
  char val[32];

  if (memory_bytes == 0)
    snprintf (val, sizeof val, "-1");
  else
    snprintf (val, sizeof val, "%" PRIu64, memory_bytes);
  if (pwrite (slot->v1_limit, val, strlen (val), 0) < 0)
    {
      /* EINVAL: raising above the current memsw limit; raise memsw first.
       * The kernel insists limit <= memsw at every moment. */
      if (errno != EINVAL || slot->v1_memsw < 0)
        return rc_error_sys (err, "cgroup: write %s to memory.limit_in_bytes", val);
      if (rc_cg_write_fd (slot->v1_memsw, val, "memory.memsw.limit_in_bytes", err) < 0
          || rc_cg_write_fd (slot->v1_limit, val, "memory.limit_in_bytes", err) < 0)
        return -1;
    }
  if (slot->v1_memsw >= 0
      && rc_cg_write_fd (slot->v1_memsw, val, "memory.memsw.limit_in_bytes", err) < 0)
    return -1;
  return 0;
}

/* A limit a page below the usage makes the kernel drain every CPU's
 * charge cache of the slot before it would reclaim anything (v1's
 * mem_cgroup_resize_max); the real limit is written right after.  When
 * the caches held nothing, one reclaim round (at most 32 pages of the
 * slot's page cache) frees the page instead. */
static void
drain_charge_caches (struct rc_cgroup_slot *slot)
{
  uint64_t usage = 0;
  char val[32];
  if (rc_cg_read_u64_fd (slot->v1_usage, &usage, "memory.usage_in_bytes", NULL) < 0
      || usage < 8192)
    return;
  snprintf (val, sizeof val, "%" PRIu64, usage - 4096);
  (void)pwrite (slot->v1_limit, val, strlen (val), 0);
}

static int
v1_step_prepare (struct rc_cgroup_slot *slot, unsigned step, uint64_t memory_bytes, uint64_t pids,
                 struct rc_cgroup_meter *meter, int *clone_fd, int *join_fd, bool *unmet,
                 rc_err_t *err)
{
  uint64_t base = 0, limit = 0;
  char val[32];
  bool found;

  (void)step;
  *clone_fd = -1;
  *join_fd = slot->v1_job_tasks;
  rc_cgroup_meter_init (meter);
  /* What is charged now (an earlier step's /tmp, a few pages of the
   * job before) is not the step's: its peak is measured from there, and
   * when it is more than noise (an earlier step's files) its limit comes
   * on top of it.  Noise is left in the limit, so the job reads the limit
   * it asked for.  The per-CPU charge caches are drained first: pages
   * charged ahead to the slot that the step would use without the usage
   * moving (64 per CPU), which made its peak short by up to that much. */
  drain_charge_caches (slot);
  if (rc_cg_read_u64_fd (slot->v1_usage, &base, "memory.usage_in_bytes", err) < 0)
    goto fail;
  if (memory_bytes != 0)
    limit = memory_bytes + (base > RC_CG1_NOISE ? base : 0);
  if (set_memory_limit (slot, limit, err) < 0)
    {
      /* EBUSY: more is charged than the limit allows and the kernel could
       * not reclaim it: the step cannot run within its limit. */
      if ((*err)->status != EBUSY)
        goto fail;
      rc_error_free (err);
      *unmet = true;
    }
  if (pids == 0)
    snprintf (val, sizeof (val), "max");
  else
    /* The init is in the slot too and counts: a job gets one process
     * less than it asked for on v1, and reads the number it asked for. */
    snprintf (val, sizeof (val), "%" PRIu64, pids);
  if (rc_cg_write_fd (slot->v1_pids_max, val, "pids.max", err) < 0
      || rc_cg_write_fd (slot->v1_max_usage, "0", "memory.max_usage_in_bytes", err) < 0
      || rc_cg_write_fd (slot->v1_failcnt, "0", "memory.failcnt", err) < 0
      || rc_cg_write_fd (slot->v1_cpu_usage, "0", "cpuacct.usage", err) < 0
      || rc_cg_read_key_fd (slot->v1_oom, "oom_kill", &meter->oom_base, &found,
                            "memory.oom_control", err)
             < 0)
    goto fail;
  if (!found)
    return rc_error_set (err, ENOTSUP,
                         "cgroup: memory.oom_control has no oom_kill (kernel < 4.13)");
  if (slot->v1_memsw_max_usage >= 0)
    (void)pwrite (slot->v1_memsw_max_usage, "0", 1, 0);
  if (slot->v1_memsw_failcnt >= 0)
    (void)pwrite (slot->v1_memsw_failcnt, "0", 1, 0);
  meter->v2 = 0;
  meter->fd[RC_CG_FD_CPU] = slot->v1_cpu_usage;
  meter->fd[RC_CG_FD_PEAK] = slot->v1_max_usage;
  meter->fd[RC_CG_FD_OOM] = slot->v1_oom;
  meter->fd[RC_CG_FD_CURRENT] = slot->v1_usage;
  meter->fd[RC_CG_FD_STAT] = slot->v1_stat;
  meter->base_bytes = base;
  meter->limit_bytes = limit;
  meter->refault_key = rc_cg_find_refault_key (slot->v1_stat, false);
  return 0;
fail:
  return rc_error_wrap (err, "slot%u", slot->index);
}

static int
mask_in (const char *dir, const char *const *names, size_t n, const char *mask_file,
         rc_err_t *err)
{
  for (size_t i = 0; i < n; i++)
    {
      char path[256];
      snprintf (path, sizeof path, "%s/%s", dir, names[i]);
      if (mount (mask_file, path, NULL, MS_BIND, NULL) < 0 && errno != ENOENT)
        return rc_error_sys (err, "cgroup: mask %s", path);
    }
  return 0;
}

/* The job's memory cgroup at target/memory and the slot's pids cgroup at
 * target/pids, bound read-only from the hidden mounts of view_setup, with
 * the counters that cannot be reset masked.  Bound once per generation:
 * every step of every job sees the same cgroups. */
static int
v1_step_view (struct rc_cgroup_slot *slot, unsigned step, const char *target,
              const char *mask_file, rc_err_t *err)
{
  const unsigned long ro = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
  char mem[128], pids[128], src[64];

  (void)step;
  if (slot->v1_viewed)
    return 0;
  snprintf (mem, sizeof mem, "%s/memory", target);
  snprintf (pids, sizeof pids, "%s/pids", target);
  (void)umount2 (mem, MNT_DETACH); /* the generation before's */
  (void)umount2 (pids, MNT_DETACH);
  snprintf (src, sizeof src, "/proc/self/fd/%d/j%u", slot->v1_mem_view, slot->v1_gen);
  if (mount (src, mem, NULL, MS_BIND, NULL) < 0 || mount (NULL, mem, NULL, ro, NULL) < 0)
    return rc_error_sys (err, "cgroup: the memory view");
  snprintf (src, sizeof src, "/proc/self/fd/%d", slot->v1_pids_view);
  if (mount (src, pids, NULL, MS_BIND, NULL) < 0 || mount (NULL, pids, NULL, ro, NULL) < 0)
    return rc_error_sys (err, "cgroup: the pids view");
  if (mask_in (mem, masked_memory, sizeof masked_memory / sizeof masked_memory[0], mask_file, err)
          < 0
      || mask_in (pids, masked_pids, sizeof masked_pids / sizeof masked_pids[0], mask_file, err)
             < 0)
    return -1;
  slot->v1_viewed = true;
  return 0;
}

/* A new job memory cgroup j<gen+1> for the slot; the old one is removed
 * with whatever it still has charged.  No process moves: the init is in
 * the slot's own memory cgroup, and the job that was in j<gen> is gone. */
static int
renew_memory (struct rc_cgroup_slot *slot, rc_err_t *err)
{
  const int sfd = slot->dirs[slot->v1_hier[RC_CG1_MEMORY]];
  char old_name[24];

  snprintf (old_name, sizeof old_name, "j%u", slot->v1_gen);
  slot->v1_gen++;
  if (open_job (slot, err) < 0)
    return -1;
  if (rc_cg_remove_at (sfd, old_name) < 0)
    return rc_error_sys (err, "cgroup: remove %s/%s", slot->path, old_name);
  slot->v1_viewed = false;
  return 0;
}

static int
v1_job_clear (struct rc_cgroup_slot *slot, bool *renewed, rc_err_t *err)
{
  uint64_t usage = 0;
  if (rc_cg_read_u64_fd (slot->v1_usage, &usage, "memory.usage_in_bytes", err) < 0)
    return rc_error_wrap (err, "slot%u", slot->index);
  if (usage <= RC_CG1_NOISE)
    return 0;
  rc_log (RC_LOG_DEBUG, "slot_memory_renewed", "slot %u: %llu bytes left charged", slot->index,
          (unsigned long long)usage);
  if (renew_memory (slot, err) < 0)
    return rc_error_wrap (err, "slot%u: new memory cgroup", slot->index);
  *renewed = true;
  return 0;
}

static int
v1_is_empty (struct rc_cgroup_slot *slot, bool *empty, rc_err_t *err)
{
  /* Every process of the slot is in its pids cgroup, whatever the memory
   * generation. */
  const int k = slot->v1_hier[RC_CG1_PIDS];
  return rc_cg_procs_empty (&slot->dirs[k], 1, empty, err);
}

static int
v1_kill_all (struct rc_cgroup_slot *slot, unsigned timeout_ms, rc_err_t *err)
{
  const int k = slot->v1_hier[RC_CG1_PIDS];
  /* No cgroup.kill on v1 (the freezer would make this atomic but is one
   * more hierarchy to manage); pids.max bounds how long a fork bomb can
   * keep the loop busy. */
  if (rc_cg_kill_loop (&slot->dirs[k], 1, timeout_ms, err) < 0)
    return rc_error_wrap (err, "slot%u", slot->index);
  return 0;
}

static int
v1_cpu_us (const struct rc_cgroup_meter *m, uint64_t *usage_us, rc_err_t *err)
{
  uint64_t ns;

  if (rc_cg_read_u64_fd (m->fd[RC_CG_FD_CPU], &ns, "cpuacct.usage", err) < 0)
    return -1;
  *usage_us = ns / 1000;
  return 0;
}

static int
v1_oom_kills (const struct rc_cgroup_meter *m, uint64_t *count, rc_err_t *err)
{
  uint64_t now;
  bool found;

  if (rc_cg_read_key_fd (m->fd[RC_CG_FD_OOM], "oom_kill", &now, &found, "memory.oom_control", err)
      < 0)
    return -1;
  *count = found && now >= m->oom_base ? now - m->oom_base : 0;
  return 0;
}

const struct rc_cgroup_ops rc_cgroup_v1_ops = {
  .setup_tree = v1_setup_tree,
  .teardown_tree = v1_teardown_tree,
  .slot_open = v1_slot_open,
  .slot_close = v1_slot_close,
  .slot_enter = v1_slot_enter,
  .view_setup = v1_view_setup,
  .step_prepare = v1_step_prepare,
  .step_view = v1_step_view,
  .job_clear = v1_job_clear,
  .kill_all = v1_kill_all,
  .is_empty = v1_is_empty,
  .cpu_us = v1_cpu_us,
  .oom_kills = v1_oom_kills,
};
