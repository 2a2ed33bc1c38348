/* pool.h - the workers' scoreboard: what each worker is doing, shared by
 * the master and its workers (an anonymous MAP_SHARED mapping made before
 * the first fork).
 *
 * The pool grows and shrinks (fcgi/master.c): a worker that takes a
 * request while the idle ones fall below RUN_SPARE_WORKERS asks the master
 * for more (SIGUSR1, once until the master has looked), up to
 * RUN_WORKERS_MAX; the master retires idle extras one at a time once they
 * have been idle a while.  A worker waiting in the queue for a slot is
 * busy: the pool grows past it, so /health and /metrics always find an
 * idle worker.
 */
#ifndef RUNCELL_FCGI_POOL_H
#define RUNCELL_FCGI_POOL_H

#include <stdbool.h>
#include <sys/types.h>

enum rc_worker_state
{
  RC_WORKER_EMPTY = 0, /* no worker in this entry */
  RC_WORKER_STARTING,  /* forked, not accepting yet */
  RC_WORKER_IDLE,      /* waiting for a connection */
  RC_WORKER_BUSY,      /* serving a request (a queued one included) */
  RC_WORKER_LEAVING,   /* told to exit once its request is answered */
  RC_WORKER_STATES
};

int rc_pool_create (unsigned max);
unsigned rc_pool_max (void);
/* Moves entry index to state, keeping the per-state counts. */
void rc_pool_set (unsigned index, enum rc_worker_state state);
enum rc_worker_state rc_pool_state (unsigned index);
unsigned rc_pool_count (enum rc_worker_state state);
/* A worker that just became busy: true when it should ask the master for
 * more workers (idle below spare, and nobody asked since the master last
 * looked).  The master calls rc_pool_heard once it has. */
bool rc_pool_want_more (unsigned spare);
void rc_pool_heard (void);

#endif
