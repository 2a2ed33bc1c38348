/* proc_table.c - the processes' shared table; see proc_table.h. */
#include "config.h"

#include "fcgi/processes/proc_table.h"
#include "common/clock.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

enum
{
  E_FREE = 0,
  E_ALIVE,
  E_KEPT,
  E_LEAVING,
};

/* One word per entry: state (32 bits) | pid (32), so that a transition is
 * one compare-and-swap naming the pid it expects. */
#define W_STATE(w) ((unsigned)((w) >> 32))
#define W_PID(w) ((pid_t)(uint32_t)(w))
#define W_MAKE(st, pid) (((uint64_t)(st) << 32) | (uint64_t)(uint32_t)(pid))

struct entry
{
  _Atomic uint64_t word;
  _Atomic uint64_t since_ms; /* when it was kept */
  char id[RC_PROC_ID_MAX + 1];
};

struct table
{
  _Atomic unsigned alive;
  unsigned max_alive, max_kept, n;
  struct entry e[];
};

static struct table *table;

int
rc_proc_table_create (unsigned max_alive)
{
  unsigned n = max_alive * 3;
  size_t size = sizeof (struct table) + n * sizeof (struct entry);
  void *p = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return -1;
  table = p;
  table->max_alive = max_alive;
  table->max_kept = max_alive;
  table->n = n;
  return 0;
}

static void
uncount (void)
{
  atomic_fetch_sub (&table->alive, 1);
}

int
rc_proc_table_reserve (pid_t owner, const char *id)
{
  unsigned a = atomic_load (&table->alive);
  do
    if (a >= table->max_alive)
      return -1;
  while (!atomic_compare_exchange_weak (&table->alive, &a, a + 1));
  for (unsigned i = 0; i < table->n; i++)
    {
      uint64_t w = W_MAKE (E_FREE, 0);
      if (atomic_compare_exchange_strong (&table->e[i].word, &w, W_MAKE (E_ALIVE, owner)))
        {
          snprintf (table->e[i].id, sizeof table->e[i].id, "%s", id);
          return (int)i;
        }
    }
  /* Every entry is taken by kept or leaving supervisors: too many. */
  uncount ();
  return -1;
}

bool
rc_proc_table_transfer (int e, pid_t from, pid_t to)
{
  uint64_t w = W_MAKE (E_ALIVE, from);
  return atomic_compare_exchange_strong (&table->e[e].word, &w, W_MAKE (E_ALIVE, to));
}

/* More kept than may be: the oldest goes. */
static void
evict_oldest (void)
{
  unsigned kept = 0, oldest = 0;
  uint64_t oldest_ms = UINT64_MAX;
  for (unsigned i = 0; i < table->n; i++)
    {
      uint64_t w = atomic_load (&table->e[i].word);
      if (W_STATE (w) != E_KEPT)
        continue;
      kept++;
      if (atomic_load (&table->e[i].since_ms) < oldest_ms)
        {
          oldest_ms = atomic_load (&table->e[i].since_ms);
          oldest = i;
        }
    }
  if (kept > table->max_kept)
    {
      uint64_t w = atomic_load (&table->e[oldest].word);
      /* The pid is still its supervisor's: the entry is freed only when
       * the master has reaped it. */
      if (W_STATE (w) == E_KEPT
          && atomic_compare_exchange_strong (&table->e[oldest].word, &w,
                                             W_MAKE (E_LEAVING, W_PID (w))))
        kill (W_PID (w), SIGTERM);
    }
}

void
rc_proc_table_exited (int e, pid_t pid)
{
  uint64_t w = W_MAKE (E_ALIVE, pid);
  atomic_store (&table->e[e].since_ms, rc_now_ms ());
  if (atomic_compare_exchange_strong (&table->e[e].word, &w, W_MAKE (E_KEPT, pid)))
    {
      uncount ();
      evict_oldest ();
    }
}

static bool
release (unsigned i, pid_t pid)
{
  uint64_t w = atomic_load (&table->e[i].word);
  while (W_STATE (w) != E_FREE && W_PID (w) == pid)
    if (atomic_compare_exchange_weak (&table->e[i].word, &w, W_MAKE (E_FREE, 0)))
      {
        if (W_STATE (w) == E_ALIVE)
          uncount ();
        return true;
      }
  return false;
}

void
rc_proc_table_release (int e, pid_t pid)
{
  if (e >= 0)
    (void)release ((unsigned)e, pid);
}

bool
rc_proc_table_reaped (pid_t pid, void (*gone) (const char *id, void *ud), void *ud)
{
  bool found = false;
  for (unsigned i = 0; table && i < table->n; i++)
    {
      char id[RC_PROC_ID_MAX + 1];
      memcpy (id, table->e[i].id, sizeof id);
      if (release (i, pid))
        {
          found = true;
          if (gone)
            gone (id, ud);
        }
    }
  return found;
}

unsigned
rc_proc_table_alive (void)
{
  return table ? atomic_load (&table->alive) : 0;
}

unsigned
rc_proc_table_supervisors (void)
{
  unsigned n = 0;
  for (unsigned i = 0; table && i < table->n; i++)
    if (W_STATE (atomic_load (&table->e[i].word)) != E_FREE)
      n++;
  return n;
}

void
rc_proc_table_signal (int sig)
{
  for (unsigned i = 0; table && i < table->n; i++)
    {
      uint64_t w = atomic_load (&table->e[i].word);
      if (W_STATE (w) != E_FREE && W_PID (w) > 0)
        kill (W_PID (w), sig);
    }
}
