/* cgroup_v2.c - slot cgroups on a unified (pure cgroup2) host.
 *
 * Layout, all below the cgroup runcell starts in ("own", from the "0::"
 * line of /proc/self/cgroup):
 *   own/<name>/slot<N>   one per slot: memory.max per job, memory.swap.max 0,
 *                        memory.oom.group 1 (an OOM kills the whole job, not
 *                        one random process), pids.max, cpu.weight 100
 *   own/<name>/service   only when needed, see below
 *
 * The "no internal processes" rule: a non-root cgroup that hands
 * controllers to its children (cgroup.subtree_control) may not contain
 * processes itself.  The slots need memory, pids and cpu, so own must
 * enable them for <name>, and <name> for the slots.  If own already has
 * them enabled (systemd Delegate=, or a container runtime did it) nothing
 * moves.  If enabling fails with EBUSY because we are in own, the calling
 * process (the master, before it forks workers) moves itself into
 * own/<name>/service and retries.  Only our own pid is moved: other
 * processes in own are not ours to touch, and if any remain the error says
 * so.  Teardown undoes the move so every directory can be removed.
 *
 * Counters: cpu.stat usage_usec and memory.events (oom_kill, oom_group_kill)
 * only grow, so prepare records a baseline.  memory.peak became resettable
 * in 6.12 (a write through an fd resets the peak seen through that same fd,
 * which is why the slot keeps it open); on older kernels the all-time peak
 * is used only when it rose during the job, else the highest sampled
 * memory.current.  Kill: cgroup.kill (5.14+) and wait for "populated 0" in
 * cgroup.events; the procs loop of cgroup.c on older kernels.
 *
 * Exercised by t/unit/cgroup_test on a pure-v2 guest (Debian's 6.1 kernel
 * under qemu), started both in the root cgroup and in a leaf (the move to
 * <name>/service and back); the development machines are v1 hybrid, where
 * cgroup_test still runs the kill/populated/cpu.stat code of this file on
 * the controller-less cgroup2 tree.
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

static const char *const needed[] = { "memory", "pids", "cpu" };
#define ENABLE_ALL "+memory +pids +cpu"
#define DISABLE_ALL "-memory -pids -cpu"

/* Our own cgroup2 directory: the cgroup we started in.  Once setup has
 * moved the service into <name>/service, /proc/self/cgroup says so (and
 * so it does for the workers forked after setup), so that suffix is
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

static int
setup_slot (const char *dir, uint64_t pids_max, rc_err_t *err)
{
  char val[32];
  struct stat st;
  cleanup_free char *swap = NULL;

  if (mkdir (dir, 0755) < 0 && errno != EEXIST)
    return rc_error_sys (err, "cgroup: mkdir %s", dir);
  if (pids_max == 0)
    snprintf (val, sizeof (val), "max");
  else
    snprintf (val, sizeof (val), "%" PRIu64, pids_max);
  if (asprintf (&swap, "%s/memory.swap.max", dir) < 0)
    return rc_error_sys (err, "cgroup: asprintf");
  /* memory.swap.max is missing only without swap support (CONFIG_SWAP or
   * swap accounting off), where there is nothing to bypass the limit. */
  if (stat (swap, &st) == 0 && rc_cg_write_file (dir, "memory.swap.max", "0", err) < 0)
    return -1;
  if (rc_cg_write_file (dir, "memory.oom.group", "1", err) < 0
      || rc_cg_write_file (dir, "pids.max", val, err) < 0
      || rc_cg_write_file (dir, "cpu.weight", "100", err) < 0)
    return -1;
  return 0;
}

int
rc_cg2_setup_tree (const struct rc_cgroup_tree *tree, rc_err_t *err)
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

void
rc_cg2_teardown_tree (const struct rc_cgroup_tree *tree)
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
      if (asprintf (&dir, "%s/%s", base, de->d_name) >= 0)
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

