/* thrash.c - when a step that sits at its memory limit is stopped as if
 * the OOM killer had taken it.
 *
 * Why this exists.  Without swap, a memory cgroup at its limit can only
 * make room by evicting file pages: the program's own code (a runtime's
 * binary and libraries, node's or the JVM's), its data files, the page
 * cache it read.  The kernel's OOM killer acts only when reclaim stops
 * making progress, and evicting a clean file page is always progress.  A
 * program whose anonymous memory has filled the limit but for a few MiB
 * then lives on that remainder: every page it faults in evicts another of
 * its own pages, which it faults back in a moment later from disk.  It
 * neither grows nor dies; it burns CPU and disk until the wall clock, and
 * the verdict says "wall" for what is a memory limit.  A cold page cache
 * makes it likely: the first job on a fresh host that loads node has
 * node's pages charged to its own cgroup, where its reclaim finds them (CI
 * hit exactly this with TypeScript's memory bomb).
 *
 * The signal.  memory.stat counts workingset refaults: file pages read
 * back while the kernel still remembers evicting them.  A program whose
 * working set fits has next to none, whatever it reads once (a first read
 * is no refault), and a cgroup below its limit has none (nothing of it is
 * evicted, unless the whole host runs short).  So the step thrashes when,
 * for RC_THRASH_SPAN_MS in a row, every sample interval of
 * RC_THRASH_POLL_MS found
 *   - usage within limit/16 (at least RC_THRASH_SLACK_MIN) of the limit,
 *   - and refaults at a rate of at least limit/8 per second,
 * that is, the program re-reads an eighth of its whole allowance every
 * second and has done so for two seconds.  The memory bomb that prompted
 * this refaults about its whole 256 MiB limit per second; a judge's
 * program that fits its limit refaults nothing.  One quiet interval, or
 * one with room below the limit, starts the count again.
 *
 * Then the step ends with the memory verdict, and its stderr line says that
 * the limit was reached by thrashing, not by the kernel's OOM kill.
 */
#include "config.h"

#include "sandbox/process/process.h"

#define RC_THRASH_SLACK_MIN (1024 * 1024)
#define RC_PAGE_BYTES 4096

void
rc_thrash_reset (struct rc_thrash *t)
{
  *t = (struct rc_thrash){ 0 };
}

bool
rc_thrash_feed (struct rc_thrash *t, uint64_t now_us, const struct rc_memory_sample *s)
{
  uint64_t slack, dt_us, refaulted, wanted;
  bool hot;

  if (s->limit == 0 || !s->has_refaults)
    return false;
  if (!t->primed || s->refaults < t->refaults || now_us <= t->at_us)
    {
      t->primed = true;
      t->at_us = now_us;
      t->refaults = s->refaults;
      t->hot_since_us = 0;
      return false;
    }
  dt_us = now_us - t->at_us;
  refaulted = (s->refaults - t->refaults) * RC_PAGE_BYTES;
  t->at_us = now_us;
  t->refaults = s->refaults;

  slack = s->limit / 16 > RC_THRASH_SLACK_MIN ? s->limit / 16 : RC_THRASH_SLACK_MIN;
  /* limit/8 per second over dt; in MiB-scale integers, no overflow for
   * any limit below 2^44 bytes and any interval below an hour. */
  wanted = s->limit / 8 / 1000 * (dt_us / 1000);
  hot = s->usage + slack >= s->limit && refaulted >= wanted;
  if (!hot)
    {
      t->hot_since_us = 0;
      return false;
    }
  if (t->hot_since_us == 0)
    t->hot_since_us = now_us - dt_us; /* the interval that just ended was hot */
  t->rate = dt_us ? refaulted * 1000000 / dt_us : 0;
  return now_us - t->hot_since_us >= RC_THRASH_SPAN_MS * 1000;
}
