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

#include "common/json_out.h"
#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/run/run_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *
join_path (const char *dir, const char *name)
{
  char *p = NULL;
  if (asprintf (&p, "%s/%s", dir, name) < 0)
    return NULL;
  return p;
}

static void
render_run_result (const struct rc_step_result *st, struct rc_http_response *res)
{
  bool first = true;
  struct rc_buf *b = &res->body;
  rc_buf_reset (b);
  rc_buf_append (b, "{", 1);
  rc_json_key (b, &first, "exit_code");
  if (st->limit == RC_LIMIT_WALL || st->limit == RC_LIMIT_CPU || st->limit == RC_LIMIT_IDLE)
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
  const char *msg = NULL;
  int status = 400;
  struct rc_file files[3];
  size_t n_files = 0;
  char *paths[3] = { NULL, NULL, NULL };
  char **env = NULL;
  const char *argv[4];
  struct rc_step step;
  struct rc_job_spec spec;
  struct rc_job_result result = { 0 };

  res->log_job = true;
  if (rc_run_request_parse (req->body, req->body_len, cfg->timeout_default_ms, cfg->timeout_max_ms,
                            &run, &status, &msg)
      < 0)
    {
      rc_http_error (res, status, msg);
      res->log_outcome = "bad_request";
      return;
    }
  res->log_lang = NULL;
  if (rc_run_request_check_lang (&run, app->langs, &lang, &status, &msg) < 0)
    {
      rc_http_error (res, status, msg);
      res->log_outcome = "bad_request";
      goto out;
    }
  res->log_lang = lang->slug;

  /* The checker is written only for languages that have one, exactly as
   * the reference runner does (a dynamic language ignores checker_text). */
  paths[n_files] = join_path (lang->input_dir, lang->solution_file);
  files[n_files] = (struct rc_file){ paths[n_files], run.solution_text, run.solution_len, 0644 };
  n_files++;
  if (run.checker_text && lang->checker_file)
    {
      paths[n_files] = join_path (lang->input_dir, lang->checker_file);
      files[n_files] = (struct rc_file){ paths[n_files], run.checker_text, run.checker_len, 0644 };
      n_files++;
    }
  if (run.asserts)
    {
      paths[n_files] = join_path (lang->input_dir, "asserts.json");
      files[n_files] = (struct rc_file){ paths[n_files], run.asserts, run.asserts_len, 0644 };
      n_files++;
    }
  env = rc_job_env_build (cfg, lang);
  for (size_t i = 0; i < n_files; i++)
    if (paths[i] == NULL)
      env = (rc_strv_free (env), NULL);
  if (env == NULL)
    {
      rc_http_error (res, 500, "internal");
      goto out;
    }

  argv[0] = "/bin/sh";
  argv[1] = "-c";
  argv[2] = lang->command;
  argv[3] = NULL;
  memset (&step, 0, sizeof step);
  step.argv = argv;
  step.limits.wall_ms = run.timeout_ms;
  /* RLIMIT_CPU is only a backstop behind the wall clock: it counts the CPU
   * of all a process's threads, so a multi-threaded runtime (BEAM, JVM)
   * spinning on every core would reach "timeout" seconds of CPU before the
   * timeout and die with 137 instead of the contract's exit_code null. */
  {
    long cpus = sysconf (_SC_NPROCESSORS_ONLN);
    step.limits.rlimit_cpu_s = (run.timeout_ms + 999) / 1000 * (uint64_t) (cpus > 0 ? cpus : 1) + 1;
  }
  step.limits.memory_bytes = lang->memory_max;
  step.limits.pids = cfg->pids_max;
  step.limits.stream_bytes = cfg->output_max;
  step.limits.rlimit_as = cfg->memory_max;

  memset (&spec, 0, sizeof spec);
  spec.workspace = RC_WORKSPACE_TEMPLATE;
  spec.template_dir = lang->dir;
  spec.bind_dirfd = -1;
  spec.files = files;
  spec.n_files = n_files;
  spec.steps = &step;
  spec.n_steps = 1;
  spec.envp = (const char *const *) env;
  spec.overlay_paths = (const char *const *) lang->overlay_paths;
  spec.n_overlay_paths = lang->n_overlay_paths;
  spec.tmp_bytes = lang->tmp_size;

  if (rc_app_run_job (app, &spec, &result, res) < 0)
    goto out;
  {
    const struct rc_step_result *st = &result.steps[0];
    res->log_wall_ms = st->wall_ms;
    res->log_cpu_ms = st->cpu_ms;
    res->log_mem_kb = st->memory_peak_kb;
    if (st->output_overflow)
      {
        rc_http_error (res, 413, "output too large");
        res->log_outcome = "output_too_large";
        goto out;
      }
    render_run_result (st, res);
    res->log_has_exit = st->exited;
    res->log_exit_code = st->exited ? st->exit_code : 128 + st->term_signal;
    res->log_outcome = st->limit != RC_LIMIT_NONE ? rc_limit_name (st->limit)
                       : st->oom_killed           ? "memory"
                                                  : "ok";
  }

out:
  rc_job_result_free (&result);
  rc_strv_free (env);
  for (size_t i = 0; i < 3; i++)
    free (paths[i]);
  rc_run_request_free (&run);
}
