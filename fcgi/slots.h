/* slots.h - the slot table, shared by the master and all workers.
 *
 * A slot is a sandbox identity: uid RUN_UID_BASE+i and cgroup slot<i>.  There
 * are RUN_CONCURRENCY slots and RUN_CONCURRENCY + RUN_SPARE_WORKERS workers,
 * so that while every slot runs a job a spare worker can still answer
 * /health at once and turn further jobs away with 429 instead of letting
 * them queue in the listen backlog.  A worker claims a free slot for one job
 * with a compare-and-swap in an anonymous MAP_SHARED mapping created before
 * the fork; it releases the slot only after verifying it is clean.  When a
 * worker dies holding a slot, the master cleans and releases it.
 */
#ifndef RUNCELL_FCGI_SLOTS_H
#define RUNCELL_FCGI_SLOTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Owner values besides a worker pid. */
#define RC_SLOT_FREE 0
#define RC_SLOT_QUARANTINED (-1) /* could not be verified clean: no jobs */

struct rc_slot_stats
{
  uint64_t jobs;
  uint64_t busy_rejections;
};

int rc_slots_create (unsigned n);
unsigned rc_slots_count (void);
/* Claims a free slot for the calling process; -1 when all are busy.
 * preferred (or -1) is tried first: the slot of the worker's resident
 * init (sandbox/spawn.c); then slots no other worker's resident holds. */
int rc_slot_claim (int preferred);
/* The calling worker's resident init is in slot (here) or no longer is
 * (a mark left by another worker stays).  Only a hint for the claim: the
 * sandbox checks the slot's cgroup itself. */
void rc_slot_set_resident (int slot, bool here);
/* A dead worker's marks (master). */
void rc_slots_forget_residents (pid_t worker);
void rc_slot_release (int slot);
/* Sleeping until a slot is released: read the count before trying to
 * claim, and after a failed claim wait with it; the wait returns at once
 * when a release came in between, else on the next release (or after
 * timeout_us, or on a signal). */
uint32_t rc_slots_releases (void);
void rc_slots_wait_release (uint32_t seen, unsigned timeout_us);
/* The job on this slot has ended and was answered; its owner is cleaning
 * it.  A claimer that finds no free slot waits for such a slot rather
 * than answering 429 (rc_slots_cleaning). */
void rc_slot_mark_cleaning (int slot);
unsigned rc_slots_cleaning (void);
void rc_slot_quarantine (int slot);
pid_t rc_slot_owner (int slot);
/* Marks a slot that was held by `dead` as free again (master, after it
 * cleaned it); returns true when the slot was owned by dead. */
bool rc_slot_take_from (int slot, pid_t dead, pid_t new_owner);
unsigned rc_slots_busy (void);
void rc_slots_count_rejection (void);
uint64_t rc_slots_rejections (void);

#endif
