/* judge_run.c - the two phases of a judging: every compile side by side,
 * then the tests, up to `parallel` slots at once, each from its program to
 * its verdict.
 *
 * Slots: the request's first claim was taken before it answered anything
 * (429 when none was free, api_judge.c), and is the first job's.  Every
 * other job claims a slot when it can start (rc_slot_claim_now); when none
 * is free and nothing of the request runs, the request waits for one, up
 * to its deadline.  An interactive test needs two slots at once: it takes
 * the first, waits a moment for a second being cleaned, and otherwise
 * gives the first back and tries again after the next round, so two
 * requests never hold one slot each waiting for the other's.
 *
 * Order: checkers before new tests (a test started is finished first),
 * new tests in request order.  A job's slot is given back as soon as the
 * job ends while more work waits for one; the last ones after the answer.
 *
 * stopOnFailure: once a test fails, every test after it in request order
 * that has not finished is skipped (a running one is killed), whatever
 * finishes later.
 *
 * The idle clock of an interactive test is the pair's: neither the
 * program nor its interactor used CPU for idleMs (each one's own would
 * see only its stderr, the pipes between them are theirs).
 */
#include "config.h"

#include "common/clock.h"
#include "common/json_out.h"
#include "fcgi/judge/compare.h"
#include "fcgi/judge/judge.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How long a claimer waits for a slot being cleaned (jobs.c's bound). */
#define CLEANING_WAIT_MS 3000
#define PAIR_IDLE_TICK_MS 50
/* A slot being cleaned is ready within about a millisecond: a test waits
 * for it on the slot table's futex (woken by the READY) rather than
 * polling, for at most this long, its loop's other jobs held back as
 * long. */
#define SOON_WAIT_MS 3
#define MESSAGE_MAX 1024

const struct rc_judge_program *
rc_judge_program_of (const struct rc_judge *jg, int k)
{
  const struct rc_judge_program *p = k == RC_JUDGE_PROGRAM   ? &jg->req.program
                                     : k == RC_JUDGE_CHECKER ? &jg->req.checker
                                                             : &jg->req.interactor;
  return p->lang ? p : NULL;
}

/* ---- slots ---- */

static struct rc_slot_claim
take_held (struct rc_judge *jg)
{
  struct rc_slot_claim c = jg->held;
  jg->held.slot = -1;
  return c;
}

/* A slot now: the request's held one, else a free one. */
static struct rc_slot_claim
claim_now (struct rc_judge *jg, bool *pending)
{
  *pending = false;
  if (jg->held.slot >= 0)
    return take_held (jg);
  return rc_jpool_claim_now (pending);
}

/* Nothing of the request runs and no slot is free: wait for one (the
 * deadline and the client still heard every second). */
static struct rc_slot_claim
claim_wait (struct rc_judge *jg)
{
  struct rc_slot_claim c = { .slot = -1 };
  uint64_t now = rc_now_ms ();
  if (now < jg->deadline_ms)
    {
      uint64_t left = jg->deadline_ms - now;
      /* Admitted already: it does not wait behind requests queued after
       * it (they wait for its next slot instead). */
      c = rc_slot_claim_wait_admitted (left < 1000 ? left : 1000, &jg->app->shutdown_requested);
    }
  if (rc_http_stream_gone (jg->res))
    jg->gone = true;
  return c;
}

static void
release (struct rc_judge *jg, struct rc_slot_claim c)
{
  if (c.slot >= 0)
    rc_sandbox_release (jg->app->sandbox, c.slot, c.seq);
}

/* ---- a test's end ---- */

/* Keeps the first max bytes of b (at a UTF-8 boundary when b is text). */
static bool
cut (struct rc_buf *b, size_t max)
{
  size_t n = max;
  if (b->len <= max)
    return false;
  if (rc_utf8_valid_prefix (b->data, b->len) == b->len)
    while (n > 0 && ((unsigned char)b->data[n] & 0xc0) == 0x80)
      n--;
  b->len = n;
  b->data[n] = '\0';
  return true;
}

