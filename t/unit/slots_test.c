/* slots_test.c - the shared slot table: claims, and the wait for a release
 * (fcgi/slots.c), across processes as the workers use it. */
#include "config.h"

#include "common/clock.h"
#include "fcgi/slots.h"
#include "t/unit/tap.h"

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
main (void)
{
  uint64_t t0, dt;
  uint32_t seen;
  pid_t pid;
  int st = 0;

  tap_ok (rc_slots_create (1) == 0, "a table of one slot");
  tap_ok (rc_slot_claim (-1) == 0, "the slot is claimed");
  tap_ok (rc_slot_claim (-1) == -1, "a second claim finds none");

  /* A release from another process wakes the waiter long before its
   * timeout (5 s): the wait is a shared futex, not a poll. */
  seen = rc_slots_releases ();
  pid = fork ();
  if (pid == 0)
    {
      struct timespec d = { 0, 100 * 1000 * 1000 };
      nanosleep (&d, NULL);
      rc_slot_release (0);
      _exit (0);
    }
  t0 = rc_now_ms ();
  rc_slots_wait_release (seen, 5 * 1000 * 1000);
  dt = rc_now_ms () - t0;
  tap_ok (pid > 0 && dt >= 50 && dt < 2500,
          "a release in another process wakes the waiter (%llu ms, release after 100 ms, "
          "timeout 5000 ms)",
          (unsigned long long)dt);
  tap_ok (rc_slots_releases () != seen, "the release count moved");
  tap_ok (rc_slot_claim (-1) == 0, "the released slot is claimed");
  waitpid (pid, &st, 0);

  /* A release between reading the count and waiting: no sleep at all. */
  seen = rc_slots_releases ();
  rc_slot_release (0);
  t0 = rc_now_ms ();
  rc_slots_wait_release (seen, 5 * 1000 * 1000);
  dt = rc_now_ms () - t0;
  tap_ok (dt < 2500, "a release already seen in the count returns at once (%llu ms)",
          (unsigned long long)dt);

  /* No release: the timeout ends the wait. */
  tap_ok (rc_slot_claim (-1) == 0, "claimed again");
  t0 = rc_now_ms ();
  rc_slots_wait_release (rc_slots_releases (), 100 * 1000);
  dt = rc_now_ms () - t0;
  tap_ok (dt >= 90, "without a release the wait ends at its timeout (%llu ms of 100)",
          (unsigned long long)dt);
  tap_ok (rc_slot_claim (-1) == -1, "and the slot is still taken");
  return tap_done ();
}
