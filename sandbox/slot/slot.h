/* slot.h - a slot's life: its init, started by the slot's keeper
 * (keeper.c), serving one job after another (init.c) and resetting every
 * piece of state a job could observe between two of them (reset.c).
 * The protocol is in ctl.h, the states in slot_table.h.  Never included
 * outside sandbox/.
 */
#ifndef RUNCELL_SANDBOX_SLOT_SLOT_H
#define RUNCELL_SANDBOX_SLOT_SLOT_H

#include "common/config.h"
#include "sandbox/cgroup/cgroup.h"
#include "sandbox/root/root.h"
#include "sandbox/seccomp/seccomp_filter.h"

#include <stdbool.h>
#include <sys/types.h>

/* What the keeper hands the init (the init is a fork of the keeper and
 * has it in its memory). */
struct rc_slot_init_args
{
  unsigned slot;
  int keeper_fd; /* a pidfd of the keeper */
  struct rc_cgroup_slot *cg;
  const struct rc_root_plan *plan;
  const struct rc_seccomp_program *seccomp;
  unsigned cap_last;
  const char *sock_path; /* where it listens for claimers */
  uid_t uid;             /* the slot's uid and gid */
  gid_t gid;
};

/* The init, right after the clone: never returns. */
void rc_slot_init_main (const struct rc_slot_init_args *a) __attribute__ ((noreturn));

/* ---- reset.c: between two jobs ---- */

/* The network namespace as a fresh one shows it: its counters and
 * sockets, read back after each job (see reset.c). */
struct rc_net_state
{
  int fds[3];     /* /proc/net files kept open */
  char *pristine; /* their text in a fresh namespace */
  size_t pristine_len;
};
/* lo up in the calling process's (fresh) network namespace, and its
 * pristine text taken. */
int rc_net_fresh (struct rc_net_state *n);
/* After a job: a new network namespace when the job changed anything a
 * later job could see (a packet sent or received, a socket left). */
int rc_net_reset (struct rc_net_state *n, bool *renewed);

/* Whether a process other than the caller's children has uid as its real
 * uid anywhere on the host: 1 yes, 0 no, -1 with errno. */
int rc_uid_has_processes (uid_t uid);

#endif
