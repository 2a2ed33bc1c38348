/* keeper.c - the keeper's side of the slots: what every slot's root holds,
 * starting each slot's init, noticing when one dies, ending the claims of
 * claimers that died.
 *
 * The keeper is the master in the service (its children are the workers
 * and the inits; it reaps them all) and the `runcell exec` process on its
 * own.  An init is cloned from it, not from a worker, so the slot outlives
 * the worker that used it last, and a worker's death takes no slot with
 * it.  The clone makes the init's namespaces (mount, pid, ipc, uts)
 * but the network one (the init makes that after it listens) and, on v2,
 * puts it in its slot's init leaf (CLONE_INTO_CGROUP).
 */
#include "config.h"

#include "common/clock.h"
#include "common/log.h"
#include "sandbox/host/syscalls.h"
#include "sandbox/sandbox_internal.h"
#include "sandbox/slot/ctl.h"
#include "sandbox/slot/slot.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* A slot whose init keeps dying is started again at most this often. */
#define RESTART_GAP_MS 100

/* Adds p to a NULL-terminated set of strings, once. */
static int
set_add (char ***set, size_t *n, const char *p)
{
  char **grown;
  for (size_t i = 0; i < *n; i++)
    if (strcmp ((*set)[i], p) == 0)
      return 0;
  grown = realloc (*set, (*n + 2) * sizeof *grown);
  if (grown == NULL)
    return -1;
  grown[(*n)++] = (char *)p;
  grown[*n] = NULL;
  *set = grown;
  return 0;
}

/* The root every slot serves: each available language's directory, host
 * paths and cache directories; an entry without a template (a job that
 * brings all its files); extra_template for `runcell exec --template`. */
static int
build_plan (struct rc_sandbox *sb, const struct rc_lang_table *langs, const char *extra_template)
{
  size_t n = 0, n_paths = 0;
  sb->plan_langs = calloc ((langs ? langs->n : 0) + 2, sizeof *sb->plan_langs);
  if (sb->plan_langs == NULL)
    return -1;
  for (size_t i = 0; langs && i < langs->n; i++)
    {
      const struct rc_lang *l = &langs->langs[i];
      if (!l->available)
        continue;
      sb->plan_langs[n++] = (struct rc_root_lang){ .slug = l->slug,
                                                   .dir = l->dir,
                                                   .overlay_paths
                                                   = (const char *const *)l->overlay_paths,
                                                   .n_overlay_paths = l->n_overlay_paths };
      for (size_t k = 0; k < l->n_host_paths; k++)
        if (set_add (&sb->plan_host_paths, &n_paths, l->host_paths[k]) < 0)
          return -1;
    }
  sb->plan_langs[n++] = (struct rc_root_lang){ .slug = NULL, .dir = NULL };
  if (extra_template)
    sb->plan_langs[n++] = (struct rc_root_lang){ .slug = NULL, .dir = extra_template };
  sb->plan = (struct rc_root_plan){ .cgmode = sb->cgmode,
                                    .first_uid = rc_slot_uid (sb->cfg, 0),
                                    .n_uids = sb->n_slots,
                                    .host_paths = (const char *const *)sb->plan_host_paths,
                                    .n_host_paths = n_paths,
                                    .langs = sb->plan_langs,
                                    .n_langs = n };
  sb->plan_stamp = rc_root_plan_stamp (&sb->plan);
  sb->stamp_checked_ms = rc_now_ms ();
  return 0;
}

