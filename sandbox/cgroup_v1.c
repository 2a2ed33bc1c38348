/* cgroup_v1.c - slot cgroups on the v1 hierarchies (hybrid and legacy
 * hosts, like the development and CI machines).
 *
 * Layout: in each of the memory, pids, cpuacct and cpu hierarchies,
 *   <own cgroup in that hierarchy>/<name>/slot<N>
 * or, for a tree of one slot (`runcell exec`, a service of concurrency 1),
 *   <own cgroup in that hierarchy>/<name>
 * with the slot's knobs on <name> itself and the all-slots memory cap
 * folded into the slot's limit at prepare (limit = min(job, cap)).  The
 * level is not free: a v1 mkdir and rmdir cost 50-140 us each (memory the
 * most), so the slot level cost a one-shot `runcell exec` 0.43 ms on the
 * development host (bench/results/2026-12-02-flat-tree.md).
 * "own" comes from /proc/self/cgroup, so nothing is created outside
 * the cgroup runcell was started in (here the memory cgroup is nested, e.g.
 * /process_api/<id>, while pids and cpu sit at /).  Co-mounted hierarchies
 * ("cpu,cpuacct") get one directory.  All four are required: memory and
 * pids for the limits, cpuacct for the CPU clock, cpu so that slots compete
 * as equal groups (cpu.shares 1024) instead of thread by thread.
 *
 * Per-slot knobs and why:
 *   memory.limit_in_bytes        the job's memory limit;
 *   memory.memsw.limit_in_bytes  set equal to it when swap accounting is on
 *                                (no swap on top of the limit).  The kernel
 *                                insists limit <= memsw at every moment, so
 *                                lowering writes limit first and raising
 *                                writes memsw first;
 *   memory.swappiness 0          always; it is the only swap brake when
 *                                memsw is absent (swapaccount=0);
 *   memory.max_usage_in_bytes    the peak; writing 0 resets it per job;
 *   memory.failcnt               reset per job (diagnostics);
 *   memory.usage_in_bytes,       sampled by the thrash watch (usage against
 *   memory.stat                  the limit, file refaults); memory.stat also
 *                                gives the tmpfs left over at prepare;
 *   memory.oom_control oom_kill  kills by the memcg OOM killer (4.13+); it
 *                                cannot be reset, so a baseline is kept;
 *   pids.max                     fork bombs;
 *   cpuacct.usage                CPU nanoseconds; writing 0 resets it.
 * There is no cgroup.kill on v1: kill_all loops over cgroup.procs (see
 * rc_cg_kill_loop in cgroup.c).
 */
#include "config.h"

#include "sandbox/cgroup_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const ctl_names[RC_CG1_COUNT] = {
  [RC_CG1_MEMORY] = "memory",
  [RC_CG1_PIDS] = "pids",
  [RC_CG1_CPUACCT] = "cpuacct",
  [RC_CG1_CPU] = "cpu",
};

struct v1_hier
{
  char *own; /* our cgroup's directory in this hierarchy */
  char *mnt; /* the hierarchy's mount point */
  int first; /* index of the first controller sharing this hierarchy */
};

static void
hier_free (struct v1_hier *h)
{
  for (int i = 0; i < RC_CG1_COUNT; i++)
    {
      free (h[i].own);
      free (h[i].mnt);
      h[i].own = h[i].mnt = NULL;
    }
}

/* Where each hierarchy and our cgroup in it are, from /proc/self/cgroup
 * and /proc/self/mountinfo; fails naming the first one missing. */
static int
hier_locate (struct v1_hier *h, rc_err_t *err)
{
  char *cg, *mi;
  memset (h, 0, sizeof (*h) * RC_CG1_COUNT);
  /* One read of each file for every hierarchy: mountinfo is the host's
   * whole mount table. */
  if (rc_cg_read_self (&cg, &mi, err) < 0)
    return -1;
  for (int i = 0; i < RC_CG1_COUNT; i++)
    {
      if (rc_cg_dir_from (cg, mi, ctl_names[i], &h[i].own, &h[i].mnt, err) < 0)
        {
          free (cg);
          free (mi);
          hier_free (h);
          return -1;
        }
      h[i].first = i;
      for (int j = 0; j < i; j++)
        if (strcmp (h[j].mnt, h[i].mnt) == 0)
          {
            h[i].first = j;
            break;
          }
    }
  free (cg);
  free (mi);
  return 0;
}

