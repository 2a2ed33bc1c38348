/* api_judge.c - POST /v1/judge: a submission compiled once and run on
 * every test of the request, each in a fresh sandbox, each with its
 * verdict (docs/api.md, "Judging").
 *
 * The request's life: parse (400 naming a field); one slot claimed at
 * once (429 when every slot runs a job, as /v1/execute); then the answer
 * starts when the client asked for Server-Sent Events (`test` events as
 * tests end, `result` last), and the two phases run (judge_run.c): the
 * compiles, each into a build directory of its own (sandbox/build_dir.h),
 * then the tests.  The build directories go on every path, and so do the
 * jobs: a client that leaves ends the request at the next round.
 * RUN_JUDGE_WALL_MAX bounds it all: past it the jobs are killed and the
 * answer is 503.
 */
#include "config.h"

#include "common/clock.h"
#include "common/log.h"
#include "fcgi/judge/judge.h"
#include "fcgi/metrics.h"

#include <stdlib.h>
#include <string.h>

/* As jobs.c: a slot being cleaned or started is ready within this. */
#define CLEANING_WAIT_MS 3000

static void
judge_free (struct rc_judge *jg)
{
  rc_jpool_drain (&jg->pool);
  if (jg->held.slot >= 0)
    rc_sandbox_release (jg->app->sandbox, jg->held.slot, jg->held.seq);
  for (size_t i = 0; jg->tests && i < jg->req.n_tests; i++)
    {
      struct rc_test_state *ts = &jg->tests[i];
      for (size_t k = 0; k < ts->n_jobs; k++)
        rc_jjob_free (ts->jobs[k]);
      rc_buf_free (&ts->prog.out);
      rc_buf_free (&ts->prog.err);
      rc_buf_free (&ts->message);
      free (ts->output);
    }
  free (jg->tests);
  for (int k = 0; k < 3; k++)
    {
      rc_buf_free (&jg->compiles[k].step.out);
      rc_buf_free (&jg->compiles[k].step.err);
      rc_build_dir_remove (&jg->dirs[k]);
    }
  rc_judge_request_free (&jg->req);
  free (jg);
}

/* An error after the stream began goes as an `error` event. */
static void
answer_error (struct rc_judge *jg, rc_err_t *err, const char *event)
{
  rc_http_error_from (jg->res, err, event);
  if (jg->streaming && !jg->gone)
    (void)rc_http_sse (jg->res, ++jg->events, "error", jg->res->body.data, jg->res->body.len);
}

static void
answer (struct rc_judge *jg)
{
  struct rc_http_response *res = jg->res;
  size_t passed;
  double score;

  res->log_outcome = rc_verdict_name (rc_judge_verdict (jg, &passed, &score));
  rc_judge_render (jg, &res->body);
  res->status = 200;
  res->content_type = "application/json";
  if (jg->streaming)
    (void)rc_http_sse (res, ++jg->events, "result", res->body.data, res->body.len);
}

/* The two phases; the answer or the error. */
static void
judge (struct rc_judge *jg)
{
  rc_err_t err = NULL;
  int r = rc_judge_compile_all (jg, &err);
  bool compiled = true;

  for (int k = 0; k < 3; k++)
    compiled &= !jg->compiles[k].ran || jg->compiles[k].ok;
  if (r == 0 && !compiled)
    rc_judge_skip_all (jg);
  else if (r == 0)
    r = rc_judge_run_tests (jg, &err);
  if (r == 0)
    answer (jg);
  else if (jg->gone)
    jg->res->log_outcome = "client_gone";
  else if (err == NULL && jg->timed_out)
    {
      rc_error_http (&err, 503,
                     "judging took longer than this server allows (RUN_JUDGE_WALL_MAX, %llu s)",
                     (unsigned long long)(jg->cfg->judge.wall_max_ms / 1000));
      answer_error (jg, &err, NULL);
      jg->res->log_outcome = "judge_timeout";
    }
  else
    {
      answer_error (jg, &err, "judge");
      jg->res->log_outcome = rc_outcome_name (RC_OUTCOME_SANDBOX);
    }
}

void
rc_api_judge (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res)
{
  const struct rc_config *cfg = app->cfg;
  struct rc_judge *jg;
  rc_err_t err = NULL;

  res->log_job = true;
  if (app->sandbox == NULL || rc_sandbox_mode_of (app->sandbox) != RC_SANDBOX_ISOLATED)
    {
      /* Build directories and the per-test overlays are the sandbox's. */
      rc_http_error (res, 501, "/v1/judge needs the sandbox (runcell-fcgi as root, RUN_SANDBOX)");
      return;
    }
  jg = calloc (1, sizeof *jg);
  if (jg == NULL)
    {
      rc_http_internal (res, "judge", "out of memory");
      return;
    }
  jg->app = app;
  jg->cfg = cfg;
  jg->res = res;
  jg->held.slot = jg->first_slot = -1;
  for (int k = 0; k < 3; k++)
    jg->dirs[k].fd = -1;
  jg->pool.app = app;
  jg->pool.res = res;
  jg->deadline_ms = rc_now_ms () + cfg->judge.wall_max_ms;
  jg->parallel = cfg->judge.parallel < cfg->concurrency ? cfg->judge.parallel : cfg->concurrency;
  if (rc_judge_request_parse (req->body, req->body_len, cfg, app->langs, &jg->req, &err) < 0)
    {
      rc_http_error_from (res, &err, "judge_request");
      res->log_outcome = "bad_request";
      judge_free (jg);
      return;
    }
  res->log_lang = jg->req.program.lang->slug;
  if (jg->req.interactor.lang && cfg->concurrency < 2)
    {
      /* It would wait for its second slot until RUN_JUDGE_WALL_MAX. */
      rc_http_error (res, 501,
                     "an interactor runs beside the program on a second slot: this "
                     "server has one (RUN_CONCURRENCY)");
      judge_free (jg);
      return;
    }
  jg->first_failed = jg->req.n_tests;
  jg->tests = calloc (jg->req.n_tests, sizeof *jg->tests);
  if (jg->tests == NULL)
    {
      rc_http_internal (res, "judge", "out of memory for %zu tests", jg->req.n_tests);
      judge_free (jg);
      return;
    }
  /* The first slot before anything is answered, as /v1/execute: through
   * the queue (RUN_QUEUE_ROUTES), else 429 at once. */
  if (rc_app_claim (app, res, &jg->held) < 0)
    {
      judge_free (jg);
      return;
    }
  jg->streaming = rc_http_accepts (req->accept, "text/event-stream") && res->stream != NULL;
  if (jg->streaming && rc_http_stream_begin (res, 200, "text/event-stream") < 0)
    jg->gone = true;
  if (!jg->gone)
    judge (jg);
  res->log_compiles = jg->n_compiles;
  res->log_slot = jg->first_slot;
  res->log_wall_ms = jg->wall_ms;
  res->log_cpu_ms = jg->cpu_ms;
  res->log_mem_kb = jg->mem_kb;
  judge_free (jg);
}
