/* slot_table.c - the slots' states in shared memory; see slot_table.h. */
#include "config.h"

#include "common/clock.h"
#include "sandbox/slot/slot_table.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* One word per slot: state (8 bits) | claim sequence (24) | owner (32). */
#define W_STATE(w) ((enum rc_slot_state) ((w) >> 56))
#define W_SEQ(w) ((uint32_t)(((w) >> 32) & 0xffffffu))
#define W_OWNER(w) ((pid_t)(uint32_t)(w))
#define W_MAKE(st, seq, owner)                                                                     \
  (((uint64_t)(st) << 56) | ((uint64_t)((seq)&0xffffffu) << 32) | (uint64_t)(uint32_t)(owner))

struct slot_entry
{
  _Atomic uint64_t word;
  _Atomic int32_t init;
  _Atomic uint64_t jobs;
  _Atomic uint32_t retire;
  char failure[128]; /* written by the init before it exits, read after */
};

/* A ticket of the wait queue: who holds it and whether it still waits. */
enum ticket_state
{
  TICKET_FREE = 0, /* served, given up, or never taken */
  TICKET_WAITING,
};
struct ticket
{
  int32_t pid;
  uint32_t state;
};

/* The queue: tickets head..tail-1 in a ring, under a robust process-shared
 * mutex (a process that dies holding it cannot wedge the others).  Only
 * the waiting ticket at head may claim a slot, so tickets are served in
 * order; head moves past tickets that are no longer waiting. */
struct ticket_queue
{
  pthread_mutex_t lock;
  uint64_t head, tail;
  _Atomic uint32_t waiting; /* tickets in TICKET_WAITING */
  struct ticket ring[RC_QUEUE_RING];
};

struct slot_table
{
  /* The futex word: bumped whenever a slot becomes READY or the queue's
   * head moves; `waiters` lets the bump skip the wake-up call when nobody
   * sleeps. */
  _Atomic uint32_t releases;
  _Atomic uint32_t waiters;
  unsigned n;
  struct ticket_queue queue;
  struct slot_entry slots[];
};

static struct slot_table *table;

const char *
rc_slot_state_name (enum rc_slot_state s)
{
  switch (s)
    {
    case RC_SLOT_COLD:
      return "cold";
    case RC_SLOT_STARTING:
      return "starting";
    case RC_SLOT_READY:
      return "ready";
    case RC_SLOT_RUNNING:
      return "running";
    case RC_SLOT_CLEANING:
      return "cleaning";
    case RC_SLOT_BROKEN:
      return "broken";
    }
  return "unknown";
}

int
rc_slot_table_create (unsigned n)
{
  size_t size = sizeof (struct slot_table) + n * sizeof (struct slot_entry);
  void *p = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  pthread_mutexattr_t ma;
  if (p == MAP_FAILED)
    return -1;
  table = p;
  table->n = n;
  if (pthread_mutexattr_init (&ma) != 0
      || pthread_mutexattr_setpshared (&ma, PTHREAD_PROCESS_SHARED) != 0
      || pthread_mutexattr_setrobust (&ma, PTHREAD_MUTEX_ROBUST) != 0
      || pthread_mutex_init (&table->queue.lock, &ma) != 0)
    return -1;
  pthread_mutexattr_destroy (&ma);
  return 0;
}

unsigned
rc_slot_table_size (void)
{
  return table ? table->n : 0;
}

void
rc_slot_table_read (unsigned slot, struct rc_slot_view *v)
{
  uint64_t w = atomic_load (&table->slots[slot].word);
  v->state = W_STATE (w);
  v->seq = W_SEQ (w);
  v->owner = W_OWNER (w);
  v->init = atomic_load (&table->slots[slot].init);
}

