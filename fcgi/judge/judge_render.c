/* judge_render.c - the answer of POST /v1/judge: each test, the compile
 * steps, the submission's verdict and score; and each test's `test` event
 * when the client asked for Server-Sent Events.
 *
 * A test's exitCode, signal, limit and usage are its program's (also on
 * checker_error: the checker's failure is not the program's), rendered by
 * the /v1 step renderer (step_render.c) that /v1/execute uses.
 */
#include "config.h"

#include "common/json_out.h"
#include "common/log.h"
#include "fcgi/execute/step_render.h"
#include "fcgi/judge/judge.h"

#include <stdio.h>

enum rc_verdict
rc_judge_verdict (const struct rc_judge *jg, size_t *passed, double *score)
{
  enum rc_verdict v = RC_VERDICT_ACCEPTED;
  double sum = 0;
  *passed = 0;
  for (size_t i = 0; i < jg->req.n_tests; i++)
    {
      const struct rc_test_state *ts = &jg->tests[i];
      if (ts->verdict == RC_VERDICT_ACCEPTED)
        (*passed)++;
      else if (v == RC_VERDICT_ACCEPTED)
        v = ts->verdict;
      sum += ts->score;
    }
  *score = jg->req.n_tests ? sum / (double)jg->req.n_tests : 0;
  if (jg->compiles[RC_JUDGE_PROGRAM].ran && !jg->compiles[RC_JUDGE_PROGRAM].ok)
    return RC_VERDICT_COMPILE_ERROR;
  for (int k = RC_JUDGE_CHECKER; k <= RC_JUDGE_INTERACTOR; k++)
    if (jg->compiles[k].ran && !jg->compiles[k].ok)
      return RC_VERDICT_CHECKER_ERROR;
  return v;
}

void
rc_judge_render_test (const struct rc_judge *jg, size_t i, bool index, struct rc_buf *b)
{
  const struct rc_test_state *ts = &jg->tests[i];
  bool first = true, base64 = jg->req.base64_out;

  rc_buf_append (b, "{", 1);
  if (index)
    {
      rc_json_key (b, &first, "index");
      rc_json_u64 (b, i);
    }
  rc_json_key (b, &first, "name");
  rc_json_cstring (b, jg->req.tests[i].name);
  rc_json_key (b, &first, "verdict");
  rc_json_cstring (b, rc_verdict_name (ts->verdict));
  rc_v1_render_exit (b, &first, &ts->prog);
  rc_v1_render_usage (b, &first, &ts->prog);
  rc_json_key (b, &first, "stdout");
  rc_v1_render_output (b, ts->prog.out.data, ts->prog.out.len, base64,
                       ts->out_cut || ts->prog.outcome == RC_OUTCOME_OUTPUT);
  if (ts->out_cut)
    rc_buf_append_str (b, ",\"stdoutTruncated\":true");
  rc_json_key (b, &first, "stderr");
  rc_v1_render_output (b, ts->prog.err.data, ts->prog.err.len, base64,
                       ts->err_cut || ts->prog.outcome == RC_OUTCOME_OUTPUT);
  if (ts->err_cut)
    rc_buf_append_str (b, ",\"stderrTruncated\":true");
  rc_json_key (b, &first, "message");
  rc_v1_render_bytes (b, ts->message.data, ts->message.len, base64);
  rc_json_key (b, &first, "score");
  rc_buf_printf (b, "%.6g", ts->score);
  rc_buf_append (b, "}", 1);
}

static void
render_compile (const struct rc_judge *jg, int k, const char *key, struct rc_buf *b)
{
  const struct rc_judge_compile *c = &jg->compiles[k];
  if (k != RC_JUDGE_PROGRAM && !c->ran)
    return; /* a checker's or interactor's only when it had one */
  rc_buf_printf (b, ",\"%s\":", key);
  if (c->ran)
    rc_v1_render_step (b, &c->step, jg->req.base64_out);
  else
    rc_json_null (b);
}

void
rc_judge_render (const struct rc_judge *jg, struct rc_buf *b)
{
  size_t passed;
  double score;
  enum rc_verdict v = rc_judge_verdict (jg, &passed, &score);

  rc_buf_reset (b);
  rc_buf_append_str (b, "{\"verdict\":");
  rc_json_cstring (b, rc_verdict_name (v));
  rc_buf_printf (b, ",\"passed\":%zu,\"total\":%zu,\"score\":%.6g", passed, jg->req.n_tests, score);
  render_compile (jg, RC_JUDGE_PROGRAM, "compile", b);
  render_compile (jg, RC_JUDGE_CHECKER, "checkerCompile", b);
  render_compile (jg, RC_JUDGE_INTERACTOR, "interactorCompile", b);
  rc_buf_append_str (b, ",\"tests\":[");
  for (size_t i = 0; i < jg->req.n_tests; i++)
    {
      if (i)
        rc_buf_append (b, ",", 1);
      rc_judge_render_test (jg, i, false, b);
    }
  rc_buf_append_str (b, "]}");
}

void
rc_judge_report_test (struct rc_judge *jg, size_t i)
{
  struct rc_buf b = { 0 };
  if (!jg->streaming || jg->gone || jg->tests[i].reported)
    return;
  jg->tests[i].reported = true;
  rc_judge_render_test (jg, i, true, &b);
  if (b.data == NULL || rc_http_sse (jg->res, ++jg->events, "test", b.data, b.len) < 0)
    jg->gone = true; /* the client left: the request ends at the next round */
  rc_buf_free (&b);
}