int
rc_keeper_start_slot (struct rc_sandbox *sb, unsigned slot, rc_err_t *err)
{
  struct rc_keeper_slot *k = &sb->ks[slot];
  /* Its network namespace the init makes itself, once it listens in the
   * host's: its control socket is then no socket of the jobs' namespace
   * (/proc/net/unix would show it to them). */
  struct rc_clone_args args = { .flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS,
                                .exit_signal = SIGCHLD };
  struct rc_slot_init_args a;
  int init_fd;
  pid_t pid;

  if (!rc_slot_mark_starting (slot))
    return 0; /* not cold nor broken: nothing to do */
  rc_slot_set_failure (slot, "");
  /* Opened afresh for each init: the one before may have changed the
   * slot's cgroups (a new v1 memory generation). */
  rc_cgroup_slot_close (k->cg);
  k->cg = NULL;
  {
    const struct rc_cgroup_tree tree = rc_sandbox_cgroup_tree (sb->cfg);
    if (rc_cgroup_slot_open (&k->cg, &tree, slot, err) < 0)
      {
        rc_slot_mark_broken (slot);
        return rc_error_wrap (err, "slot %u", slot);
      }
  }
  /* What a broken init left (processes of its namespace die with it, but
   * on v1 a job's processes are in the slot's cgroups too). */
  {
    bool empty = false;
    if (rc_cgroup_slot_is_empty (k->cg, &empty, err) < 0
        || (!empty && rc_cgroup_slot_kill_all (k->cg, 2000, err) < 0))
      {
        rc_slot_mark_broken (slot);
        return rc_error_wrap (err, "slot %u not clean", slot);
      }
  }
  a = (struct rc_slot_init_args){ .slot = slot,
                                  .keeper_fd = sb->keeper_pidfd,
                                  .cg = k->cg,
                                  .plan = &sb->plan,
                                  .seccomp = &sb->seccomp,
                                  .cap_last = sb->cap_last,
                                  .sock_path = sb->sock_paths[slot],
                                  .uid = rc_slot_uid (sb->cfg, (int)slot),
                                  .gid = rc_slot_uid (sb->cfg, (int)slot) };
  init_fd = rc_cgroup_slot_init_fd (k->cg);
  if (init_fd >= 0)
    {
      args.flags |= CLONE_INTO_CGROUP;
      args.cgroup = (uint64_t)init_fd;
    }
  k->started_ms = rc_now_ms ();
  pid = rc_clone3 (&args);
  if (pid == 0)
    rc_slot_init_main (&a);
  if (pid < 0)
    {
      rc_slot_mark_broken (slot);
      return rc_error_sys (err, "slot %u: clone the init errno=%d", slot, errno);
    }
  k->init = pid;
  return 0;
}

int
rc_sandbox_keeper_start (struct rc_sandbox *sb, const struct rc_lang_table *langs,
                         const char *extra_template, rc_err_t *err)
{
  if (rc_slot_table_size () != sb->n_slots && rc_slot_table_create (sb->n_slots) < 0)
    return rc_error_sys (err, "slot table");
  sb->keeper = true;
  if (sb->mode != RC_SANDBOX_ISOLATED)
    {
      /* No inits: every slot is ready at once, forever. */
      for (unsigned i = 0; i < sb->n_slots; i++)
        if (rc_slot_mark_starting (i))
          rc_slot_mark_ready (i, 0);
      return 0;
    }
  sb->keeper_pidfd = rc_pidfd_open (getpid (), 0);
  if (sb->keeper_pidfd < 0)
    return rc_error_sys (err, "pidfd_open");
  sb->ks = calloc (sb->n_slots + 1, sizeof *sb->ks);
  if (sb->ks == NULL || build_plan (sb, langs, extra_template) < 0)
    return rc_error_set (err, ENOMEM, "slot keeper");
  for (unsigned i = 0; i < sb->n_slots; i++)
    if (rc_keeper_start_slot (sb, i, err) < 0)
      return -1;
  return 0;
}

bool
rc_sandbox_keeper_reaped (struct rc_sandbox *sb, pid_t pid, int status)
{
  for (unsigned i = 0; sb->ks && i < sb->n_slots; i++)
    if (sb->ks[i].init == pid)
      {
        sb->ks[i].init = 0;
        rc_slot_init_gone (i, pid);
        if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
          {
            char why[128];
            rc_slot_failure (i, why, sizeof why);
            rc_log (RC_LOG_WARN, "slot_broken", "slot %u: its init %ld ended (status %d)%s%s", i,
                    (long)pid, status, why[0] ? ": " : "", why);
          }
        return true;
      }
  return false;
}

/* Ends a claim whose owner died: END over a connection of our own (the
 * init ignores it when the owner's connection already ended the claim). */