static void
wake (void)
{
  /* The bump comes before the look at `waiters` (both sequentially
   * consistent): a claimer that registers after the look finds the word
   * changed and does not sleep (rc_slot_table_wait). */
  atomic_fetch_add (&table->releases, 1);
  if (atomic_load (&table->waiters) > 0)
    (void)syscall (SYS_futex, &table->releases, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

uint32_t
rc_slot_table_releases (void)
{
  return atomic_load (&table->releases);
}

void
rc_slot_table_wait (uint32_t seen, unsigned timeout_us)
{
  struct timespec ts = { (time_t)(timeout_us / 1000000), (long)(timeout_us % 1000000) * 1000 };
  atomic_fetch_add (&table->waiters, 1);
  /* Shared, not FUTEX_PRIVATE: the table is MAP_SHARED between the keeper,
   * the workers and the inits.  Returns at once when a release came after
   * `seen` was read (EAGAIN), on a release, a signal or the timeout. */
  if (atomic_load (&table->releases) == seen)
    (void)syscall (SYS_futex, &table->releases, FUTEX_WAIT, seen, &ts, NULL, 0);
  atomic_fetch_sub (&table->waiters, 1);
}

static bool
cas (unsigned slot, uint64_t *expected, uint64_t want)
{
  return atomic_compare_exchange_strong (&table->slots[slot].word, expected, want);
}

static bool
claim_slot (unsigned i, struct rc_slot_claim *c)
{
  uint64_t w = atomic_load (&table->slots[i].word);
  uint32_t seq;
  if (W_STATE (w) != RC_SLOT_READY)
    return false;
  seq = (W_SEQ (w) + 1) & 0xffffffu;
  if (!cas (i, &w, W_MAKE (RC_SLOT_RUNNING, seq, getpid ())))
    return false;
  atomic_fetch_add (&table->slots[i].jobs, 1);
  c->slot = (int)i;
  c->seq = seq;
  c->init = atomic_load (&table->slots[i].init);
  return true;
}

bool
rc_slot_claim_transfer (unsigned slot, uint32_t seq, pid_t from, pid_t to)
{
  uint64_t w = atomic_load (&table->slots[slot].word);
  if (W_STATE (w) != RC_SLOT_RUNNING || W_SEQ (w) != (seq & 0xffffffu) || W_OWNER (w) != from)
    return false;
  return cas (slot, &w, W_MAKE (RC_SLOT_RUNNING, W_SEQ (w), to));
}

struct rc_slot_claim
rc_slot_claim_this (unsigned slot)
{
  struct rc_slot_claim c = { .slot = -1 };
  (void)claim_slot (slot, &c);
  return c;
}

void
rc_slot_set_retire (unsigned slot)
{
  atomic_store (&table->slots[slot].retire, 1);
}

bool
rc_slot_take_retire (unsigned slot)
{
  return atomic_exchange (&table->slots[slot].retire, 0) != 0;
}

/* Any READY slot, whatever the queue holds (its head's claim). */
static struct rc_slot_claim
claim_any (bool *pending)
{
  struct rc_slot_claim c = { .slot = -1 };
  bool soon = false;

  for (unsigned i = 0; i < table->n; i++)
    {
      enum rc_slot_state st;
      if (claim_slot (i, &c))
        return c;
      st = W_STATE (atomic_load (&table->slots[i].word));
      if (st == RC_SLOT_CLEANING || st == RC_SLOT_STARTING || st == RC_SLOT_COLD
          || st == RC_SLOT_BROKEN)
        soon = true;
    }
  if (pending)
    *pending = soon;
  return c;
}

struct rc_slot_claim
rc_slot_claim_now (bool *pending)
{
  /* Requests waiting in the queue came first: a claim that does not
   * queue (/run, the readiness canary) finds the runner busy. */
  if (atomic_load (&table->queue.waiting) > 0)
    {
      if (pending)
        *pending = false;
      return (struct rc_slot_claim){ .slot = -1 };
    }
  return claim_any (pending);
}

/* ---- the wait queue ---------------------------------------------------- */

static void
queue_lock (void)
{
  /* The holder died in its few instructions under the lock: the state is
   * a ticket more or less, which the skips below tolerate. */
  if (pthread_mutex_lock (&table->queue.lock) == EOWNERDEAD)
    pthread_mutex_consistent (&table->queue.lock);
}

static void
queue_unlock (void)
{
  pthread_mutex_unlock (&table->queue.lock);
}

/* Under the lock: head past every ticket that no longer waits. */
static bool
queue_skip (void)
{
  struct ticket_queue *q = &table->queue;
  uint64_t was = q->head;
  while (q->head < q->tail && q->ring[q->head % RC_QUEUE_RING].state != TICKET_WAITING)
    q->head++;
  return q->head != was;
}

/* Under the lock: ticket t stops waiting; true when the head moved (the
 * next ticket must be woken). */
static bool
queue_leave (uint64_t t)
{
  struct ticket *k = &table->queue.ring[t % RC_QUEUE_RING];
  if (k->state == TICKET_WAITING)
    {
      k->state = TICKET_FREE;
      atomic_fetch_sub (&table->queue.waiting, 1);
    }
  return queue_skip ();
}

struct rc_slot_claim
rc_slot_claim_queued (unsigned max_waiting, uint64_t wait_ms, volatile int *stop,
                      bool (*gone) (void *ud), void *ud, enum rc_queue_verdict *why,
                      uint64_t *waited_us)
{
  struct ticket_queue *q = &table->queue;
  uint64_t start = rc_now_us (), deadline = start + wait_ms * 1000, t;
  struct rc_slot_claim c = rc_slot_claim_now (NULL);

  *why = RC_QUEUE_CLAIMED;
  *waited_us = 0;
  if (c.slot >= 0)
    return c;
  queue_lock ();
  if (q->waiting >= max_waiting || q->tail - q->head >= RC_QUEUE_RING)
    {
      queue_unlock ();
      *why = RC_QUEUE_FULL;
      return c;
    }
  t = q->tail++;
  q->ring[t % RC_QUEUE_RING] = (struct ticket){ .pid = getpid (), .state = TICKET_WAITING };
  atomic_fetch_add (&q->waiting, 1);
  queue_unlock ();

  for (;;)
    {
      uint32_t seen = rc_slot_table_releases ();
      bool first, moved = false;
      uint64_t now;

      queue_lock ();
      queue_skip ();
      first = q->head == t;
      if (first)
        {
          c = claim_any (NULL);
          if (c.slot >= 0)
            moved = queue_leave (t);
        }
      queue_unlock ();
      if (c.slot >= 0)
        {
          if (moved)
            wake (); /* the next ticket is first now */
          *waited_us = rc_now_us () - start;
          return c;
        }
      now = rc_now_us ();
      if ((stop && *stop) || (gone && gone (ud)) || now >= deadline)
        {
          queue_lock ();
          moved = queue_leave (t);
          queue_unlock ();
          if (moved)
            wake ();
          *why = now >= deadline ? RC_QUEUE_TIMEOUT : RC_QUEUE_GONE;
          *waited_us = now - start;
          return c;
        }
      /* Woken by a READY slot or a move of the head; the timeout bounds
       * how late a client's departure or the deadline is noticed. */
      rc_slot_table_wait (seen, deadline - now < 20000 ? (unsigned)(deadline - now) : 20000);
    }
}

unsigned
rc_slot_queue_length (void)
{
  return table ? atomic_load (&table->queue.waiting) : 0;
}

void
rc_slot_queue_forget (pid_t pid)
{
  struct ticket_queue *q;
  bool moved = false;
  if (table == NULL || atomic_load (&table->queue.waiting) == 0)
    return;
  q = &table->queue;
  queue_lock ();
  for (uint64_t t = q->head; t < q->tail; t++)
    if (q->ring[t % RC_QUEUE_RING].pid == pid)
      moved |= queue_leave (t);
  queue_unlock ();
  if (moved)
    wake ();
}

static struct rc_slot_claim
claim_wait (uint64_t wait_ms, uint64_t cleaning_grace_ms, volatile int *stop, bool admitted)
{
  uint64_t start = rc_now_ms ();
  for (;;)
    {
      uint32_t seen = rc_slot_table_releases ();
      bool pending = false;
      struct rc_slot_claim c = admitted ? claim_any (&pending) : rc_slot_claim_now (&pending);
      uint64_t now = rc_now_ms (), limit;
      if (c.slot >= 0 || (stop && *stop))
        return c;
      limit = start + wait_ms + (pending ? cleaning_grace_ms : 0);
      if (now >= limit)
        return c;
      /* Woken by the next READY; the timeout bounds how late a stop or a
       * passed deadline is noticed. */
      rc_slot_table_wait (seen,
                          (unsigned)((limit - now) * 1000 < 20000 ? (limit - now) * 1000 : 20000));
    }
}

struct rc_slot_claim
rc_slot_claim_wait (uint64_t wait_ms, uint64_t cleaning_grace_ms, volatile int *stop)
{
  return claim_wait (wait_ms, cleaning_grace_ms, stop, false);
}

struct rc_slot_claim
rc_slot_claim_wait_admitted (uint64_t wait_ms, volatile int *stop)
{
  return claim_wait (wait_ms, 0, stop, true);
}

bool
rc_slot_mark_starting (unsigned slot)
{
  uint64_t w = atomic_load (&table->slots[slot].word);
  enum rc_slot_state st = W_STATE (w);
  if (st != RC_SLOT_COLD && st != RC_SLOT_BROKEN)
    return false;
  return cas (slot, &w, W_MAKE (RC_SLOT_STARTING, W_SEQ (w), 0));
}

bool
rc_slot_mark_ready (unsigned slot, pid_t init)
{
  uint64_t w = atomic_load (&table->slots[slot].word);
  enum rc_slot_state st = W_STATE (w);
  if (st != RC_SLOT_STARTING && st != RC_SLOT_CLEANING)
    return false;
  atomic_store (&table->slots[slot].init, init);
  if (!cas (slot, &w, W_MAKE (RC_SLOT_READY, W_SEQ (w), 0)))
    return false;
  wake ();
  return true;
}

bool
rc_slot_mark_cleaning (unsigned slot, uint32_t seq)
{
  uint64_t w = atomic_load (&table->slots[slot].word);
  if (W_SEQ (w) != (seq & 0xffffffu))
    return false;
  if (W_STATE (w) == RC_SLOT_CLEANING)
    return true; /* its claimer said so first (rc_run_finish) */
  if (W_STATE (w) != RC_SLOT_RUNNING)
    return false;
  return cas (slot, &w, W_MAKE (RC_SLOT_CLEANING, W_SEQ (w), 0));
}

void
rc_slot_mark_broken (unsigned slot)
{
  uint64_t w = atomic_load (&table->slots[slot].word);
  while (!cas (slot, &w, W_MAKE (RC_SLOT_BROKEN, W_SEQ (w), 0)))
    ;
  /* A claimer waiting for this slot's cleaning must not wait for it. */
  wake ();
}

void
rc_slot_init_gone (unsigned slot, pid_t init)
{
  int32_t expected = (int32_t)init;
  atomic_compare_exchange_strong (&table->slots[slot].init, &expected, 0);
  rc_slot_mark_broken (slot);
}

void
rc_slot_set_failure (unsigned slot, const char *why)
{
  snprintf (table->slots[slot].failure, sizeof table->slots[slot].failure, "%s", why);
}

void
rc_slot_failure (unsigned slot, char *buf, size_t size)
{
  snprintf (buf, size, "%s", table->slots[slot].failure);
}

unsigned
rc_slot_table_count (enum rc_slot_state s)
{
  unsigned n = 0;
  for (unsigned i = 0; table && i < table->n; i++)
    if (W_STATE (atomic_load (&table->slots[i].word)) == s)
      n++;
  return n;
}

unsigned
rc_slot_table_busy (void)
{
  return rc_slot_table_count (RC_SLOT_RUNNING);
}

uint64_t
rc_slot_table_jobs (unsigned slot)
{
  return atomic_load (&table->slots[slot].jobs);
}
