/* api_execute.c - POST /v1/execute and GET /v1/languages.
 *
 * A request becomes a job of one or two steps in one workspace: the
 * language's compile command (when it has one) under compile limits of its
 * own, then the run command under the request's limits, so compile time is
 * never charged to the run.  The response describes the run at the top
 * level and the compile step in "compile"; "stage" says which step ended
 * the job.  Output past outputKb is dropped and flagged, never an error.
 */
#include "config.h"

#include "common/json_out.h"
#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/execute/execute_request.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compile steps get the language's memory and generous clocks: a compiler
 * is trusted no more than the program (it runs in the same sandbox), but its
 * cost is the language's, not the request's. */
#define COMPILE_WALL_MS 60000
#define COMPILE_CPU_MS 60000
#define COMPILE_OUTPUT_BYTES (1u << 20)

static void
render_step (struct rc_buf *b, const struct rc_step_result *st)
{
  bool first = true;
  const char *limit = rc_limit_name (st->limit);
  rc_buf_append (b, "{", 1);
  rc_json_key (b, &first, "exitCode");
  if (st->ran && st->exited)
    rc_json_i64 (b, st->exit_code);
  else
    rc_json_null (b);
  rc_json_key (b, &first, "signal");
  if (st->ran && !st->exited && st->term_signal > 0)
    {
      const char *abbrev = sigabbrev_np (st->term_signal);
      char name[32];
      snprintf (name, sizeof name, "SIG%s", abbrev ? abbrev : "UNKNOWN");
      rc_json_cstring (b, name);
    }
  else
    rc_json_null (b);
  rc_json_key (b, &first, "stdout");
  rc_json_string (b, st->out.data ? st->out.data : "", st->out.len);
  rc_json_key (b, &first, "stderr");
  rc_json_string (b, st->err.data ? st->err.data : "", st->err.len);
  rc_json_key (b, &first, "timedOut");
  rc_json_bool (b, st->timed_out);
  rc_json_key (b, &first, "idleTimedOut");
  rc_json_bool (b, st->idle_timed_out);
  rc_json_key (b, &first, "truncated");
  rc_json_bool (b, st->truncated);
  rc_json_key (b, &first, "oomKilled");
  rc_json_bool (b, st->oom_killed);
  rc_json_key (b, &first, "limit");
  if (limit)
    rc_json_cstring (b, limit);
  else
    rc_json_null (b);
  rc_json_key (b, &first, "wallMs");
  rc_json_u64 (b, st->wall_ms);
  rc_json_key (b, &first, "cpuMs");
  rc_json_u64 (b, st->cpu_ms);
  rc_json_key (b, &first, "memoryPeakKb");
  rc_json_u64 (b, st->memory_peak_kb);
  rc_buf_append (b, "}", 1);
}

static void
render_execute (struct rc_http_response *res, const struct rc_job_result *jr, bool has_compile)
{
  struct rc_buf *b = &res->body;
  const struct rc_step_result *run = &jr->steps[has_compile ? 1 : 0];
  const struct rc_step_result *compile = has_compile ? &jr->steps[0] : NULL;
  struct rc_buf step = { 0 };

  render_step (&step, run);
  rc_buf_reset (b);
  /* The run's fields at the top level, then stage and compile. */
  rc_buf_append (b, step.data, step.len - 1);
  rc_buf_append_str (b, ",\"stage\":");
  rc_json_cstring (b, run->ran ? "run" : "compile");
  if (compile)
    {
      rc_buf_append_str (b, ",\"compile\":");
      render_step (b, compile);
    }
  rc_buf_append (b, "}", 1);
  rc_buf_free (&step);
  res->status = 200;
  res->content_type = "application/json";
}

void
rc_api_execute (struct rc_app *app, const struct rc_http_request *req,
                struct rc_http_response *res)
{
  const struct rc_config *cfg = app->cfg;
  struct rc_execute_request ex;
  char msg[512];
  int status = 400;
  struct rc_file *files = NULL;
  char **env = NULL, *main_env = NULL, *exec_run = NULL;
  const char **run_argv = NULL;
  const char *compile_argv[5];
  struct rc_step steps[2];
  size_t n_steps = 0, n_args, i;
  struct rc_job_spec spec;
  struct rc_job_result result = { 0 };
  bool has_compile;

  res->log_job = true;
  if (rc_execute_request_parse (req->body, req->body_len, cfg, app->langs, &ex, &status, msg,
                                sizeof msg)
      < 0)
    {
      rc_http_error (res, status, msg);
      res->log_outcome = "bad_request";
      return;
    }
  res->log_lang = ex.lang->slug;
  has_compile = ex.lang->execute_compile != NULL;

  files = calloc (ex.n_files, sizeof *files);
  env = rc_job_env_build (cfg, ex.lang);
  for (n_args = 0; ex.args[n_args]; n_args++)
    ;
  run_argv = calloc (n_args + 5, sizeof *run_argv);
  if (files == NULL || env == NULL || run_argv == NULL
      || asprintf (&main_env, "MAIN=%s", ex.files[0].name) < 0)
    {
      rc_http_error (res, 500, "internal");
      goto out;
    }
  {
    /* MAIN names the entry file for the language's commands. */
    size_t ne = 0;
    char **grown;
    while (env[ne])
      ne++;
    grown = realloc (env, (ne + 2) * sizeof *env);
    if (grown == NULL)
      {
        rc_http_error (res, 500, "internal");
        goto out;
      }
    env = grown;
    env[ne] = main_env;
    env[ne + 1] = NULL;
    main_env = NULL;
  }
  for (i = 0; i < ex.n_files; i++)
    files[i] = (struct rc_file){ ex.files[i].name, ex.files[i].content, ex.files[i].len, 0644 };