/* Takes a job's one step result (its buffers move). */
static void
take_step (struct rc_jjob *j, struct rc_step_result *to)
{
  rc_buf_free (&to->out);
  rc_buf_free (&to->err);
  if (j->res.n_steps > 0)
    {
      *to = j->res.steps[0];
      memset (&j->res.steps[0].out, 0, sizeof to->out);
      memset (&j->res.steps[0].err, 0, sizeof to->err);
    }
}

static void
set_message (struct rc_test_state *ts, const struct rc_buf *err)
{
  size_t n = err->len < MESSAGE_MAX ? err->len : MESSAGE_MAX;
  rc_buf_reset (&ts->message);
  rc_buf_append (&ts->message, err->data ? err->data : "", n);
  cut (&ts->message, n);
}

static bool
more_work (const struct rc_judge *jg)
{
  for (size_t i = 0; i < jg->req.n_tests; i++)
    if (jg->tests[i].phase == RC_TEST_PENDING
        || (jg->tests[i].phase == RC_TEST_CHECKING && jg->tests[i].n_jobs == 0))
      return true;
  return false;
}

static void
drop_jobs (struct rc_test_state *ts)
{
  for (size_t k = 0; k < ts->n_jobs; k++)
    rc_jjob_free (ts->jobs[k]);
  ts->n_jobs = 0;
}

static void skip_after (struct rc_judge *jg, size_t i);

static void
test_done (struct rc_judge *jg, size_t i, enum rc_verdict v, double score)
{
  struct rc_test_state *ts = &jg->tests[i];
  ts->phase = RC_TEST_DONE;
  ts->verdict = v;
  ts->score = v == RC_VERDICT_ACCEPTED ? 1 : v == RC_VERDICT_PARTIAL ? score : 0;
  drop_jobs (ts);
  free (ts->output);
  ts->output = NULL;
  ts->out_cut = cut (&ts->prog.out, jg->cfg->judge.echo_bytes);
  ts->err_cut = cut (&ts->prog.err, jg->cfg->judge.echo_bytes);
  jg->wall_ms += ts->prog.wall_ms;
  jg->cpu_ms += ts->prog.cpu_ms;
  if (ts->prog.memory_peak_kb > jg->mem_kb)
    jg->mem_kb = ts->prog.memory_peak_kb;
  rc_judge_report_test (jg, i);
  if (jg->req.stop_on_failure && v != RC_VERDICT_ACCEPTED && i < jg->first_failed)
    {
      jg->first_failed = i;
      skip_after (jg, i);
    }
}

static void
test_skip (struct rc_judge *jg, size_t i)
{
  struct rc_test_state *ts = &jg->tests[i];
  rc_buf_free (&ts->prog.out);
  rc_buf_free (&ts->prog.err);
  memset (&ts->prog, 0, sizeof ts->prog);
  rc_buf_reset (&ts->message);
  test_done (jg, i, RC_VERDICT_SKIPPED, 0);
}

/* Every test after i not finished: skipped; a running one is killed and
 * skipped when its jobs come back. */
static void
skip_after (struct rc_judge *jg, size_t i)
{
  for (size_t k = i + 1; k < jg->req.n_tests; k++)
    {
      struct rc_test_state *ts = &jg->tests[k];
      if (ts->phase == RC_TEST_DONE)
        continue;
      if (ts->n_jobs == 0)
        test_skip (jg, k);
      else
        for (size_t m = 0; m < ts->n_jobs; m++)
          if (ts->jobs[m]->run)
            rc_run_stop (ts->jobs[m]->run, RC_OUTCOME_WALL);
    }
}

void
rc_judge_skip_all (struct rc_judge *jg)
{
  for (size_t i = 0; i < jg->req.n_tests; i++)
    if (jg->tests[i].phase != RC_TEST_DONE)
      test_skip (jg, i);
}

