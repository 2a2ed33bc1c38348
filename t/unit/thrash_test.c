/* thrash_test.c - the thrash watch's rule (sandbox/process/thrash.c) on made-up
 * sample series: which ones end a step with the memory verdict, and when.
 * The series are what memory.stat showed for the cases named (a node
 * memory bomb on a cold page cache refaulted ~60000 pages/s at 256 MiB).
 * No kernel state.  TAP.
 */
#include "config.h"

#include "sandbox/process/process.h"
#include "t/unit/tap.h"

#define MIB (1024ULL * 1024)
#define PAGES_PER_MIB 256ULL

/* Feeds samples every step_ms: usage[i] MiB charged and refault pages
 * rising by rate_pages[i] over the interval before sample i.  Returns the
 * time (ms since the first sample) at which the rule fired, or -1. */
static long
fire_time (uint64_t limit_mib, size_t n, const uint64_t *usage_mib, const uint64_t *rate_pages,
           unsigned step_ms)
{
  struct rc_thrash t;
  uint64_t refaults = 1000;

  rc_thrash_reset (&t);
  for (size_t i = 0; i < n; i++)
    {
      struct rc_memory_sample s = {
        .usage = usage_mib[i] * MIB,
        .limit = limit_mib * MIB,
        .refaults = refaults += rate_pages[i],
        .has_refaults = true,
      };
      if (rc_thrash_feed (&t, 1000000 + (uint64_t)i * step_ms * 1000, &s))
        return (long)(i * step_ms);
    }
  return -1;
}

static void
series (const char *name, uint64_t limit, uint64_t usage, uint64_t pages, size_t n, long want)
{
  uint64_t u[64], r[64];
  long got;
  for (size_t i = 0; i < n; i++)
    {
      u[i] = usage;
      r[i] = pages;
    }
  got = fire_time (limit, n, u, r, RC_THRASH_POLL_MS);
  tap_ok (got == want, "%s: fired at %ld ms (want %ld)", name, got, want);
}

int
main (void)
{
  struct rc_thrash t;
  struct rc_memory_sample s = { .usage = 256 * MIB, .limit = 256 * MIB, .has_refaults = true };
  uint64_t span = RC_THRASH_SPAN_MS, poll = RC_THRASH_POLL_MS;
  /* pages per interval that make limit/8 per second, for 256 MiB */
  uint64_t eighth = 256 * PAGES_PER_MIB / 8 * poll / 1000;

  /* The node memory bomb: at the limit, ~30000 pages per half second.
   * The first sample is the baseline, so the first hot interval ends at
   * one poll and the rule fires SPAN later. */
  series ("node bomb at 256 MiB", 256, 256, 30000, 20, (long)span);
  series ("at the limit, refaults exactly limit/8 per second", 256, 256, eighth, 20, (long)span);
  series ("at the limit, refaults just below limit/8 per second", 256, 256, eighth - 1, 20, -1);
  series ("at the limit, no refaults (a program that fits)", 256, 256, 0, 20, -1);
  series ("refaulting with 32 MiB free (the host is short, not the job)", 256, 224, 30000, 20, -1);
  series ("within limit/16 of the limit and refaulting", 256, 241, 30000, 20, (long)span);
  series ("a 16 MiB limit: slack is 1 MiB, rate 2 MiB/s", 16, 16, 16 * PAGES_PER_MIB / 8 / 2, 20,
          (long)span);
  series ("no memory limit", 0, 256, 30000, 20, -1);

  /* A burst shorter than the span, then quiet, then a burst: no fire. */
  {
    uint64_t u[12], r[12];
    for (size_t i = 0; i < 12; i++)
      {
        u[i] = 256;
        r[i] = (i % 4 == 0) ? 0 : 30000; /* three hot intervals, one quiet */
      }
    tap_ok (fire_time (256, 12, u, r, RC_THRASH_POLL_MS) == -1,
            "hot runs shorter than %llu ms, broken by a quiet interval: no fire",
            (unsigned long long)span);
  }
  /* Sampled late (a busy worker): the rate is per actual interval. */
  {
    uint64_t u[8] = { 256, 256, 256, 256, 256, 256, 256, 256 };
    uint64_t r[8] = { 0, 60000, 60000, 60000, 60000, 60000, 60000, 60000 };
    long got = fire_time (256, 8, u, r, 1000);
    tap_ok (got == 2000, "one-second samples at 60000 pages: fired at %ld ms (want 2000)", got);
    r[1] = r[2] = r[3] = 4000; /* 16 MiB/s < 32 MiB/s over a whole second */
    got = fire_time (256, 4, u, r, 1000);
    tap_ok (got == -1, "one-second samples at 4000 pages (16 MiB/s): no fire (got %ld)", got);
  }
  /* No counter in this kernel's memory.stat: never fires. */
  rc_thrash_reset (&t);
  s.has_refaults = false;
  {
    bool fired = false;
    for (int i = 0; i < 20; i++)
      {
        s.refaults += 100000;
        fired |= rc_thrash_feed (&t, 1000000 + (uint64_t)i * poll * 1000, &s);
      }
    tap_ok (!fired, "memory.stat without a refault counter: never fires");
  }
  /* A counter that went backwards (a new cgroup): taken as a new baseline. */
  rc_thrash_reset (&t);
  s.has_refaults = true;
  s.refaults = 5000000;
  rc_thrash_feed (&t, 1000000, &s);
  s.refaults = 10;
  tap_ok (!rc_thrash_feed (&t, 1000000 + poll * 1000, &s) && t.hot_since_us == 0,
          "a counter that went backwards restarts the watch");
  /* The rate reported is bytes per second of the last hot interval. */
  rc_thrash_reset (&t);
  s.refaults = 0;
  rc_thrash_feed (&t, 1000000, &s);
  s.refaults = 30000;
  rc_thrash_feed (&t, 1000000 + poll * 1000, &s);
  tap_ok (t.rate == 30000ULL * 4096 * 1000 / poll, "rate: %llu bytes/s (want %llu)",
          (unsigned long long)t.rate, 30000ULL * 4096 * 1000 / poll);
  return tap_done ();
}