int
rc_cg2_slot_open (struct rc_cgroup_slot *slot, const struct rc_cgroup_tree *tree, rc_err_t *err)
{
  const char *name = tree->name;
  cleanup_free char *own = NULL;
  const char *dir;
  int fd;

  if (own_dir_v2 (name, &own, err) < 0)
    return -1;
  if (asprintf (&slot->path, "%s/%s/slot%u", own, name, slot->index) < 0)
    {
      slot->path = NULL;
      return rc_error_sys (err, "cgroup: asprintf");
    }
  dir = slot->path;
  /* Not O_PATH: clone3's CLONE_INTO_CGROUP needs a real directory fd. */
  slot->v2_dir = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (slot->v2_dir < 0)
    return rc_error_sys (err, "cgroup: open slot %s", dir);
  slot->n_procs = 1;
  slot->dirs[0] = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (slot->dirs[0] < 0)
    return rc_error_sys (err, "cgroup: open slot %s", dir);
  slot->procs[0] = rc_cg_open (slot->v2_dir, dir, "cgroup.procs", O_WRONLY, err);
  if (slot->procs[0] < 0)
    return -1;
  if ((slot->v2_memory_max = rc_cg_open (slot->v2_dir, dir, "memory.max", O_WRONLY, err)) < 0
      || (slot->v2_pids_max = rc_cg_open (slot->v2_dir, dir, "pids.max", O_WRONLY, err)) < 0
      || (slot->v2_current = rc_cg_open (slot->v2_dir, dir, "memory.current", O_RDONLY, err)) < 0
      || (slot->v2_cpu_stat = rc_cg_open (slot->v2_dir, dir, "cpu.stat", O_RDONLY, err)) < 0
      || (slot->v2_events = rc_cg_open (slot->v2_dir, dir, "memory.events", O_RDONLY, err)) < 0
      || (slot->v2_cg_events = rc_cg_open (slot->v2_dir, dir, "cgroup.events", O_RDONLY, err)) < 0
      || rc_cg_open_memory_stat (slot, slot->v2_dir, dir, true, err) < 0)
    return -1;
  /* Optional files: cgroup.kill (5.14), memory.peak (5.19). */
  slot->v2_kill = openat (slot->v2_dir, "cgroup.kill", O_WRONLY | O_CLOEXEC);
  fd = openat (slot->v2_dir, "memory.peak", O_RDWR | O_CLOEXEC);
  if (fd >= 0 && pwrite (fd, "reset", 5, 0) == 5)
    slot->v2_peak_resettable = true;
  else
    {
      if (fd >= 0)
        close (fd);
      fd = openat (slot->v2_dir, "memory.peak", O_RDONLY | O_CLOEXEC);
    }
  slot->v2_peak = fd;
  return 0;
}

static int
read_oom (struct rc_cgroup_slot *slot, uint64_t *kills, uint64_t *group_kills, rc_err_t *err)
{
  bool found;

  if (rc_cg_read_key_fd (slot->v2_events, "oom_kill", kills, &found, "memory.events", err) < 0)
    return -1;
  if (!found)
    *kills = 0;
  /* oom_group_kill appeared in 5.17. */
  if (rc_cg_read_key_fd (slot->v2_events, "oom_group_kill", group_kills, &found, "memory.events",
                         err)
      < 0)
    return -1;
  if (!found)
    *group_kills = 0;
  return 0;
}

static int
read_cpu (struct rc_cgroup_slot *slot, uint64_t *usec, rc_err_t *err)
{
  bool found;

  if (rc_cg_read_key_fd (slot->v2_cpu_stat, "usage_usec", usec, &found, "cpu.stat", err) < 0)
    return -1;
  if (!found)
    return rc_error_set (err, EINVAL, "cgroup: cpu.stat has no usage_usec");
  return 0;
}

int
rc_cg2_prepare (struct rc_cgroup_slot *slot, uint64_t memory_bytes, uint64_t pids_max,
                rc_err_t *err)
{
  char mem[32], pids[32];

  /* Pages an earlier step or job left in tmpfs stay charged to the slot:
   * the step gets its full limit on top of them, and they are not in its
   * peak (see cgroup_v1.c). */
  slot->shmem_base = rc_cg_leftover_shmem (slot);
  slot->limit_bytes = memory_bytes ? memory_bytes + slot->shmem_base : 0;
  if (memory_bytes == 0)
    snprintf (mem, sizeof (mem), "max");
  else
    snprintf (mem, sizeof (mem), "%" PRIu64, slot->limit_bytes);
  if (pids_max == 0)
    snprintf (pids, sizeof (pids), "max");
  else
    snprintf (pids, sizeof (pids), "%" PRIu64, pids_max);
  if (rc_cg_write_fd (slot->v2_memory_max, mem, "memory.max", err) < 0
      || rc_cg_write_fd (slot->v2_pids_max, pids, "pids.max", err) < 0)
    goto fail;
  slot->current_max = 0;
  slot->peak_base = 0;
  if (slot->v2_peak_resettable)
    {
      if (rc_cg_write_fd (slot->v2_peak, "reset", "memory.peak", err) < 0)
        goto fail;
    }
  else if (slot->v2_peak >= 0
           && rc_cg_read_u64_fd (slot->v2_peak, &slot->peak_base, "memory.peak", err) < 0)
    goto fail;
  if (read_cpu (slot, &slot->cpu_base, err) < 0
      || read_oom (slot, &slot->oom_base, &slot->group_oom_base, err) < 0)
    goto fail;
  return 0;
fail:
  return rc_error_wrap (err, "slot%u", slot->index);
}