/* The program (and interactor) of test i ended: its verdict, or its
 * checker next. */
static void
program_over (struct rc_judge *jg, size_t i)
{
  struct rc_test_state *ts = &jg->tests[i];
  const struct rc_judge_test *t = &jg->req.tests[i];
  enum rc_verdict v;
  double points = 0;

  if (jg->req.interactor.lang)
    {
      struct rc_step_result inter = { 0 };
      take_step (ts->jobs[1], &inter);
      v = rc_verdict_of_interaction (&ts->prog, &inter, &points);
      set_message (ts, &inter.err);
      rc_buf_free (&inter.out);
      rc_buf_free (&inter.err);
      test_done (jg, i, v, points);
      return;
    }
  v = rc_verdict_of_program (&ts->prog);
  if (v == RC_VERDICT_ACCEPTED && jg->req.checker.lang)
    {
      /* The checker reads the whole output: it stays until then. */
      ts->output = ts->prog.out.data;
      ts->output_len = ts->prog.out.len;
      memset (&ts->prog.out, 0, sizeof ts->prog.out);
      rc_buf_append (&ts->prog.out, ts->output ? ts->output : "",
                     ts->output_len < jg->cfg->judge.echo_bytes + 4
                         ? ts->output_len
                         : jg->cfg->judge.echo_bytes + 4);
      drop_jobs (ts);
      ts->phase = RC_TEST_CHECKING;
      return;
    }
  if (v == RC_VERDICT_ACCEPTED && t->expected)
    switch (rc_compare (&jg->req.compare, ts->prog.out.data ? ts->prog.out.data : "",
                        ts->prog.out.len, t->expected, t->expected_len))
      {
      case RC_COMPARE_EQUAL:
        break;
      case RC_COMPARE_PRESENTATION:
        v = RC_VERDICT_PRESENTATION_ERROR;
        break;
      case RC_COMPARE_DIFFERENT:
      default:
        v = RC_VERDICT_WRONG_ANSWER;
        break;
      }
  test_done (jg, i, v, 1);
}

/* Test i's jobs have come back (each call after a round for every test
 * one of whose jobs ended; a test already advanced has no jobs left). */
static void
test_advance (struct rc_judge *jg, size_t i)
{
  struct rc_test_state *ts = &jg->tests[i];

  if (ts->n_jobs == 0)
    return;
  for (size_t k = 0; k < ts->n_jobs; k++)
    if (!ts->jobs[k]->done)
      return;
  /* Killed because an earlier test failed (stopOnFailure). */
  if (jg->req.stop_on_failure && i > jg->first_failed)
    {
      test_skip (jg, i);
      return;
    }
  if (ts->phase == RC_TEST_CHECKING)
    {
      struct rc_jjob *c = ts->jobs[0];
      double points;
      enum rc_verdict v = rc_verdict_of_checker (&c->res.steps[0], &points);
      set_message (ts, &c->res.steps[0].err);
      test_done (jg, i, v, points);
      return;
    }
  take_step (ts->jobs[0], &ts->prog); /* the program is the test's first job */
  program_over (jg, i);
}

/* ---- starting ---- */

static int
start (struct rc_judge *jg, struct rc_jjob *j, struct rc_slot_claim c, rc_err_t *err)
{
  if (rc_jpool_start (&jg->pool, j, c, err) < 0)
    return -1;
  if (jg->first_slot < 0)
    jg->first_slot = c.slot;
  return 0;
}

