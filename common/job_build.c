/* job_build.c - the one job builder; see job_build.h. */
#include <config.h>

#include "common/job_build.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A run command that `exec` may prefix: one external command, no shell
 * syntax.  Its first word must name a program (a path or a plain name),
 * not a builtin that exec cannot run (`.`, `cd`, `source`, ...) nor a
 * variable assignment (`exec A=1 prog` would try to run "A=1"). */
bool
rc_exec_run_command_is_simple (const char *cmd)
{
  static const char *const builtins[] = { ".",      ":",   "source", "cd",    "eval", "exec",
                                          "export", "set", "ulimit", "umask", "trap", "readonly" };
  size_t n = strcspn (cmd, " \t");
  size_t i;

  if (n == 0 || strpbrk (cmd, ";&|\n()`<>") != NULL)
    return false;
  if (strspn (cmd, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-") < n)
    return false; /* an assignment, a quote, an expansion: leave it to sh */
  for (i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
    if (strlen (builtins[i]) == n && strncmp (cmd, builtins[i], n) == 0)
      return false;
  return true;
}

/* Keeps s for the job's lifetime; NULL (and s freed) when out of memory. */
static char *
keep (struct rc_job *job, char *s)
{
  char **grown;
  if (s == NULL)
    return NULL;
  grown = realloc (job->strings, (job->n_strings + 1) * sizeof *grown);
  if (grown == NULL)
    {
      free (s);
      return NULL;
    }
  job->strings = grown;
  job->strings[job->n_strings++] = s;
  return s;
}

/* A formatted string kept for the job's lifetime. */
#define keepf(job, ...) keep ((job), rc_strdupf (__VA_ARGS__))
/* Appends "KEY=value" to the job's environment. */
#define env_pushf(job, ...) rc_strv_push (&(job)->env, rc_strdupf (__VA_ARGS__))

/* The value of NAME (len bytes) in the job's environment, or NULL. */
static const char *
env_value (const struct rc_job *job, const char *name, size_t len)
{
  for (char **e = job->env; e && *e; e++)
    if (strncmp (*e, name, len) == 0 && (*e)[len] == '=')
      return *e + len + 1;
  return NULL;
}

static bool
word_char (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
         || strchr ("_./+-=:@%,", c) != NULL;
}

/* A run command that needs no shell, as the argv it means: words of plain
 * characters, or double-quoted words of plain characters and $NAME or
 * ${NAME} (from the job's environment), and "$@" (the request's args,
 * appended when the command does not name them).  NULL when the command
 * has anything a shell would do more with (a glob, a redirection, a
 * pipe, a builtin, an unquoted variable, ...): it then runs under sh -c.
 * Without the shell the step's process is the program itself: one exec
 * less (about 0.5 ms of a trivial job here), and a signal that kills the
 * program is its own. */
static const char **
direct_argv (struct rc_job *job, size_t idx, const char *cmd, const char *const *args)
{
  size_t n_args = 0, n = 0, cap;
  bool has_args = false;
  const char **argv;
  const char *p = cmd;

  if (!rc_exec_run_command_is_simple (cmd))
    return NULL;
  while (args && args[n_args])
    n_args++;
  cap = strlen (cmd) / 2 + n_args + 2;
  argv = calloc (cap, sizeof *argv);
  if (argv == NULL)
    return NULL;
  for (;;)
    {
      struct rc_buf w = { 0 };
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '\0')
        break;
      if (strncmp (p, "\"$@\"", 4) == 0 && (p[4] == '\0' || p[4] == ' ' || p[4] == '\t'))
        {
          for (size_t k = 0; k < n_args; k++)
            argv[n++] = args[k];
          has_args = true;
          p += 4;
          continue;
        }
      while (*p && *p != ' ' && *p != '\t')
        {
          if (word_char (*p))
            rc_buf_append (&w, p++, 1);
          else if (*p == '"')
            {
              for (p++; *p && *p != '"';)
                {
                  if (*p == '$')
                    {
                      bool brace = p[1] == '{';
                      const char *name = p + 1 + brace, *end = name, *v;
                      while ((*end >= 'A' && *end <= 'Z') || (*end >= 'a' && *end <= 'z')
                             || (*end >= '0' && *end <= '9') || *end == '_')
                        end++;
                      if (end == name || (brace && *end != '}'))
                        goto shell;
                      v = env_value (job, name, (size_t)(end - name));
                      if (v == NULL)
                        goto shell;
                      rc_buf_append_str (&w, v);
                      p = end + brace;
                    }
                  else if (word_char (*p) || *p == ' ')
                    rc_buf_append (&w, p++, 1);
                  else
                    goto shell;
                }
              if (*p++ != '"')
                goto shell;
            }
          else
            goto shell;
        }
      if (w.data == NULL && rc_buf_append (&w, "", 0) < 0)
        goto shell;
      if (n + n_args + 1 >= cap || keep (job, w.data) == NULL)
        {
          rc_buf_free (&w);
          goto shell;
        }
      argv[n++] = w.data;
      continue;
    shell:
      rc_buf_free (&w);
      free (argv);
      return NULL;
    }
  if (!has_args)
    for (size_t k = 0; k < n_args; k++)
      argv[n++] = args[k];
  argv[n] = NULL;
  if (n == 0)
    {
      free (argv);
      return NULL;
    }
  job->argv[idx] = argv;
  return argv;
}

/* A recipe of several lines (a /run Makefile's), whose last command is
 * simple: run under sh with that command exec'd, so the program is the
 * shell's last process, not its child. */
static const char *
exec_last (struct rc_job *job, const char *script)
{
  const char *tail = script, *p;
  for (p = script; *p; p++)
    if (*p == '\n' || (p[0] == '&' && p[1] == '&') || *p == ';')
      tail = p + (*p == '&' ? 2 : 1);
  while (*tail == ' ' || *tail == '\t')
    tail++;
  if (tail == script || strncmp (tail, "exec ", 5) == 0 || !rc_exec_run_command_is_simple (tail)
      || strpbrk (script, "'\"\\") != NULL)
    return script;
  return keepf (job, "%.*sexec %s", (int)(tail - script), script, tail);
}

/* The run command as sh runs it: `exec` first when it is one program, and
 * "$@" last when it does not say where the args go. */
static char *
run_command (struct rc_job *job, const char *run)
{
  bool simple = rc_exec_run_command_is_simple (run);
  bool has_args = strstr (run, "\"$@\"") != NULL;
  return keepf (job, "%s%s%s", simple ? "exec " : "", run, has_args ? "" : " \"$@\"");
}

static const char **
sh_argv (struct rc_job *job, size_t idx, const char *script, const char *arg0, const char *first,
         const char *const *args)
{
  size_t n = 0, i = 0;
  const char **argv;
  while (args && args[n])
    n++;
  argv = calloc (n + 6, sizeof *argv);
  if (argv == NULL)
    return NULL;
  argv[i++] = "/bin/sh";
  argv[i++] = "-c";
  argv[i++] = script;
  if (arg0)
    argv[i++] = arg0;
  if (first)
    argv[i++] = first;
  for (size_t k = 0; k < n; k++)
    argv[i++] = args[k];
  argv[i] = NULL;
  job->argv[idx] = argv;
  return argv;
}

static int
build_contract (struct rc_job *job, const struct rc_lang *lang, const struct rc_job_request *req,
                rc_err_t *err)
{
  struct rc_step *st = &job->steps[0];
  size_t n = 0;

  job->files = calloc (3 + req->n_files, sizeof *job->files);
  if (job->files == NULL)
    return rc_error_set (err, ENOMEM, "job files");
  /* The checker is written only for languages that have one, exactly as
   * the reference runner does (a dynamic language ignores checker_text). */
  if (req->solution)
    {
      job->files[n] = (struct rc_file){ keepf (job, "%s/%s", lang->input_dir, lang->solution_file),
                                        req->solution, req->solution_len, 0644 };
      if (job->files[n++].path == NULL)
        return rc_error_set (err, ENOMEM, "job files");
    }
  if (req->checker && lang->checker_file)
    {
      job->files[n] = (struct rc_file){ keepf (job, "%s/%s", lang->input_dir, lang->checker_file),
                                        req->checker, req->checker_len, 0644 };
      if (job->files[n++].path == NULL)
        return rc_error_set (err, ENOMEM, "job files");
    }
  if (req->asserts)
    {
      job->files[n] = (struct rc_file){ keepf (job, "%s/asserts.json", lang->input_dir),
                                        req->asserts, req->asserts_len, 0644 };
      if (job->files[n++].path == NULL)
        return rc_error_set (err, ENOMEM, "job files");
    }
  for (size_t i = 0; i < req->n_files; i++)
    job->files[n++] = req->files[i];
  job->spec.files = job->files;
  job->spec.n_files = n;
  if (req->argv && req->argv[0])
    st->argv = req->argv;
  else if ((st->argv = direct_argv (job, 0, lang->command, NULL)) == NULL
           && (st->argv = sh_argv (job, 0, exec_last (job, lang->command), NULL, NULL, NULL))
                  == NULL)
    return rc_error_set (err, ENOMEM, "job argv");
  job->spec.template_dir = req->template_dir ? req->template_dir : lang->dir;
  return 0;
}

/* /v1/execute: the request's files are the workspace; compile and run are
 * steps of their own. */
static int
build_execute_template (struct rc_job *job, const struct rc_lang *lang,
                        const struct rc_job_request *req, rc_err_t *err)
{
  const char *run;
  size_t i = 0;

  if (req->n_files == 0)
    return rc_error_set (err, EINVAL, "the request has no entry file");
  if (env_pushf (job, "MAIN=%s", req->files[0].path) < 0)
    return rc_error_set (err, ENOMEM, "job env");
  job->spec.files = req->files;
  job->spec.n_files = req->n_files;
  job->spec.template_dir = NULL; /* an empty workspace holding only the request's files */
  if (req->stage == RC_JOB_STAGE_COMPILE)
    {
      if (lang->execute_compile == NULL)
        return rc_error_set (err, EINVAL, "language %s has no compile command", lang->slug);
      if ((job->steps[0].argv = sh_argv (job, 0, lang->execute_compile, "sh", NULL, NULL)) == NULL)
        return rc_error_set (err, ENOMEM, "job argv");
      job->has_compile = true;
      return 0; /* the caller takes steps[0] as both the compile and the run step */
    }
  if (lang->execute_compile && req->stage != RC_JOB_STAGE_RUN)
    {
      struct rc_step *c = &job->steps[i++];
      if ((c->argv = sh_argv (job, 0, lang->execute_compile, "sh", NULL, NULL)) == NULL)
        return rc_error_set (err, ENOMEM, "job argv");
      c->limits = req->limits.compile;
      c->stop_on_failure = true;
      job->has_compile = true;
    }
  job->steps[i].argv = direct_argv (job, i, lang->execute_run, req->args);
  if (job->steps[i].argv == NULL
      && ((run = run_command (job, lang->execute_run)) == NULL
          || (job->steps[i].argv = sh_argv (job, i, run, "sh", NULL, req->args)) == NULL))
    return rc_error_set (err, ENOMEM, "job argv");
  job->run_step = i;
  return 0;
}

/* A session: the code is staged in the job's private /tmp (never in the
 * session), compiled there, and run with the session as the working
 * directory, in one step whose stderr is merged into stdout, as the
 * sessions document answers one "output". */
static int
build_execute_bound (struct rc_job *job, const struct rc_lang *lang,
                     const struct rc_job_request *req, rc_err_t *err)
{
  const char *main_name = lang->execute_main ? lang->execute_main : "main";
  const char *run = run_command (job, lang->execute_run), *script;

  if (run == NULL || env_pushf (job, "MAIN=" RC_EXEC_STAGE_DIR "/%s", main_name) < 0)
    return rc_error_set (err, ENOMEM, "job env");
  script = keepf (job,
                  "exec 2>&1\n"
                  "d=" RC_EXEC_STAGE_DIR "\n"
                  "mkdir -p \"$d\" && printf '%%s' \"$1\" > \"$d/%s\" || exit 126\n"
                  "shift\n"
                  "%s%s%s"
                  "cd /sandbox || exit 126\n"
                  "%s\n",
                  main_name, lang->execute_compile ? "cd \"$d\" || exit 126\n" : "",
                  lang->execute_compile ? lang->execute_compile : "",
                  lang->execute_compile ? " || exit $?\n" : "", run);
  if (script == NULL
      || (job->steps[0].argv
          = sh_argv (job, 0, script, "runcell-exec", req->code ? req->code : "", req->args))
             == NULL)
    return rc_error_set (err, ENOMEM, "job argv");
  job->spec.files = req->files;
  job->spec.n_files = req->n_files;
  return 0;
}

int
rc_job_build (struct rc_job *job, const struct rc_lang *lang, const struct rc_job_request *req,
              const struct rc_config *cfg, rc_err_t *err)
{
  struct rc_step *run;
  int r;

  memset (job, 0, sizeof *job);
  job->spec.workspace = req->workspace;
  job->spec.bind_dirfd = req->workspace == RC_WORKSPACE_BIND ? req->bind_dirfd : -1;
  if (lang == NULL && !(req->kind == RC_JOB_COMMAND && req->argv && req->argv[0]))
    return rc_error_set (err, EINVAL, "a job needs a language or a command");
  job->env = rc_job_env_build (cfg, lang);
  if (job->env == NULL)
    return rc_error_set (err, ENOMEM, "job env");

  switch (req->kind)
    {
    case RC_JOB_CONTRACT:
      r = build_contract (job, lang, req, err);
      break;
    case RC_JOB_EXECUTE:
      if (lang->execute_run == NULL)
        return rc_error_set (err, EINVAL, "language %s has no execute command", lang->slug);
      /* The language's own files (the typescript transpiler) are named
       * from its directory, which every job sees read-only at
       * /lang/<slug> (sandbox/root/root.c), never by its host path. */
      if (env_pushf (job, "RUNCELL_LANG_DIR=" RC_JOB_LANG_DIR "/%s", lang->slug) < 0)
        return rc_error_set (err, ENOMEM, "job env");
      r = req->workspace == RC_WORKSPACE_BIND ? build_execute_bound (job, lang, req, err)
                                              : build_execute_template (job, lang, req, err);
      break;
    case RC_JOB_COMMAND:
    default:
      if (req->argv && req->argv[0])
        {
          job->steps[0].argv = req->argv;
          job->spec.files = req->files;
          job->spec.n_files = req->n_files;
          job->spec.template_dir = req->template_dir ? req->template_dir : lang ? lang->dir : NULL;
          r = 0;
        }
      else
        r = build_contract (job, lang, req, err);
      break;
    }
  if (r < 0)
    return -1;

  run = &job->steps[job->run_step];
  if (req->kind == RC_JOB_EXECUTE && req->stage == RC_JOB_STAGE_COMPILE)
    run->limits = req->limits.compile; /* the one step is the compile */
  else
    {
      run->stdin_data = req->stdin_data;
      run->stdin_len = req->stdin_len;
      run->limits = req->limits.run;
    }

  job->spec.steps = job->steps;
  job->spec.n_steps = job->run_step + 1;
  job->spec.envp = (const char *const *)job->env;
  job->spec.lang = lang ? lang->slug : NULL;
  job->spec.tmp_bytes = req->limits.tmp_bytes;
  job->spec.tmp = req->tmp;
  job->spec.tmp_dirfd = req->tmp == RC_TMP_FRESH ? -1 : req->tmp_dirfd;
  return 0;
}

void
rc_job_free (struct rc_job *job)
{
  for (size_t i = 0; i < job->n_strings; i++)
    free (job->strings[i]);
  free (job->strings);
  for (size_t i = 0; i < 2; i++)
    free (job->argv[i]);
  free (job->files);
  rc_strv_free (job->env);
  memset (job, 0, sizeof *job);
}
