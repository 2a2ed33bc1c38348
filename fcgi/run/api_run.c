/* api_run.c - POST /run, the contest-runner contract.
 *
 * Writes solution, checker and asserts into the language's input directory
 * of a fresh workspace, runs the language's resolved `make test` command
 * once under the request's timeout, and answers
 *   200 {"exit_code": int|null, "stdout": "...", "stderr": "..."}
 * exit_code is null when the timeout killed the run (partial output kept)
 * and 128+N when signal N ended it.  A stream over RUN_OUTPUT_MAX is 413, as
 * the reference runner does.
 */
#include "config.h"

#include "common/job_build.h"
#include "common/json_out.h"
#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/run/run_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
render_run_result (const struct rc_step_result *st, struct rc_http_response *res)
{
  bool first = true;
  struct rc_buf *b = &res->body;
  rc_buf_reset (b);
  rc_buf_append (b, "{", 1);
  rc_json_key (b, &first, "exit_code");
  /* Rendered from the verdict only: a clock that ended the run has no
   * exit code. */
  if (st->outcome == RC_OUTCOME_WALL || st->outcome == RC_OUTCOME_CPU
      || st->outcome == RC_OUTCOME_IDLE)
    rc_json_null (b);
  else if (st->exited)
    rc_json_i64 (b, st->exit_code);
  else
    rc_json_i64 (b, 128 + st->term_signal);
  rc_json_key (b, &first, "stdout");
  rc_json_string (b, st->out.data ? st->out.data : "", st->out.len);
  rc_json_key (b, &first, "stderr");
  rc_json_string (b, st->err.data ? st->err.data : "", st->err.len);
  rc_buf_append (b, "}", 1);
  res->status = 200;
  res->content_type = "application/json";
}

void
rc_api_run (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res)
{
  const struct rc_config *cfg = app->cfg;
  struct rc_run_request run;
  const struct rc_lang *lang = NULL;
  struct rc_job_request jr;
  struct rc_job job = { 0 };
  struct rc_job_result result = { 0 };
  rc_err_t err = NULL;

  res->log_job = true;
  memset (&jr, 0, sizeof jr);
  if (rc_run_request_parse (req->body, req->body_len, &run, &err) < 0)
    {
      rc_http_error_from (res, &err, "run_request");
      res->log_outcome = "bad_request";
      return;
    }
  res->log_lang = NULL;
  if (rc_run_request_check (&run, cfg, app->langs, &lang, &jr.limits, &err) < 0)
    {
      rc_http_error_from (res, &err, "run_request");
      res->log_outcome = "bad_request";
      goto out;
    }
  res->log_lang = lang->slug;

  jr.kind = RC_JOB_CONTRACT;
  jr.workspace = RC_WORKSPACE_TEMPLATE;
  jr.solution = run.solution_text;
  jr.solution_len = run.solution_len;
  jr.checker = run.checker_text;
  jr.checker_len = run.checker_len;
  jr.asserts = run.asserts;
  jr.asserts_len = run.asserts_len;
  if (rc_job_build (&job, lang, &jr, cfg, &err) < 0)
    {
      rc_http_error_from (res, &err, "job_build");
      goto out;
    }

  if (rc_app_run_job (app, &job.spec, &result, res) < 0)
    goto out;
  {
    const struct rc_step_result *st = &result.steps[0];
    const char *limit = rc_outcome_limit (st->outcome);
    res->log_wall_ms = st->wall_ms;
    res->log_cpu_ms = st->cpu_ms;
    res->log_mem_kb = st->memory_peak_kb;
    if (st->outcome == RC_OUTCOME_OUTPUT)
      {
        rc_http_error (res, 413, "output too large");
        res->log_outcome = "output_too_large";
        goto out;
      }
    render_run_result (st, res);
    res->log_has_exit = st->exited;
    res->log_exit_code = st->exited ? st->exit_code : 128 + st->term_signal;
    res->log_outcome = limit ? limit : "ok";
  }

out:
  rc_job_result_free (&result);
  rc_job_free (&job);
  rc_run_request_free (&run);
}