/* hier_locate, once per process: setup, every slot open and teardown
 * need the same answer (a v1 host never moves us between cgroups; only
 * the v2 code moves the service), and each mountinfo read costs about
 * 50 us here, three of them per `runcell exec`.  Forked workers inherit
 * the answer with the memory; it is never freed. */
static struct v1_hier hier_cache[RC_CG1_COUNT];
static bool hier_cached;

static int
hier_find (const struct v1_hier **h, rc_err_t *err)
{
  if (!hier_cached)
    {
      if (hier_locate (hier_cache, err) < 0)
        return -1;
      hier_cached = true;
    }
  *h = hier_cache;
  return 0;
}

static int
mkdir_ok (const char *path, rc_err_t *err)
{
  /* EEXIST: left by a previous run that died; reused, and the worker's
   * kill_all before the first job empties it. */
  if (mkdir (path, 0755) < 0 && errno != EEXIST)
    return rc_error_sys (err, "cgroup: mkdir %s", path);
  return 0;
}

static int
format_limit (char *buf, size_t size, uint64_t value)
{
  if (value == 0)
    return snprintf (buf, size, "-1");
  return snprintf (buf, size, "%" PRIu64, value);
}

/* Knobs of one slot directory in hierarchy `first` (and whatever is
 * co-mounted with it). */
static int
setup_slot_dir (const struct v1_hier *h, int first, const char *dir, uint64_t pids_max,
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
          if (rc_cg_write_file (dir, "memory.swappiness", "0", err) < 0)
            return -1;
          break;
        case RC_CG1_PIDS:
          if (pids_max == 0)
            snprintf (buf, sizeof (buf), "max");
          else
            snprintf (buf, sizeof (buf), "%" PRIu64, pids_max);
          if (rc_cg_write_file (dir, "pids.max", buf, err) < 0)
            return -1;
          break;
        case RC_CG1_CPU:
          if (rc_cg_write_file (dir, "cpu.shares", "1024", err) < 0)
            return -1;
          break;
        case RC_CG1_CPUACCT:
        case RC_CG1_COUNT:
          break;
        }
    }
  return 0;
}

/* All slots together stay below the host's (or the unit's) memory:
 * concurrency x per-job limit cannot exhaust it.  own is our memory
 * cgroup.  Written to <name> at setup; a flat tree's slot_open computes it
 * again (not read back: by then a job's limit may be in that file). */
static uint64_t
tree_cap (const struct rc_cgroup_tree *tree, const char *own)
{
  return tree->total_max ? tree->total_max : rc_cgroup_total_auto (own, false);
}

static int
write_cap (const struct rc_cgroup_tree *tree, const char *own, const char *base, rc_err_t *err)
{
  char cap[32];

  snprintf (cap, sizeof cap, "%" PRIu64, tree_cap (tree, own));
  return rc_cg_write_file (base, "memory.limit_in_bytes", cap, err);
}

int
rc_cg1_setup_tree (const struct rc_cgroup_tree *tree, rc_err_t *err)
{
  const struct v1_hier *h;
  int ret = -1;

  if (hier_find (&h, err) < 0)
    return -1;
  for (int i = 0; i < RC_CG1_COUNT; i++)
    {
      cleanup_free char *base = NULL;
      if (h[i].first != i)
        continue;
      if (asprintf (&base, "%s/%s", h[i].own, tree->name) < 0)
        {
          rc_error_sys (err, "cgroup: asprintf");
          goto out;
        }
      if (mkdir_ok (base, err) < 0)
        goto out;
      if (rc_cg1_flat (tree->n_slots))
        {
          if (setup_slot_dir (h, i, base, tree->pids_max, err) < 0
              || (h[RC_CG1_MEMORY].first == i && write_cap (tree, h[i].own, base, err) < 0))
            goto out;
          continue;
        }
      if (h[RC_CG1_MEMORY].first == i)
        {
          /* Hierarchical accounting is forced on by 6.x kernels (writing
           * it then fails or is a no-op); older ones need it so a slot's
           * usage counts against our own cgroup's limit too. */
          char val[8] = "";
          if (rc_cg_write_file (base, "memory.use_hierarchy", "1", NULL) < 0
              && (rc_cg_read_file (base, "memory.use_hierarchy", val, sizeof (val), err) < 0
                  || val[0] != '1'))
            {
              if (err == NULL || *err == NULL)
                rc_error_set (err, EINVAL, "cgroup: %s: memory.use_hierarchy is not 1", base);
              goto out;
            }
          if (write_cap (tree, h[i].own, base, err) < 0)
            goto out;
        }
      for (unsigned s = 0; s < tree->n_slots; s++)
        {
          cleanup_free char *dir = NULL;
          if (asprintf (&dir, "%s/slot%u", base, s) < 0)
            {
              rc_error_sys (err, "cgroup: asprintf");
              goto out;
            }
          if (mkdir_ok (dir, err) < 0 || setup_slot_dir (h, i, dir, tree->pids_max, err) < 0)
            goto out;
        }
    }
  ret = 0;
out:
  return ret;
}

