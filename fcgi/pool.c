/* pool.c - the workers' scoreboard; see pool.h. */
#include "config.h"

#include "fcgi/pool.h"

#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>

struct pool
{
  unsigned max;
  _Atomic unsigned count[RC_WORKER_STATES];
  _Atomic int asked; /* a worker sent SIGUSR1 the master has not handled */
  _Atomic unsigned char state[];
};

static struct pool *pool;

int
rc_pool_create (unsigned max)
{
  size_t size = sizeof (struct pool) + max;
  void *p = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return -1;
  pool = p;
  pool->max = max;
  pool->count[RC_WORKER_EMPTY] = max;
  return 0;
}

unsigned
rc_pool_max (void)
{
  return pool ? pool->max : 0;
}

void
rc_pool_set (unsigned index, enum rc_worker_state state)
{
  unsigned char was;
  if (pool == NULL || index >= pool->max)
    return;
  was = atomic_exchange (&pool->state[index], (unsigned char)state);
  if (was == (unsigned char)state)
    return;
  atomic_fetch_sub (&pool->count[was], 1);
  atomic_fetch_add (&pool->count[state], 1);
}

enum rc_worker_state
rc_pool_state (unsigned index)
{
  if (pool == NULL || index >= pool->max)
    return RC_WORKER_EMPTY;
  return (enum rc_worker_state)atomic_load (&pool->state[index]);
}

unsigned
rc_pool_count (enum rc_worker_state state)
{
  return pool ? atomic_load (&pool->count[state]) : 0;
}

bool
rc_pool_want_more (unsigned spare)
{
  int no = 0;
  if (pool == NULL)
    return false;
  if (atomic_load (&pool->count[RC_WORKER_IDLE]) + atomic_load (&pool->count[RC_WORKER_STARTING])
      >= spare)
    return false;
  return atomic_compare_exchange_strong (&pool->asked, &no, 1);
}

void
rc_pool_heard (void)
{
  if (pool)
    atomic_store (&pool->asked, 0);
}
