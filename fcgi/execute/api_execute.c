/* api_execute.c - POST /v1/execute and GET /v1/languages.
 *
 * A request becomes a job of one or two steps in one workspace: the
 * language's compile command (when it has one) under compile limits of its
 * own, then the run command under the request's limits, so compile time is
 * never charged to the run.  The response describes the run at the top
 * level and the compile step in "compile"; "stage" says which step ended
 * the job.  Output past outputKb is dropped and flagged, never an error;
 * output that is not UTF-8 (or all of it, with "encoding": "base64") comes
 * back as {"base64": "..."} (step_render.c).
 */
#include "config.h"

#include "common/job_build.h"
#include "common/json_out.h"
#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/execute/execute_request.h"
#include "fcgi/execute/step_render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
rc_execute_render (struct rc_buf *b, const struct rc_job_result *jr, bool has_compile, bool base64)
{
  const struct rc_step_result *run = &jr->steps[has_compile ? 1 : 0];
  const struct rc_step_result *compile = has_compile ? &jr->steps[0] : NULL;
  struct rc_buf step = { 0 };

  rc_v1_render_step (&step, run, base64);
  rc_buf_reset (b);
  /* The run's fields at the top level, then stage and compile. */
  rc_buf_append (b, step.data, step.len - 1);
  rc_buf_append_str (b, ",\"stage\":");
  rc_json_cstring (b, run->ran ? "run" : "compile");
  if (compile)
    {
      rc_buf_append_str (b, ",\"compile\":");
      rc_v1_render_step (b, compile, base64);
    }
  rc_buf_append (b, "}", 1);
  rc_buf_free (&step);
}

void
rc_execute_log (struct rc_http_response *res, const struct rc_job_result *jr, size_t run_step,
                bool has_compile)
{
  const struct rc_step_result *run = &jr->steps[run_step];
  const char *limit = rc_outcome_limit (run->outcome);
  res->log_wall_ms = run->wall_ms;
  res->log_cpu_ms = run->cpu_ms;
  res->log_mem_kb = run->memory_peak_kb;
  res->log_has_exit = run->ran && run->exited;
  res->log_exit_code = run->exited ? run->exit_code : 128 + run->term_signal;
  res->log_outcome = !run->ran ? "compile_error" : limit ? limit : "ok";
  res->log_compiles = has_compile ? 1 : 0;
}

int
rc_execute_job_build (struct rc_app *app, const struct rc_execute_request *ex, int bind_dirfd,
                      struct rc_execute_job *ej, rc_err_t *err)
{
  struct rc_job_request jr;
  size_t first = bind_dirfd >= 0 ? 1 : 0;

  memset (ej, 0, sizeof *ej);
  ej->files = calloc (ex->n_files + 1, sizeof *ej->files);
  if (ej->files == NULL)
    return rc_error_set (err, ENOMEM, "out of memory for %zu files", ex->n_files);
  for (size_t i = first; i < ex->n_files; i++)
    ej->files[i - first]
        = (struct rc_file){ ex->files[i].name, ex->files[i].content, ex->files[i].len, 0644 };
  memset (&jr, 0, sizeof jr);
  jr.kind = RC_JOB_EXECUTE;
  jr.workspace = bind_dirfd >= 0 ? RC_WORKSPACE_BIND : RC_WORKSPACE_TEMPLATE;
  jr.bind_dirfd = bind_dirfd;
  jr.files = ej->files;
  jr.n_files = ex->n_files - first;
  if (bind_dirfd >= 0)
    {
      /* A session's job, built as its /execute is: the entry file is the
       * code, staged and compiled outside the session; the other files
       * are written into it. */
      jr.code = ex->files[0].content;
      jr.code_len = ex->files[0].len;
    }
  jr.args = (const char *const *)ex->args;
  jr.stdin_data = ex->stdin_data;
  jr.stdin_len = ex->stdin_len;
  jr.limits = ex->limits;
  return rc_job_build (&ej->job, ex->lang, &jr, app->cfg, err);
}

void
rc_execute_job_free (struct rc_execute_job *ej)
{
  rc_job_free (&ej->job);
  free (ej->files);
  memset (ej, 0, sizeof *ej);
}