static void
end_claim (struct rc_sandbox *sb, unsigned slot, uint32_t seq)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  struct rc_ctl m = { .type = RC_CTL_END, .value = (int32_t)seq };
  int fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0)
    return;
  snprintf (sa.sun_path, sizeof sa.sun_path, "%s", sb->sock_paths[slot]);
  if (connect (fd, (struct sockaddr *)&sa, sizeof sa) == 0)
    (void)rc_ctl_send (fd, &m, NULL, 0);
  close (fd);
}

void
rc_sandbox_keeper_renew (struct rc_sandbox *sb)
{
  for (unsigned i = 0; sb->keeper && i < sb->n_slots; i++)
    {
      struct rc_slot_claim c;
      rc_slot_set_retire (i);
      /* An idle one is claimed and ended at once: it clears nothing and
       * leaves; a busy one leaves after its job. */
      c = rc_slot_claim_this (i);
      if (c.slot >= 0)
        end_claim (sb, i, c.seq);
    }
}

void
rc_sandbox_keeper_tick (struct rc_sandbox *sb, pid_t dead_owner)
{
  uint64_t now = rc_now_ms ();
  if (!sb->keeper || sb->mode != RC_SANDBOX_ISOLATED)
    return;
  /* Once a second: have the host's files under the roots changed? */
  if (now >= sb->stamp_checked_ms + 1000)
    {
      uint64_t stamp = rc_root_plan_stamp (&sb->plan);
      sb->stamp_checked_ms = now;
      if (stamp != sb->plan_stamp)
        {
          rc_log (RC_LOG_INFO, "root_changed",
                  "a host file under the jobs' root changed: every slot gets a fresh init");
          sb->plan_stamp = stamp;
          rc_sandbox_keeper_renew (sb);
        }
    }
  for (unsigned i = 0; i < sb->n_slots; i++)
    {
      struct rc_slot_view v;
      rc_slot_table_read (i, &v);
      if (dead_owner > 0 && v.state == RC_SLOT_RUNNING && v.owner == dead_owner)
        end_claim (sb, i, v.seq);
      if ((v.state == RC_SLOT_BROKEN || v.state == RC_SLOT_COLD) && sb->ks[i].init == 0
          && now >= sb->ks[i].started_ms + RESTART_GAP_MS)
        {
          rc_err_t err = NULL;
          sb->ks[i].restarts++;
          if (rc_keeper_start_slot (sb, i, &err) < 0)
            {
              rc_log (RC_LOG_ERROR, "slot_start_failed", "%s", rc_error_text (err));
              rc_error_free (&err);
            }
        }
    }
}

int
rc_sandbox_keeper_wait_ready (struct rc_sandbox *sb, unsigned timeout_ms, rc_err_t *err)
{
  uint64_t deadline = rc_now_ms () + timeout_ms;
  for (;;)
    {
      uint32_t seen = rc_slot_table_releases ();
      unsigned ready = rc_slot_table_count (RC_SLOT_READY);
      int st;
      pid_t pid;
      if (ready == sb->n_slots)
        return 0;
      /* An init that died while starting says why only by its exit. */
      while ((pid = waitpid (-1, &st, WNOHANG)) > 0)
        for (unsigned i = 0; i < sb->n_slots; i++)
          if (sb->ks[i].init == pid)
            {
              char why[128];
              rc_sandbox_keeper_reaped (sb, pid, st);
              rc_slot_failure (i, why, sizeof why);
              return rc_error_set (err, EIO, "sandbox: slot %u's init failed to start: %s", i,
                                   why[0] ? why : "it exited");
            }
      if (rc_now_ms () >= deadline)
        return rc_error_set (err, ETIMEDOUT, "sandbox: slots not ready after %u ms", timeout_ms);
      rc_slot_table_wait (seen, 5000);
    }
}

void
rc_sandbox_keeper_stop (struct rc_sandbox *sb)
{
  for (unsigned i = 0; sb->ks && i < sb->n_slots; i++)
    if (sb->ks[i].init > 0)
      {
        pid_t pid = sb->ks[i].init;
        kill (pid, SIGKILL);
        while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
          ;
        sb->ks[i].init = 0;
        rc_slot_init_gone (i, pid);
      }
  if (sb->keeper_pidfd >= 0)
    close (sb->keeper_pidfd);
  sb->keeper_pidfd = -1;
  sb->keeper = false;
}