int
rc_cg2_cpu_usage_us (struct rc_cgroup_slot *slot, uint64_t *usage_us, rc_err_t *err)
{
  uint64_t now;

  if (read_cpu (slot, &now, err) < 0)
    return -1;
  *usage_us = now >= slot->cpu_base ? now - slot->cpu_base : 0;
  return 0;
}

static int
raw_peak (struct rc_cgroup_slot *slot, uint64_t *bytes, rc_err_t *err)
{
  uint64_t current, peak;

  if (slot->v2_peak_resettable)
    return rc_cg_read_u64_fd (slot->v2_peak, bytes, "memory.peak", err);
  if (rc_cg_read_u64_fd (slot->v2_current, &current, "memory.current", err) < 0)
    return -1;
  if (current > slot->current_max)
    slot->current_max = current;
  /* The all-time peak rose during this job: then it is this job's peak. */
  if (slot->v2_peak >= 0)
    {
      if (rc_cg_read_u64_fd (slot->v2_peak, &peak, "memory.peak", err) < 0)
        return -1;
      if (peak > slot->peak_base)
        {
          *bytes = peak;
          return 0;
        }
    }
  *bytes = slot->current_max;
  return 0;
}

int
rc_cg2_memory_peak (struct rc_cgroup_slot *slot, uint64_t *bytes, rc_err_t *err)
{
  uint64_t peak;
  if (raw_peak (slot, &peak, err) < 0)
    return -1;
  *bytes = peak > slot->shmem_base ? peak - slot->shmem_base : 0;
  return 0;
}

int
rc_cg2_oom_kills (struct rc_cgroup_slot *slot, uint64_t *count, rc_err_t *err)
{
  uint64_t kills, group;

  if (read_oom (slot, &kills, &group, err) < 0)
    return -1;
  kills = kills >= slot->oom_base ? kills - slot->oom_base : 0;
  group = group >= slot->group_oom_base ? group - slot->group_oom_base : 0;
  /* With memory.oom.group the kernel counts the victim twice in oom_kill
   * (once as the victim, once as a group member: seen on 6.1), so a group
   * kill is one event; oom_kill alone covers kernels before 5.17. */
  *count = group > 0 ? group : kills;
  return 0;
}

int
rc_cg2_is_empty (struct rc_cgroup_slot *slot, bool *empty, rc_err_t *err)
{
  uint64_t populated;
  bool found;

  if (rc_cg_read_key_fd (slot->v2_cg_events, "populated", &populated, &found, "cgroup.events", err)
      < 0)
    return -1;
  if (!found)
    return rc_cg_procs_empty (slot->dirs, slot->n_procs, empty, err);
  *empty = populated == 0;
  return 0;
}

int
rc_cg2_kill_all (struct rc_cgroup_slot *slot, unsigned timeout_ms, rc_err_t *err)
{
  uint64_t deadline = rc_now_ms () + timeout_ms;
  unsigned pause_us = 100;
  bool empty;

  if (slot->v2_kill >= 0)
    {
      if (rc_cg_write_fd (slot->v2_kill, "1", "cgroup.kill", err) < 0)
        return rc_error_wrap (err, "slot%u", slot->index);
    }
  else if (rc_cg_kill_loop (slot->dirs, slot->n_procs, timeout_ms, err) < 0)
    return rc_error_wrap (err, "slot%u", slot->index);
  /* cgroup.kill is asynchronous: the tasks get SIGKILL, and "populated"
   * drops once the last one has exited. */
  for (;;)
    {
      if (rc_cg2_is_empty (slot, &empty, err) < 0)
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
