/* slot_table.c - the slots' states in shared memory; see slot_table.h. */
#include "config.h"

#include "common/clock.h"
#include "sandbox/slot/slot_table.h"

#include <limits.h>
#include <stdio.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* One word per slot: state (8 bits) | claim sequence (24) | owner (32). */
#define W_STATE(w) ((enum rc_slot_state)((w) >> 56))
#define W_SEQ(w) ((uint32_t)(((w) >> 32) & 0xffffffu))
#define W_OWNER(w) ((pid_t)(uint32_t)(w))
#define W_MAKE(st, seq, owner)                                                                     \
  (((uint64_t)(st) << 56) | ((uint64_t)((seq) & 0xffffffu) << 32) | (uint64_t)(uint32_t)(owner))

struct slot_entry
{
  _Atomic uint64_t word;
  _Atomic int32_t init;
  _Atomic uint64_t jobs;
  _Atomic uint32_t retire;
  char failure[128]; /* written by the init before it exits, read after */
};

struct slot_table
{
  /* The futex word: bumped whenever a slot becomes READY; `waiters` lets
   * the bump skip the wake-up call when nobody sleeps. */
  _Atomic uint32_t releases;
  _Atomic uint32_t waiters;
  unsigned n;
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
  if (p == MAP_FAILED)
    return -1;
  table = p;
  table->n = n;
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

struct rc_slot_claim
rc_slot_claim_now (bool *pending)
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
rc_slot_claim_wait (uint64_t wait_ms, uint64_t cleaning_grace_ms, volatile int *stop)
{
  uint64_t start = rc_now_ms ();
  for (;;)
    {
      uint32_t seen = rc_slot_table_releases ();
      bool pending = false;
      struct rc_slot_claim c = rc_slot_claim_now (&pending);
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
