/* cgroup.c - the public entry points of cgroup.h: each dispatches to the
 * backend of the detected mode through its operations table, as crun's
 * cgroup manager does: v1 (cgroup_v1.c: hybrid and legacy hosts) or v2
 * (cgroup_v2.c).  Mode detection and our own cgroup are in
 * cgroup_host.c, the file helpers in cgroup_files.c.
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

/* --- public entry points: the backend of the detected mode --- */

static const struct rc_cgroup_ops *
ops_for (enum rc_cgroup_mode mode)
{
  return rc_cg_is_v2 (mode) ? &rc_cgroup_v2_ops : &rc_cgroup_v1_ops;
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
  slot->v1_job = slot->v1_job_tasks = slot->v1_mem_view = slot->v1_pids_view = -1;
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
  const int single[] = { slot->v2_slot,         slot->v2_init,      slot->v2_kill,
                         slot->v2_events,       slot->v2_view,      slot->v1_limit,
                         slot->v1_memsw,        slot->v1_max_usage, slot->v1_failcnt,
                         slot->v1_oom,          slot->v1_usage,     slot->v1_stat,
                         slot->v1_pids_max,     slot->v1_cpu_usage, slot->v1_memsw_max_usage,
                         slot->v1_memsw_failcnt, slot->v1_job,      slot->v1_job_tasks,
                         slot->v1_mem_view,     slot->v1_pids_view };
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
                        uint64_t pids, struct rc_cgroup_meter *meter, int *clone_fd, int *join_fd,
                        bool *unmet, rc_err_t *err)
{
  *unmet = false;
  *clone_fd = *join_fd = -1;
  if (step >= RC_CG_MAX_STEPS)
    return rc_error_set (err, EINVAL, "cgroup: step %u of at most %d", step, RC_CG_MAX_STEPS);
  return slot->ops->step_prepare (slot, step, memory_bytes, pids, meter, clone_fd, join_fd, unmet,
                                  err);
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
rc_cgroup_meter_sample (const struct rc_cgroup_meter *m, struct rc_memory_sample *s, rc_err_t *err)
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