void
rc_api_execute (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res)
{
  struct rc_execute_request ex;
  struct rc_execute_job ej = { 0 };
  struct rc_job_result result = { 0 };
  rc_err_t err = NULL;

  res->log_job = true;
  if (rc_execute_request_parse (req->body, req->body_len, app->cfg, app->langs, &ex, &err) < 0)
    {
      rc_http_error_from (res, &err, "execute_request");
      res->log_outcome = "bad_request";
      return;
    }
  res->log_lang = ex.lang->slug;
  if (ex.tty)
    {
      rc_http_error (res, 400, "tty: a terminal is for /v1/processes");
      res->log_outcome = "bad_request";
      goto out;
    }
  if (rc_execute_job_build (app, &ex, -1, &ej, &err) < 0)
    {
      rc_http_error_from (res, &err, "job_build");
      goto out;
    }
  if (rc_http_accepts (req->accept, "text/event-stream"))
    {
      rc_execute_stream (app, &ej.job, ex.base64_out, res);
      goto out;
    }

  if (rc_app_run_job (app, &ej.job.spec, &result, res) < 0)
    goto out;
  if (result.n_steps != ej.job.spec.n_steps)
    {
      rc_http_internal (res, "sandbox_failure", "job returned %zu steps, expected %zu",
                        result.n_steps, ej.job.spec.n_steps);
      goto out;
    }
  rc_execute_render (&res->body, &result, ej.job.has_compile, ex.base64_out);
  res->status = 200;
  res->content_type = "application/json";
  rc_execute_log (res, &result, ej.job.run_step, ej.job.has_compile);

out:
  rc_job_result_free (&result);
  rc_execute_job_free (&ej);
  rc_execute_request_free (&ex);
}

/* Versions are asked of the toolchains once per worker, on first use: a
 * JVM-based compiler takes a second to say its version, which must not
 * slow every worker's start. */
static void
fill_versions (const struct rc_lang_table *langs)
{
  static bool done;
  if (done)
    return;
  done = true;
  for (size_t i = 0; i < langs->n; i++)
    {
      struct rc_lang *l = &langs->langs[i];
      char *out = NULL;
      rc_err_t err = NULL;
      if (!l->available || l->version_cmd == NULL || l->version_cmd[0] == NULL)
        continue;
      if (rc_capture_command (l->dir, l->version_cmd, 10000, &out, &err) < 0)
        {
          rc_error_free (&err);
          continue;
        }
      out[strcspn (out, "\n")] = '\0';
      l->version = out;
    }
}

void
rc_api_languages (struct rc_app *app, const struct rc_http_request *req,
                  struct rc_http_response *res)
{
  struct rc_buf *b = &res->body;
  (void)req;
  fill_versions (app->langs);
  rc_buf_reset (b);
  rc_buf_append_str (b, "{\"languages\":[");
  for (size_t i = 0; i < app->langs->n; i++)
    {
      const struct rc_lang *l = &app->langs->langs[i];
      struct rc_job_limits jl;
      const struct rc_limits *d = &jl.run;
      bool first = true;
      /* The defaults a request gets: the manifest's after the operator's
       * overrides and ceilings. */
      if (rc_limits_resolve (app->cfg, l, RC_LIMITS_EXECUTE, NULL, &jl, NULL) < 0)
        jl.run = l->default_limits;
      if (i)
        rc_buf_append (b, ",", 1);
      rc_buf_append (b, "{", 1);
      rc_json_key (b, &first, "language");
      rc_json_cstring (b, l->slug);
      rc_json_key (b, &first, "aliases");
      rc_buf_append (b, "[", 1);
      for (char **a = l->aliases; a && *a; a++)
        {
          if (a != l->aliases)
            rc_buf_append (b, ",", 1);
          rc_json_cstring (b, *a);
        }
      rc_buf_append (b, "]", 1);
      rc_json_key (b, &first, "version");
      if (l->version)
        rc_json_cstring (b, l->version);
      else
        rc_json_null (b);
      rc_json_key (b, &first, "available");
      rc_json_bool (b, l->available);
      if (!l->available && l->unavailable_reason)
        {
          rc_json_key (b, &first, "reason");
          rc_json_cstring (b, l->unavailable_reason);
        }
      rc_json_key (b, &first, "checkerRequired");
      rc_json_bool (b, l->checker_required);
      /* The entry file's usual name, for a client that writes one file
       * (the playground): what a session's code is staged as. */
      rc_json_key (b, &first, "main");
      if (l->execute_main)
        rc_json_cstring (b, l->execute_main);
      else
        rc_json_null (b);
      rc_buf_printf (b,
                     ",\"defaultLimits\":{\"wallTimeMs\":%llu,\"idleMs\":%llu,\"cpuMs\":%llu,"
                     "\"memoryMb\":%llu,\"pids\":%llu,\"outputKb\":%llu}}",
                     (unsigned long long)d->wall_ms, (unsigned long long)d->idle_ms,
                     (unsigned long long)d->cpu_ms, (unsigned long long)(d->memory_bytes >> 20),
                     (unsigned long long)d->pids, (unsigned long long)(d->output_bytes / 1024));
    }
  rc_buf_append_str (b, "]}");
  res->status = 200;
  res->content_type = "application/json";
}