  memset (steps, 0, sizeof steps);
  if (has_compile)
    {
      compile_argv[0] = "/bin/sh";
      compile_argv[1] = "-c";
      compile_argv[2] = ex.lang->execute_compile;
      compile_argv[3] = "sh";
      compile_argv[4] = NULL;
      steps[n_steps].argv = compile_argv;
      steps[n_steps].limits.wall_ms = COMPILE_WALL_MS;
      steps[n_steps].limits.cpu_ms = COMPILE_CPU_MS;
      steps[n_steps].limits.rlimit_cpu_s = COMPILE_CPU_MS / 1000 + 1;
      steps[n_steps].limits.memory_bytes = ex.lang->memory_max > ex.limits.memory_bytes
                                               ? ex.lang->memory_max
                                               : ex.limits.memory_bytes;
      steps[n_steps].limits.pids = cfg->pids_max;
      steps[n_steps].limits.output_bytes = COMPILE_OUTPUT_BYTES;
      steps[n_steps].stop_on_failure = true;
      n_steps++;
    }
  run_argv[0] = "/bin/sh";
  run_argv[1] = "-c";
  /* dash does not exec the last command of `sh -c` by itself: a simple
   * run command is exec'd so that a signal that kills the program is
   * reported as the signal, not as the shell's exit code 128+N. */
  if (rc_exec_run_command_is_simple (ex.lang->execute_run)
      && asprintf (&exec_run, "exec %s", ex.lang->execute_run) > 0)
    run_argv[2] = exec_run;
  else
    run_argv[2] = ex.lang->execute_run;
  run_argv[3] = "sh";
  for (i = 0; i < n_args; i++)
    run_argv[4 + i] = ex.args[i];
  steps[n_steps].argv = run_argv;
  steps[n_steps].stdin_data = ex.stdin_data;
  steps[n_steps].stdin_len = ex.stdin_len;
  steps[n_steps].limits = ex.limits;
  /* RLIMIT_CPU is a backstop behind the polled CPU clock. */
  steps[n_steps].limits.rlimit_cpu_s = ex.limits.cpu_ms ? ex.limits.cpu_ms / 1000 + 2 : 0;
  steps[n_steps].limits.rlimit_as = cfg->memory_max;
  n_steps++;

  memset (&spec, 0, sizeof spec);
  spec.workspace = RC_WORKSPACE_TEMPLATE;
  spec.template_dir = NULL; /* an empty workspace holding only the request's files */
  spec.bind_dirfd = -1;
  spec.files = files;
  spec.n_files = ex.n_files;
  spec.steps = steps;
  spec.n_steps = n_steps;
  spec.envp = (const char *const *) env;
  spec.overlay_paths = (const char *const *) ex.lang->overlay_paths;
  spec.n_overlay_paths = ex.lang->n_overlay_paths;
  spec.tmp_bytes = ex.lang->tmp_size;

  if (rc_app_run_job (app, &spec, &result, res) < 0)
    goto out;
  if (result.n_steps != n_steps)
    {
      rc_log (RC_LOG_ERROR, "sandbox_failure", "job returned %zu steps, expected %zu",
              result.n_steps, n_steps);
      rc_http_error (res, 500, "internal");
      goto out;
    }
  render_execute (res, &result, has_compile);
  {
    const struct rc_step_result *run = &result.steps[n_steps - 1];
    res->log_wall_ms = run->wall_ms;
    res->log_cpu_ms = run->cpu_ms;
    res->log_mem_kb = run->memory_peak_kb;
    res->log_has_exit = run->ran && run->exited;
    res->log_exit_code = run->exited ? run->exit_code : 128 + run->term_signal;
    res->log_outcome = !run->ran                     ? "compile_error"
                       : run->limit != RC_LIMIT_NONE ? rc_limit_name (run->limit)
                                                     : "ok";
  }

out:
  rc_job_result_free (&result);
  free (main_env);
  free (exec_run);
  rc_strv_free (env);
  free (run_argv);
  free (files);
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
  (void) req;
  fill_versions (app->langs);
  rc_buf_reset (b);
  rc_buf_append_str (b, "{\"languages\":[");
  for (size_t i = 0; i < app->langs->n; i++)
    {
      const struct rc_lang *l = &app->langs->langs[i];
      const struct rc_limits *d = &l->default_limits;
      bool first = true;
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
      rc_buf_printf (b,
                     ",\"defaultLimits\":{\"wallTimeMs\":%llu,\"idleMs\":%llu,\"cpuMs\":%llu,"
                     "\"memoryMb\":%llu,\"pids\":%llu,\"outputKb\":%llu}}",
                     (unsigned long long) d->wall_ms, (unsigned long long) d->idle_ms,
                     (unsigned long long) d->cpu_ms, (unsigned long long) (d->memory_bytes >> 20),
                     (unsigned long long) d->pids, (unsigned long long) (d->output_bytes / 1024));
    }
  rc_buf_append_str (b, "]}");
  res->status = 200;
  res->content_type = "application/json";
}