/* Test i's program and interactor on two slots, joined by two pipes. */
static int
start_interactive (struct rc_judge *jg, size_t i, struct rc_slot_claim c1, struct rc_slot_claim c2,
                   rc_err_t *err)
{
  struct rc_test_state *ts = &jg->tests[i];
  int to_inter[2] = { -1, -1 }, to_prog[2] = { -1, -1 }, r = -1;
  struct rc_jjob *p = NULL, *in = NULL;

  if (pipe2 (to_inter, O_CLOEXEC) < 0 || pipe2 (to_prog, O_CLOEXEC) < 0)
    {
      rc_error_sys (err, "judge: pipe errno=%d", errno);
      goto out;
    }
  if (rc_jjob_program (jg, i, &p, err) < 0 || rc_jjob_interactor (jg, i, &in, err) < 0)
    goto out;
  p->io.given_stdio = in->io.given_stdio = true;
  p->io.stdin_fd = to_prog[0];
  p->io.stdout_fd = to_inter[1];
  in->io.stdin_fd = to_inter[0];
  in->io.stdout_fd = to_prog[1];
  ts->jobs[ts->n_jobs++] = p;
  ts->jobs[ts->n_jobs++] = in;
  p = in = NULL;
  /* Each claim is its job's once started, even when the start failed. */
  r = start (jg, ts->jobs[0], c1, err);
  c1.slot = -1;
  if (r == 0)
    {
      r = start (jg, ts->jobs[1], c2, err);
      c2.slot = -1;
    }
  ts->phase = RC_TEST_RUNNING;
  ts->progress_at_us = rc_now_us ();
  ts->cpu_seen_us = 0;
out:
  /* The inits hold their copies: ours must go for either side to see the
   * other's end. */
  for (int k = 0; k < 2; k++)
    {
      if (to_inter[k] >= 0)
        close (to_inter[k]);
      if (to_prog[k] >= 0)
        close (to_prog[k]);
    }
  rc_jjob_free (p);
  rc_jjob_free (in);
  release (jg, c1);
  release (jg, c2);
  return r;
}

static int
start_one (struct rc_judge *jg, size_t i, struct rc_slot_claim c, rc_err_t *err)
{
  struct rc_test_state *ts = &jg->tests[i];
  struct rc_jjob *j = NULL;
  int r = ts->phase == RC_TEST_CHECKING
              ? rc_jjob_checker (jg, i, ts->output, ts->output_len, &j, err)
              : rc_jjob_program (jg, i, &j, err);
  if (r < 0)
    {
      release (jg, c);
      return -1;
    }
  ts->jobs[ts->n_jobs++] = j;
  if (ts->phase == RC_TEST_PENDING)
    ts->phase = RC_TEST_RUNNING;
  return start (jg, j, c, err);
}

/* Two slots for an interactive test, or none held. */
static bool
claim_pair (struct rc_judge *jg, struct rc_slot_claim *c1, struct rc_slot_claim *c2, bool *pending)
{
  *c1 = claim_now (jg, pending);
  if (c1->slot < 0 && jg->pool.n_running == 0)
    *c1 = claim_wait (jg);
  if (c1->slot < 0)
    return false;
  /* A second being cleaned is ready within milliseconds. */
  *c2 = rc_slot_claim_wait (0, jg->pool.n_running ? 0 : 200, &jg->app->shutdown_requested);
  if (c2->slot >= 0)
    return true;
  if (jg->pool.n_running)
    jg->held = *c1; /* tried again after this round */
  else
    release (jg, *c1);
  *pending = true;
  return false;
}

/* Starts what can start.  *retry_ms: when to try again for a test left
 * waiting for a slot (2 ms when one is being cleaned, 20 ms when another
 * request holds them all), -1 when none is. */