void
rc_cg1_teardown_tree (const struct rc_cgroup_tree *tree)
{
  const struct v1_hier *h;

  if (hier_find (&h, NULL) < 0)
    return;
  for (int i = 0; i < RC_CG1_COUNT; i++)
    {
      cleanup_free char *base = NULL;
      DIR *d;
      struct dirent *de;

      if (h[i].first != i || asprintf (&base, "%s/%s", h[i].own, tree->name) < 0)
        continue;
      d = rc_cg1_flat (tree->n_slots) ? NULL : opendir (base);
      /* Only directories we created live here (cgroupfs: no user files). */
      while (d != NULL && (de = readdir (d)) != NULL)
        {
          cleanup_free char *dir = NULL;
          if (de->d_type != DT_DIR || strcmp (de->d_name, ".") == 0
              || strcmp (de->d_name, "..") == 0)
            continue;
          if (asprintf (&dir, "%s/%s", base, de->d_name) >= 0)
            rc_cg_remove_dir (dir);
        }
      if (d != NULL)
        closedir (d);
      rc_cg_remove_dir (base);
    }
}

int
rc_cg1_slot_open (struct rc_cgroup_slot *slot, const struct rc_cgroup_tree *tree, rc_err_t *err)
{
  const struct v1_hier *h;
  const bool flat = rc_cg1_flat (tree->n_slots);
  int ret = -1;

  if (hier_find (&h, err) < 0)
    return -1;
  slot->n_procs = 0;
  for (int i = 0; i < RC_CG1_COUNT; i++)
    {
      cleanup_free char *dir = NULL;
      cleanup_close int dfd = -1;

      if (h[i].first != i)
        continue;
      if ((flat ? asprintf (&dir, "%s/%s", h[i].own, tree->name)
                : asprintf (&dir, "%s/%s/slot%u", h[i].own, tree->name, slot->index))
          < 0)
        {
          rc_error_sys (err, "cgroup: asprintf");
          goto out;
        }
      dfd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (dfd < 0)
        {
          rc_error_sys (err, "cgroup: open slot %s", dir);
          goto out;
        }
      /* Memory is hierarchy 0, so attach charges the memcg first. */
      slot->dirs[slot->n_procs] = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
      slot->procs[slot->n_procs] = rc_cg_open (dfd, dir, "cgroup.procs", O_WRONLY, err);
      if (slot->procs[slot->n_procs] >= 0)
        slot->tasks[slot->n_procs] = rc_cg_open (dfd, dir, "tasks", O_WRONLY, err);
      if (slot->dirs[slot->n_procs] < 0 || slot->procs[slot->n_procs] < 0
          || slot->tasks[slot->n_procs] < 0)
        {
          if (err != NULL && *err == NULL)
            rc_error_sys (err, "cgroup: open slot %s", dir);
          slot->n_procs++;
          goto out;
        }
      slot->n_procs++;
      for (int c = 0; c < RC_CG1_COUNT; c++)
        {
          if (h[c].first != i)
            continue;
          switch ((enum rc_cg1_ctl)c)
            {
            case RC_CG1_MEMORY:
              slot->path = strdup (dir);
              if (slot->path == NULL)
                {
                  rc_error_sys (err, "cgroup: strdup");
                  goto out;
                }
              if ((slot->v1_limit = rc_cg_open (dfd, dir, "memory.limit_in_bytes", O_WRONLY, err))
                      < 0
                  || (slot->v1_max_usage
                      = rc_cg_open (dfd, dir, "memory.max_usage_in_bytes", O_RDWR, err))
                         < 0
                  || (slot->v1_failcnt = rc_cg_open (dfd, dir, "memory.failcnt", O_RDWR, err)) < 0
                  || (slot->v1_oom = rc_cg_open (dfd, dir, "memory.oom_control", O_RDONLY, err)) < 0
                  || (slot->v1_usage
                      = rc_cg_open (dfd, dir, "memory.usage_in_bytes", O_RDONLY, err))
                         < 0
                  || rc_cg_open_memory_stat (slot, dfd, dir, false, err) < 0)
                goto out;
              /* Absent when the kernel runs with swapaccount=0. */
              slot->v1_memsw = openat (dfd, "memory.memsw.limit_in_bytes", O_WRONLY | O_CLOEXEC);
              if (flat)
                slot->v1_cap = tree_cap (tree, h[i].own);
              break;
            case RC_CG1_PIDS:
              if ((slot->v1_pids_max = rc_cg_open (dfd, dir, "pids.max", O_WRONLY, err)) < 0)
                goto out;
              break;
            case RC_CG1_CPUACCT:
              if ((slot->v1_cpu_usage = rc_cg_open (dfd, dir, "cpuacct.usage", O_RDWR, err)) < 0)
                goto out;
              break;
            case RC_CG1_CPU:
            case RC_CG1_COUNT:
              break;
            }
        }
    }
  ret = 0;
out:
  return ret;
}

