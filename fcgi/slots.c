/* slots.c - slot table in shared memory; see slots.h. */
#include "config.h"

#include "fcgi/slots.h"

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct slot_entry
{
  _Atomic int owner;
  _Atomic int cleaning; /* job answered, owner verifying the slot */
  _Atomic int resident; /* pid of the worker whose resident init is here */
  _Atomic uint64_t jobs;
};

struct slot_table
{
  _Atomic uint64_t rejections;
  /* A futex word: bumped on every release, so a claimer that found no
   * slot sleeps until one is released instead of polling; `waiters` lets
   * a release skip the wake-up call when nobody sleeps. */
  _Atomic uint32_t releases;
  _Atomic uint32_t waiters;
  unsigned n;
  struct slot_entry slots[];
};

static struct slot_table *table;

int
rc_slots_create (unsigned n)
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
rc_slots_count (void)
{
  return table ? table->n : 0;
}

static bool
claim_one (unsigned i, int me)
{
  int expected = RC_SLOT_FREE;
  if (!atomic_compare_exchange_strong (&table->slots[i].owner, &expected, me))
    return false;
  atomic_fetch_add (&table->slots[i].jobs, 1);
  return true;
}

int
rc_slot_claim (int preferred)
{
  int me = (int) getpid ();
  unsigned i;
  if (preferred >= 0 && (unsigned) preferred < table->n && claim_one ((unsigned) preferred, me))
    return preferred;
  /* A slot without another worker's resident init first: taking one
   * costs that worker its resident (the sandbox kills what it finds in a
   * slot at the start of a job). */
  for (i = 0; i < table->n; i++)
    {
      int r = atomic_load (&table->slots[i].resident);
      if ((r == 0 || r == me) && claim_one (i, me))
        return (int) i;
    }
  for (i = 0; i < table->n; i++)
    if (claim_one (i, me))
      return (int) i;
  return -1;
}

void
rc_slot_set_resident (int slot, bool here)
{
  int me = (int) getpid ();
  if (here)
    atomic_store (&table->slots[slot].resident, me);
  else
    {
      int expected = me;
      atomic_compare_exchange_strong (&table->slots[slot].resident, &expected, 0);
    }
}

void
rc_slots_forget_residents (pid_t worker)
{
  for (unsigned i = 0; i < table->n; i++)
    {
      int expected = (int) worker;
      atomic_compare_exchange_strong (&table->slots[i].resident, &expected, 0);
    }
}

/* Free first, then no longer cleaning: a claimer that saw the slot taken
 * and then saw no slot cleaning is sure to find it free on its next try
 * (jobs_wait.c claims once more before answering 429). */
void
rc_slot_release (int slot)
{
  atomic_store (&table->slots[slot].owner, RC_SLOT_FREE);
  atomic_store (&table->slots[slot].cleaning, 0);
  /* The bump comes before the look at `waiters` (both sequentially
   * consistent): a claimer that registers after the look finds the word
   * changed and does not sleep (rc_slots_wait_release). */
  atomic_fetch_add (&table->releases, 1);
  if (atomic_load (&table->waiters) > 0)
    (void) syscall (SYS_futex, &table->releases, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

uint32_t
rc_slots_releases (void)
{
  return atomic_load (&table->releases);
}

void
rc_slots_wait_release (uint32_t seen, unsigned timeout_us)
{
  struct timespec ts = { (time_t) (timeout_us / 1000000), (long) (timeout_us % 1000000) * 1000 };
  atomic_fetch_add (&table->waiters, 1);
  /* Shared, not FUTEX_PRIVATE: the table is MAP_SHARED between the
   * master and every worker.  Returns at once when a release came after
   * `seen` was read (EAGAIN), on a release, a signal or the timeout. */
  if (atomic_load (&table->releases) == seen)
    (void) syscall (SYS_futex, &table->releases, FUTEX_WAIT, seen, &ts, NULL, 0);
  atomic_fetch_sub (&table->waiters, 1);
}

void
rc_slot_quarantine (int slot)
{
  atomic_store (&table->slots[slot].owner, RC_SLOT_QUARANTINED);
  atomic_store (&table->slots[slot].cleaning, 0);
}

void
rc_slot_mark_cleaning (int slot)
{
  atomic_store (&table->slots[slot].cleaning, 1);
}

unsigned
rc_slots_cleaning (void)
{
  unsigned n = 0;
  for (unsigned i = 0; i < table->n; i++)
    if (atomic_load (&table->slots[i].cleaning))
      n++;
  return n;
}

pid_t
rc_slot_owner (int slot)
{
  return (pid_t) atomic_load (&table->slots[slot].owner);
}

bool
rc_slot_take_from (int slot, pid_t dead, pid_t new_owner)
{
  int expected = (int) dead;
  if (!atomic_compare_exchange_strong (&table->slots[slot].owner, &expected, (int) new_owner))
    return false;
  atomic_store (&table->slots[slot].cleaning, 0);
  return true;
}

unsigned
rc_slots_busy (void)
{
  unsigned busy = 0;
  for (unsigned i = 0; i < table->n; i++)
    if (atomic_load (&table->slots[i].owner) != RC_SLOT_FREE)
      busy++;
  return busy;
}

void
rc_slots_count_rejection (void)
{
  atomic_fetch_add (&table->rejections, 1);
}

uint64_t
rc_slots_rejections (void)
{
  return atomic_load (&table->rejections);
}
