/* slot_table.h - the slots' states, in memory shared by the keeper (the
 * master, or `runcell exec`), every supervising process and every slot's
 * init.
 *
 * A slot is a sandbox identity (uid RUN_UID_BASE+i, cgroup slot<i>) and
 * the init that lives in it.  Its life, one state machine (docs/design.md
 * draws it):
 *
 *   COLD ──keeper starts its init──▶ STARTING ──init built its root──▶ READY
 *   READY ──a worker claims it (CAS)──▶ RUNNING
 *   RUNNING ──the job is over (its claimer), or its END came (init)──▶ CLEANING
 *   CLEANING ──the init reset every piece of state (slot/reset.c)──▶ READY
 *   any ──the init died or failed to reset──▶ BROKEN ──keeper──▶ STARTING
 *
 * Each slot has one word: state, claim sequence, owner pid.  Every
 * transition is a compare-and-swap of the whole word, so a stale message
 * (an END for a claim that is over) is recognised by its sequence and
 * ignored.  The table's futex word is bumped whenever a slot becomes READY,
 * so a claimer that finds none sleeps until one does instead of polling.
 */
#ifndef RUNCELL_SANDBOX_SLOT_SLOT_TABLE_H
#define RUNCELL_SANDBOX_SLOT_SLOT_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum rc_slot_state
{
  RC_SLOT_COLD = 0,
  RC_SLOT_STARTING,
  RC_SLOT_READY,
  RC_SLOT_RUNNING,
  RC_SLOT_CLEANING,
  RC_SLOT_BROKEN,
};
const char *rc_slot_state_name (enum rc_slot_state s);

struct rc_slot_view
{
  enum rc_slot_state state;
  uint32_t seq; /* claim sequence, bumped by every claim */
  pid_t owner;  /* the claimer while RUNNING */
  pid_t init;   /* the slot's init, 0 when none */
};

/* Maps the table (MAP_SHARED, before any fork): n slots, all COLD. */
int rc_slot_table_create (unsigned n);
unsigned rc_slot_table_size (void);
void rc_slot_table_read (unsigned slot, struct rc_slot_view *v);

/* A claim: the slot and the sequence its messages carry. */
struct rc_slot_claim
{
  int slot; /* -1: none */
  uint32_t seq;
  pid_t init;
};
/* Claims a READY slot for the calling process, at once; slot -1 when none
 * is READY, or when requests wait in the queue (below: they were first).
 * *pending (may be NULL) says whether some slot is CLEANING or STARTING,
 * i.e. will be READY soon (and false while the queue holds requests). */
struct rc_slot_claim rc_slot_claim_now (bool *pending);
/* A claim that waits, sleeping on the table's futex, at most wait_ms;
 * cleaning_grace_ms more while a slot is being cleaned or started (so
 * "busy" means every slot is running a job).  stop (may be NULL) ends the
 * wait early when it becomes non-zero. */
struct rc_slot_claim rc_slot_claim_wait (uint64_t wait_ms, uint64_t cleaning_grace_ms,
                                         volatile int *stop);
/* A claim changes hands inside the service: a process's supervisor takes
 * the claim the worker made for it (fcgi/processes/), so that the keeper
 * ends it when the supervisor dies, not when that worker does.  RUNNING
 * seq owned by from -> owned by to; false when it is not from's any more. */
bool rc_slot_claim_transfer (unsigned slot, uint32_t seq, pid_t from, pid_t to);
/* The wait queue (RUN_QUEUE_MAX, RUN_QUEUE_WAIT_MS): a request that finds
 * no READY slot takes a ticket and waits, asleep on the table's futex,
 * until its ticket is the first of those still waiting and a slot is
 * READY; tickets are served in the order they were taken.  A ticket whose
 * holder gave up (its wait ran out, its client went away, the process
 * died: rc_slot_queue_forget) is skipped.  Waiting costs no slot: the
 * slot is claimed only when the ticket is served.  max_waiting bounds
 * the tickets waiting at once (RC_QUEUE_FULL past it); gone (may be NULL)
 * is asked about every 20 ms and ends the wait when it says true. */
enum rc_queue_verdict
{
  RC_QUEUE_CLAIMED = 0,
  RC_QUEUE_FULL,    /* max_waiting tickets were waiting already */
  RC_QUEUE_TIMEOUT, /* wait_ms passed */
  RC_QUEUE_GONE,    /* stop was set or gone() said so */
};
#define RC_QUEUE_RING 8192 /* tickets the ring holds; max_waiting stays below half */
struct rc_slot_claim rc_slot_claim_queued (unsigned max_waiting, uint64_t wait_ms,
                                           volatile int *stop, bool (*gone) (void *ud), void *ud,
                                           enum rc_queue_verdict *why, uint64_t *waited_us);
/* For a request that was admitted (it got its first slot, through the
 * queue or at once) and holds none now (a judge between its tests): a
 * wait that does not yield to tickets taken after it came in, so it
 * always progresses with at least one slot. */
struct rc_slot_claim rc_slot_claim_wait_admitted (uint64_t wait_ms, volatile int *stop);
/* Tickets waiting now (runcell_queue_length). */
unsigned rc_slot_queue_length (void);
/* The tickets of a process that died while it waited are given up. */
void rc_slot_queue_forget (pid_t pid);

/* The futex word, and a sleep until it moves past seen (or timeout_us). */
uint32_t rc_slot_table_releases (void);
void rc_slot_table_wait (uint32_t seen, unsigned timeout_us);

/* Transitions.  Each returns false when the slot was not in the state (and
 * sequence) expected: someone else moved it. */
bool rc_slot_mark_starting (unsigned slot);          /* keeper: COLD/BROKEN */
bool rc_slot_mark_ready (unsigned slot, pid_t init); /* init: STARTING/CLEANING */
/* RUNNING seq -> CLEANING: the claimer when its job is over (before it
 * answers, so a claimer that comes meanwhile waits instead of seeing every
 * slot busy), the init when the claim ends; true also when it is CLEANING
 * with that seq already. */
bool rc_slot_mark_cleaning (unsigned slot, uint32_t seq);
void rc_slot_mark_broken (unsigned slot); /* anyone, any state */
/* The keeper's view of one slot's init dying: BROKEN, with its pid gone. */
void rc_slot_init_gone (unsigned slot, pid_t init);

/* The keeper asks a slot's init to make way for a fresh one (its root no
 * longer matches the host's files, or the configuration was reloaded):
 * the init leaves after its current job's clearing instead of saying
 * READY.  rc_slot_claim_this claims a READY slot for the keeper itself. */
void rc_slot_set_retire (unsigned slot);
bool rc_slot_take_retire (unsigned slot);
struct rc_slot_claim rc_slot_claim_this (unsigned slot);

/* Why a slot's init last failed ("" when it did not): set by the init
 * before it exits, read by the keeper for its log and errors. */
void rc_slot_set_failure (unsigned slot, const char *why);
void rc_slot_failure (unsigned slot, char *buf, size_t size);

/* Counters for /metrics. */
unsigned rc_slot_table_busy (void); /* RUNNING */
unsigned rc_slot_table_count (enum rc_slot_state s);
uint64_t rc_slot_table_jobs (unsigned slot);

#endif
