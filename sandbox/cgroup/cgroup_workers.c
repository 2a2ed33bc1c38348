/* cgroup_workers.c - the workers' memory cgroup, and the tree's name.
 *
 * Workers parse request bodies, build answers and stream files: what one
 * request can make a worker hold is bounded by the API's limits, but many
 * of them at once, or a bug, could still take the host's memory.  So they
 * run in <own>/<name>/workers with a memory limit of their own
 * (RUN_WORKERS_MEMORY_MAX): past it the kernel kills a worker, not a
 * stranger, and the master forks another.  Jobs never run there: their
 * processes live in the slots' cgroups, cloned by the slots' inits.
 *
 * On v2 the leaf sits beside the slots below <name>, which hands the
 * memory controller to its children already; on v1 it is a directory of
 * the memory hierarchy only (the other controllers keep the workers where
 * the master is).
 */
#include "config.h"

#include "sandbox/cgroup/cgroup_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct rc_cgroup_ops *
ops_now (rc_err_t *err)
{
  enum rc_cgroup_mode mode;
  if (rc_cgroup_detect_mode (&mode, err) < 0)
    return NULL;
  return mode == RC_CGROUP_UNIFIED ? &rc_cgroup_v2_ops : &rc_cgroup_v1_ops;
}

int
rc_cgroup_tree_dir (const char *name, char **dir, rc_err_t *err)
{
  const struct rc_cgroup_ops *ops = ops_now (err);
  if (!rc_cg_name_ok (name))
    return rc_error_set (err, EINVAL, "cgroup: bad subtree name '%s'", name ? name : "(null)");
  return ops ? ops->base_dir (name, dir, err) : -1;
}

int
rc_cgroup_workers_setup (const struct rc_cgroup_tree *tree, uint64_t limit, char **dir,
                         rc_err_t *err)
{
  const struct rc_cgroup_ops *ops = ops_now (err);
  cleanup_free char *base = NULL;
  char value[32];

  *dir = NULL;
  if (ops == NULL || rc_cgroup_tree_dir (tree->name, &base, err) < 0)
    return -1;
  if (asprintf (dir, "%s/workers", base) < 0)
    return rc_error_sys (err, "cgroup: asprintf");
  if (mkdir (*dir, 0755) < 0 && errno != EEXIST)
    return rc_error_sys (err, "cgroup: mkdir %s", *dir);
  if (limit)
    snprintf (value, sizeof value, "%" PRIu64, limit);
  else
    snprintf (value, sizeof value, "%s", ops == &rc_cgroup_v2_ops ? "max" : "-1");
  if (rc_cg_write_file (*dir, ops == &rc_cgroup_v2_ops ? "memory.max" : "memory.limit_in_bytes",
                        value, err)
      < 0)
    return rc_error_wrap (err, "the workers' memory limit (RUN_WORKERS_MEMORY_MAX)");
  return 0;
}

int
rc_cgroup_workers_enter (const char *dir, rc_err_t *err)
{
  char pid[24];
  snprintf (pid, sizeof pid, "%ld", (long)getpid ());
  return rc_cg_write_file (dir, "cgroup.procs", pid, err);
}
