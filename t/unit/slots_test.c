/* slots_test.c - the shared slot table (sandbox/slot/slot_table.c): its
 * states, claims and their sequence, and the wait for a ready slot, across
 * processes as the keeper, the workers and the inits use it. */
#include "config.h"

#include "common/clock.h"
#include "sandbox/slot/slot_table.h"
#include "t/unit/tap.h"

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
main (void)
{
  struct rc_slot_claim c, d;
  struct rc_slot_view v;
  uint64_t t0, dt;
  uint32_t seen;
  bool pending = false;
  pid_t pid;
  int st = 0;

  tap_ok (rc_slot_table_create (1) == 0, "a table of one slot");
  rc_slot_table_read (0, &v);
  tap_ok (v.state == RC_SLOT_COLD, "a new slot is cold (%s)", rc_slot_state_name (v.state));
  c = rc_slot_claim_now (&pending);
  tap_ok (c.slot == -1 && pending, "a cold slot cannot be claimed, but will be ready");
  tap_ok (rc_slot_mark_starting (0) && !rc_slot_mark_starting (0), "cold -> starting, once");
  tap_ok (rc_slot_mark_ready (0, 1234), "starting -> ready");
  c = rc_slot_claim_now (NULL);
  rc_slot_table_read (0, &v);
  tap_ok (c.slot == 0 && c.init == 1234 && v.state == RC_SLOT_RUNNING && v.owner == getpid ()
              && v.seq == c.seq,
          "ready -> running: the claim names the slot, its init and the sequence");
  d = rc_slot_claim_now (NULL);
  tap_ok (d.slot == -1, "a second claim finds none");
  tap_ok (!rc_slot_mark_cleaning (0, c.seq + 1), "an END of another claim is refused");
  tap_ok (rc_slot_mark_cleaning (0, c.seq), "running -> cleaning with the claim's sequence");
  rc_slot_table_read (0, &v);
  tap_ok (rc_slot_mark_cleaning (0, c.seq) && v.state == RC_SLOT_CLEANING && v.owner == 0,
          "twice is harmless (the claimer and the init both say so), the owner is gone");

  /* Ready in another process wakes the waiter long before its timeout
   * (5 s): the wait is a shared futex, not a poll. */
  seen = rc_slot_table_releases ();
  pid = fork ();
  if (pid == 0)
    {
      struct timespec s = { 0, 100 * 1000 * 1000 };
      nanosleep (&s, NULL);
      rc_slot_mark_ready (0, 1234);
      _exit (0);
    }
  t0 = rc_now_ms ();
  rc_slot_table_wait (seen, 5 * 1000 * 1000);
  dt = rc_now_ms () - t0;
  tap_ok (pid > 0 && dt >= 50 && dt < 2500,
          "ready in another process wakes the waiter (%llu ms, ready after 100 ms, timeout "
          "5000 ms)",
          (unsigned long long)dt);
  waitpid (pid, &st, 0);
  d = rc_slot_claim_now (NULL);
  tap_ok (d.slot == 0 && d.seq != c.seq, "claimed again, with a new sequence");

  /* A claim that waits through a cleaning. */
  tap_ok (rc_slot_mark_cleaning (0, d.seq), "cleaning again");
  pid = fork ();
  if (pid == 0)
    {
      struct timespec s = { 0, 100 * 1000 * 1000 };
      nanosleep (&s, NULL);
      rc_slot_mark_ready (0, 1234);
      _exit (0);
    }
  t0 = rc_now_ms ();
  c = rc_slot_claim_wait (0, 3000, NULL);
  dt = rc_now_ms () - t0;
  tap_ok (c.slot == 0 && dt >= 50 && dt < 2500,
          "a claim without a wait of its own waits for a slot being cleaned (%llu ms)",
          (unsigned long long)dt);
  waitpid (pid, &st, 0);

  /* Running, nothing pending: the wait times out. */
  t0 = rc_now_ms ();
  d = rc_slot_claim_wait (100, 3000, NULL);
  dt = rc_now_ms () - t0;
  tap_ok (d.slot == -1 && dt >= 90 && dt < 2500,
          "every slot running: the claim gives up after its wait (%llu ms)",
          (unsigned long long)dt);
  rc_slot_mark_broken (0);
  rc_slot_table_read (0, &v);
  tap_ok (v.state == RC_SLOT_BROKEN && rc_slot_mark_starting (0),
          "broken from any state, and started again from there");
  return tap_done ();
}