static int
set_memory_limit (struct rc_cgroup_slot *slot, uint64_t memory_bytes, rc_err_t *err)
{
  char val[32];

  format_limit (val, sizeof (val), memory_bytes);
  if (pwrite (slot->v1_limit, val, strlen (val), 0) < 0)
    {
      /* EINVAL: raising above the current memsw limit; raise memsw first. */
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

int
rc_cg1_prepare (struct rc_cgroup_slot *slot, uint64_t memory_bytes, uint64_t pids_max,
                rc_err_t *err)
{
  char val[32];
  bool found;

  /* Pages an earlier step left in the job's tmpfs (a compile step's
   * /tmp), or an earlier job in a session's, stay charged to the slot (no
   * swap, so they cannot be reclaimed): the step gets its full limit on
   * top of them, or it would be OOM-killed early, and they are taken out
   * of its peak (rc_cg1_memory_peak). */
  slot->shmem_base = rc_cg_leftover_shmem (slot);
  if (memory_bytes != 0)
    memory_bytes += slot->shmem_base;
  if (slot->v1_cap != 0 && (memory_bytes == 0 || memory_bytes > slot->v1_cap))
    memory_bytes = slot->v1_cap;
  slot->limit_bytes = memory_bytes;
  if (set_memory_limit (slot, memory_bytes, err) < 0)
    goto fail;
  if (pids_max == 0)
    snprintf (val, sizeof (val), "max");
  else
    snprintf (val, sizeof (val), "%" PRIu64, pids_max);
  if (rc_cg_write_fd (slot->v1_pids_max, val, "pids.max", err) < 0
      || rc_cg_write_fd (slot->v1_max_usage, "0", "memory.max_usage_in_bytes", err) < 0
      || rc_cg_write_fd (slot->v1_failcnt, "0", "memory.failcnt", err) < 0
      || rc_cg_write_fd (slot->v1_cpu_usage, "0", "cpuacct.usage", err) < 0
      || rc_cg_read_key_fd (slot->v1_oom, "oom_kill", &slot->oom_base, &found, "memory.oom_control",
                            err)
             < 0)
    goto fail;
  if (!found)
    slot->oom_base = 0;
  return 0;
fail:
  return rc_error_wrap (err, "slot%u", slot->index);
}

int
rc_cg1_cpu_usage_us (struct rc_cgroup_slot *slot, uint64_t *usage_us, rc_err_t *err)
{
  uint64_t ns;

  if (rc_cg_read_u64_fd (slot->v1_cpu_usage, &ns, "cpuacct.usage", err) < 0)
    return -1;
  *usage_us = ns / 1000;
  return 0;
}

int
rc_cg1_memory_peak (struct rc_cgroup_slot *slot, uint64_t *bytes, rc_err_t *err)
{
  uint64_t peak;
  if (rc_cg_read_u64_fd (slot->v1_max_usage, &peak, "memory.max_usage_in_bytes", err) < 0)
    return -1;
  *bytes = peak > slot->shmem_base ? peak - slot->shmem_base : 0;
  return 0;
}

int
rc_cg1_oom_kills (struct rc_cgroup_slot *slot, uint64_t *count, rc_err_t *err)
{
  uint64_t now;
  bool found;

  if (rc_cg_read_key_fd (slot->v1_oom, "oom_kill", &now, &found, "memory.oom_control", err) < 0)
    return -1;
  if (!found)
    return rc_error_set (err, ENOTSUP,
                         "cgroup: memory.oom_control has no oom_kill (kernel < 4.13)");
  *count = now >= slot->oom_base ? now - slot->oom_base : 0;
  return 0;
}
