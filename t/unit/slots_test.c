/* slots_test.c - the shared slot table (sandbox/slot/slot_table.c): its
 * states, claims and their sequence, and the wait for a ready slot, across
 * processes as the keeper, the workers and the inits use it. */
#include "config.h"

#include "common/clock.h"
#include "sandbox/slot/slot_table.h"
#include "t/unit/tap.h"

#include <string.h>

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void
sleep_ms (long ms)
{
  struct timespec s = { ms / 1000, (ms % 1000) * 1000 * 1000 };
  nanosleep (&s, NULL);
}

/* A child that queues for the one slot, writes its index to fd once
 * served, holds the slot hold_ms and gives it back. */
static pid_t
queue_child (int fd, char index, long hold_ms)
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      enum rc_queue_verdict why;
      uint64_t waited;
      struct rc_slot_claim c = rc_slot_claim_queued (8, 10000, NULL, NULL, NULL, &why, &waited);
      if (c.slot < 0)
        _exit (1);
      if (write (fd, &index, 1) != 1)
        _exit (2);
      sleep_ms (hold_ms);
      rc_slot_mark_cleaning ((unsigned)c.slot, c.seq);
      rc_slot_mark_ready ((unsigned)c.slot, 1234);
      _exit (0);
    }
  return pid;
}

/* The wait queue: order, bound, timeout, a holder that dies, and claims
 * that do not queue while it holds requests. */
static void
test_queue (void)
{
  struct rc_slot_claim c, d;
  enum rc_queue_verdict why;
  uint64_t waited, t0;
  pid_t kids[4], dead;
  char order[4] = { 0 };
  int fds[2], st;
  bool pending = true;

  c = rc_slot_claim_now (NULL);
  tap_ok (c.slot == 0, "queue: the one slot is taken");
  if (c.slot < 0 || pipe (fds) < 0)
    return;
  /* Tickets taken 60 ms apart: their order is known. */
  for (char i = 0; i < 3; i++)
    {
      kids[(int)i] = queue_child (fds[1], (char)('a' + i), 30);
      sleep_ms (60);
    }
  tap_ok (rc_slot_queue_length () == 3, "queue: three requests wait (%u)", rc_slot_queue_length ());
  d = rc_slot_claim_now (&pending);
  tap_ok (d.slot == -1 && !pending,
          "queue: a claim that does not queue finds the runner busy while requests wait");
  t0 = rc_now_ms ();
  d = rc_slot_claim_queued (3, 5000, NULL, NULL, NULL, &why, &waited);
  tap_ok (d.slot == -1 && why == RC_QUEUE_FULL && rc_now_ms () - t0 < 100,
          "queue: a fourth request past RUN_QUEUE_MAX=3 is refused at once");
  /* Give the slot back: the tickets are served in the order taken. */
  rc_slot_mark_cleaning (0, c.seq);
  rc_slot_mark_ready (0, 1234);
  for (int i = 0; i < 3; i++)
    waitpid (kids[i], &st, 0);
  close (fds[1]);
  tap_ok (read (fds[0], order, 3) == 3 && memcmp (order, "abc", 3) == 0,
          "queue: served first come, first served (%.3s)", order);
  close (fds[0]);
  tap_ok (rc_slot_queue_length () == 0, "queue: empty again");

  /* A wait that runs out. */
  c = rc_slot_claim_now (NULL);
  t0 = rc_now_ms ();
  d = rc_slot_claim_queued (8, 100, NULL, NULL, NULL, &why, &waited);
  tap_ok (d.slot == -1 && why == RC_QUEUE_TIMEOUT && waited >= 90000 && rc_now_ms () - t0 < 2000,
          "queue: the wait ends after RUN_QUEUE_WAIT_MS (%llu us)", (unsigned long long)waited);
  tap_ok (rc_slot_queue_length () == 0, "queue: a ticket that timed out is gone");

  /* The first ticket's holder dies: the next one is served all the same. */
  if (pipe (fds) < 0)
    return;
  dead = fork ();
  if (dead == 0)
    {
      enum rc_queue_verdict w;
      uint64_t x;
      (void)rc_slot_claim_queued (8, 10000, NULL, NULL, NULL, &w, &x);
      _exit (3);
    }
  sleep_ms (60);
  kids[0] = queue_child (fds[1], 'z', 0);
  sleep_ms (60);
  kill (dead, SIGKILL);
  waitpid (dead, &st, 0);
  rc_slot_queue_forget (dead);
  rc_slot_mark_cleaning (0, c.seq);
  rc_slot_mark_ready (0, 1234);
  waitpid (kids[0], &st, 0);
  close (fds[1]);
  tap_ok (read (fds[0], order, 1) == 1 && order[0] == 'z' && WIFEXITED (st)
              && WEXITSTATUS (st) == 0,
          "queue: the ticket of a process that died is skipped");
  close (fds[0]);
}

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
  tap_ok (!rc_slot_claim_transfer (0, c.seq, getpid () + 1, 4242),
          "a claim is not transferred by a process that does not own it");
  tap_ok (!rc_slot_claim_transfer (0, c.seq + 1, getpid (), 4242),
          "nor under another claim's sequence");
  tap_ok (rc_slot_claim_transfer (0, c.seq, getpid (), 4242), "its owner transfers it");
  rc_slot_table_read (0, &v);
  tap_ok (v.state == RC_SLOT_RUNNING && v.owner == 4242 && v.seq == c.seq,
          "the claim is the new owner's, still running, same sequence");
  tap_ok (rc_slot_claim_transfer (0, c.seq, 4242, getpid ()), "and back");
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
  rc_slot_mark_ready (0, 1234);
  test_queue ();
  return tap_done ();
}