static int
start_ready (struct rc_judge *jg, int *retry_ms, rc_err_t *err)
{
  bool interactive = jg->req.interactor.lang != NULL;
  unsigned room
      = jg->parallel > jg->pool.n_running ? jg->parallel - (unsigned)jg->pool.n_running : 0;

  *retry_ms = -1;
  /* Checkers first, then new tests, each in request order. */
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < jg->req.n_tests; i++)
      {
        struct rc_test_state *ts = &jg->tests[i];
        struct rc_slot_claim c1, c2;
        bool soon = false;
        if (ts->phase != (pass == 0 ? RC_TEST_CHECKING : RC_TEST_PENDING) || ts->n_jobs > 0)
          continue;
        if (jg->req.stop_on_failure && i > jg->first_failed)
          {
            test_skip (jg, i);
            continue;
          }
        if (pass == 1 && interactive)
          {
            if (room < 2 && jg->pool.n_running > 0)
              return 0;
            if (!claim_pair (jg, &c1, &c2, &soon))
              {
                *retry_ms = soon ? 2 : 20;
                return 0;
              }
            if (start_interactive (jg, i, c1, c2, err) < 0)
              return -1;
            room = room > 2 ? room - 2 : 0;
            continue;
          }
        if (room == 0)
          return 0;
        c1 = claim_now (jg, &soon);
        if (c1.slot < 0 && soon)
          c1 = rc_slot_claim_wait (0, SOON_WAIT_MS, &jg->app->shutdown_requested);
        if (c1.slot < 0 && jg->pool.n_running == 0)
          c1 = claim_wait (jg);
        if (c1.slot < 0)
          {
            *retry_ms = soon ? 2 : 20;
            return 0;
          }
        if (start_one (jg, i, c1, err) < 0)
          return -1;
        room--;
      }
  return 0;
}

/* ---- the clocks of the request ---- */

/* The pair idle clock of every interactive test running; the time to the
 * next check. */
static int
pair_idle (struct rc_judge *jg)
{
  uint64_t now = rc_now_us ();
  int next = -1;
  if (jg->req.interactor.lang == NULL)
    return -1;
  for (size_t i = 0; i < jg->req.n_tests; i++)
    {
      struct rc_test_state *ts = &jg->tests[i];
      uint64_t idle_ms = jg->req.tests[i].run.idle_ms, cpu = 0;
      if (ts->phase != RC_TEST_RUNNING || ts->n_jobs != 2 || idle_ms == 0)
        continue;
      if (now >= ts->next_idle_check_us)
        {
          for (size_t k = 0; k < 2; k++)
            {
              uint64_t us = 0;
              struct rc_jjob *j = ts->jobs[k];
              if (j->run && rc_run_cpu_us (j->run, &us) == 0)
                cpu += us;
              else if (j->done && j->res.n_steps)
                cpu += j->res.steps[0].cpu_ms * 1000;
            }
          if (cpu != ts->cpu_seen_us)
            {
              ts->cpu_seen_us = cpu;
              ts->progress_at_us = now;
            }
          else if (now >= ts->progress_at_us + idle_ms * 1000)
            for (size_t k = 0; k < 2; k++)
              if (ts->jobs[k]->run)
                rc_run_stop (ts->jobs[k]->run, RC_OUTCOME_IDLE);
          ts->next_idle_check_us = now + PAIR_IDLE_TICK_MS * 1000;
        }
      if (next < 0 || (int)((ts->next_idle_check_us - now + 999) / 1000) < next)
        next = (int)((ts->next_idle_check_us - now + 999) / 1000);
    }
  return next;
}

static int
min_timeout (int a, int b)
{
  if (a < 0)
    return b;
  if (b < 0)
    return a;
  return a < b ? a : b;
}

/* One round of the pool under the request's clocks: the deadline, the
 * client.  -1 when the request ends (err set on a sandbox failure). */
static int
round_once (struct rc_judge *jg, int timeout, struct rc_jjob **done, size_t *n_done, rc_err_t *err)
{
  uint64_t now = rc_now_ms ();
  bool gone = false;
  if (now >= jg->deadline_ms)
    {
      jg->timed_out = true;
      return -1;
    }
  timeout = min_timeout (timeout, (int)(jg->deadline_ms - now));
  if (rc_jpool_round (&jg->pool, timeout, done, n_done, &gone, err) < 0)
    return -1;
  if (gone)
    {
      jg->gone = true; /* nobody to answer: every job is killed */
      return -1;
    }
  return 0;
}

int
rc_judge_run_tests (struct rc_judge *jg, rc_err_t *err)
{
  struct rc_jjob *done[RC_JPOOL_MAX];
  size_t tests_done[RC_JPOOL_MAX];

  jg->first_failed = jg->req.n_tests;
  for (;;)
    {
      bool left = false;
      size_t n_done = 0;
      int retry_ms, timeout;

      if (start_ready (jg, &retry_ms, err) < 0 || jg->gone)
        return -1;
      for (size_t i = 0; i < jg->req.n_tests && !left; i++)
        left = jg->tests[i].phase != RC_TEST_DONE;
      if (!left)
        return 0;
      /* A test left is running, or waiting for a slot (retry_ms). */
      if (jg->pool.n_running == 0 && retry_ms < 0)
        return rc_error_set (err, EPROTO, "judge: tests left, none running or waiting");
      /* A test waiting for a slot tries again soon; the pair clocks tick. */
      timeout = min_timeout (retry_ms, pair_idle (jg));
      if (round_once (jg, timeout, done, &n_done, err) < 0)
        return -1;
      /* The slots first: advancing a test frees its jobs. */
      for (size_t k = 0; k < n_done; k++)
        {
          tests_done[k] = done[k]->test;
          if (more_work (jg))
            rc_sandbox_end_claim (jg->app->sandbox, done[k]->slot, false);
        }
      for (size_t k = 0; k < n_done; k++)
        test_advance (jg, tests_done[k]);
    }
}

/* ---- the compile phase ---- */

int
rc_judge_compile_all (struct rc_judge *jg, rc_err_t *err)
{
  struct rc_jjob *jobs[3] = { NULL, NULL, NULL }, *done[RC_JPOOL_MAX];
  size_t n = 0, started = 0;
  int kinds[3], ret = -1;

  for (int k = 0; k < 3; k++)
    {
      const struct rc_judge_program *prog = rc_judge_program_of (jg, k);
      if (prog == NULL || prog->lang->execute_compile == NULL)
        continue;
      jg->compiles[k].needed = true;
      if (rc_build_dir_create (jg->cfg, prog->limits.tmp_bytes, &jg->dirs[k], err) < 0
          || rc_jjob_compile (jg, prog, &jg->dirs[k], &jobs[n], err) < 0)
        goto out;
      kinds[n++] = k;
    }
  while (started < n || jg->pool.n_running > 0)
    {
      size_t n_done = 0;
      bool pending = false;
      while (started < n)
        {
          struct rc_slot_claim c = claim_now (jg, &pending);
          if (c.slot < 0 && jg->pool.n_running == 0)
            c = claim_wait (jg);
          if (c.slot < 0)
            break;
          if (start (jg, jobs[started++], c, err) < 0)
            goto out;
        }
      if (jg->gone)
        goto out;
      if (jg->pool.n_running == 0)
        {
          if (rc_now_ms () >= jg->deadline_ms)
            {
              jg->timed_out = true;
              goto out;
            }
          continue;
        }
      if (round_once (jg, pending ? 2 : -1, done, &n_done, err) < 0)
        goto out;
      for (size_t d = 0; d < n_done; d++)
        {
          size_t idx = 0;
          struct rc_judge_compile *c;
          while (jobs[idx] != done[d])
            idx++;
          c = &jg->compiles[kinds[idx]];
          /* Every process of the compile gone before a test reads what it
           * built. */
          rc_sandbox_end_claim (jg->app->sandbox, done[d]->slot, true);
          take_step (done[d], &c->step);
          c->ran = true;
          c->ok = c->step.outcome == RC_OUTCOME_EXITED && c->step.exit_code == 0;
          jg->n_compiles++;
        }
    }
  ret = 0;
out:
  if (ret < 0)
    rc_jpool_drain (&jg->pool);
  for (size_t k = 0; k < n; k++)
    rc_jjob_free (jobs[k]);
  return ret;
}
