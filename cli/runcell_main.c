/* runcell_main.c - the `runcell` command: the sandbox without HTTP.
 *
 *   runcell --check-host
 *   runcell exec [--slot N] [--slots K] [--lang SLUG] [--template DIR]
 *                [--timeout 2s] [--cpu 1s] [--idle 5s] [--memory 256m]
 *                [--pids N] [--tmp-size 64m] [--output-max 1m]
 *                [--file NAME=PATH]... [--stdin PATH] [--result-json FILE]
 *                [--repeat N] [--] CMD ARGS...
 *
 * `exec` does what the service does, in one process that is both the
 * keeper and the worker: host setup with a cgroup subtree and a state
 * directory of its own ("runcell-exec-<pid>", so it runs next to the
 * service), K slots (1 by default) whose inits it starts, the job on a
 * claimed slot, teardown.  --slot N gives its slots the uids of the
 * service's slots N, N+1, ...  The program's stdout and stderr are copied
 * to ours, our exit code is the program's (128+signal when killed), and a
 * one-line JSON summary goes to stderr or to --result-json.  With
 * --repeat N the job runs N times and the median per-job time is printed
 * (from the claim to the result): the cost of one job on a slot's init,
 * without process start and host setup; with one slot each job waits for
 * the slot's reset after the job before, with two or more it takes a slot
 * reset meanwhile, as the service's jobs do.  It is the entry point of the
 * isolation tests and the benchmarks.  SIGINT/SIGTERM/SIGHUP end it after
 * the current job, with the teardown done (exit 128+sig).
 */
#include "config.h"

#include "common/clock.h"
#include "common/config.h"
#include "common/job_build.h"
#include "common/lang.h"
#include "common/log.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct exec_opts
{
  int slot;
  const char *lang;
  const char *template_dir;
  const char *stdin_path;
  const char *result_json;
  uint64_t repeat;
  unsigned slots;
  struct rc_limits limits;
  uint64_t tmp_bytes;
  struct rc_file files[64];
  size_t n_files;
  char **argv;
};

static void
usage (FILE *f)
{
  fputs ("usage: runcell --check-host\n"
         "       runcell exec [--slot N] [--slots K] [--lang SLUG] [--template DIR]\n"
         "                    [--timeout DUR] [--cpu DUR] [--idle DUR] [--memory SIZE]\n"
         "                    [--pids N] [--tmp-size SIZE] [--output-max SIZE]\n"
         "                    [--file NAME=PATH]... [--stdin PATH] [--result-json FILE]\n"
         "                    [--repeat N] [--] CMD ARGS...\n",
         f);
}

static int
read_whole (const char *path, char **data, size_t *len)
{
  FILE *f = fopen (path, "rbe");
  char *buf = NULL;
  size_t cap = 0, n = 0;
  if (f == NULL)
    return -1;
  for (;;)
    {
      size_t k;
      if (n == cap)
        {
          char *p = realloc (buf, cap ? cap * 2 : 65536);
          if (p == NULL)
            {
              free (buf);
              fclose (f);
              return -1;
            }
          buf = p;
          cap = cap ? cap * 2 : 65536;
        }
      k = fread (buf + n, 1, cap - n, f);
      n += k;
      if (k == 0)
        break;
    }
  fclose (f);
  *data = buf;
  *len = n;
  return 0;
}

static int
parse_exec (int argc, char **argv, struct exec_opts *o)
{
  int i;
  for (i = 0; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      uint64_t n;
      if (strcmp (a, "--") == 0)
        {
          i++;
          break;
        }
      if (a[0] != '-')
        break;
      if (v == NULL)
        {
          fprintf (stderr, "runcell: %s needs a value\n", a);
          return -1;
        }
      i++;
      if (strcmp (a, "--slot") == 0 && rc_parse_u64 (v, &n) == 0 && n < 100000)
        o->slot = (int)n;
      else if (strcmp (a, "--slots") == 0 && rc_parse_u64 (v, &n) == 0 && n >= 1 && n <= 64)
        o->slots = (unsigned)n;
      else if (strcmp (a, "--lang") == 0)
        o->lang = v;
      else if (strcmp (a, "--template") == 0)
        o->template_dir = v;
      else if (strcmp (a, "--timeout") == 0 && rc_parse_duration_ms (v, &n) == 0)
        o->limits.wall_ms = n;
      else if (strcmp (a, "--cpu") == 0 && rc_parse_duration_ms (v, &n) == 0)
        o->limits.cpu_ms = n;
      else if (strcmp (a, "--idle") == 0 && rc_parse_duration_ms (v, &n) == 0)
        o->limits.idle_ms = n;
      else if (strcmp (a, "--memory") == 0 && rc_parse_size (v, &n) == 0)
        o->limits.memory_bytes = n;
      else if (strcmp (a, "--pids") == 0 && rc_parse_u64 (v, &n) == 0)
        o->limits.pids = n;
      else if (strcmp (a, "--tmp-size") == 0 && rc_parse_size (v, &n) == 0)
        o->tmp_bytes = n;
      else if (strcmp (a, "--output-max") == 0
               && (strcmp (v, "0") == 0 || rc_parse_size (v, &n) == 0))
        o->limits.stream_bytes = strcmp (v, "0") == 0 ? RC_LIMIT_NONE : n;
      else if (strcmp (a, "--stdin") == 0)
        o->stdin_path = v;
      else if (strcmp (a, "--result-json") == 0)
        o->result_json = v;
      else if (strcmp (a, "--repeat") == 0 && rc_parse_u64 (v, &n) == 0 && n >= 1 && n <= 1000000)
        o->repeat = n;
      else if (strcmp (a, "--file") == 0 && strchr (v, '=') && o->n_files < 64)
        {
          struct rc_file *f = &o->files[o->n_files++];
          const char *eq = strchr (v, '=');
          char *data = NULL;
          size_t len = 0;
          struct stat st;
          f->path = strndup (v, (size_t)(eq - v));
          if (f->path == NULL || read_whole (eq + 1, &data, &len) < 0)
            {
              fprintf (stderr, "runcell: --file %s: %s\n", v, strerror (errno));
              return -1;
            }
          f->data = data;
          f->len = len;
          f->mode = stat (eq + 1, &st) == 0 && (st.st_mode & 0111) ? 0755 : 0644;
        }
      else
        {
          fprintf (stderr, "runcell: bad option or value: %s %s\n", a, v);
          return -1;
        }
    }
  o->argv = argv + i;
  return 0;
}

static void
json_str (FILE *f, const char *s)
{
  fputc ('"', f);
  for (; s && *s; s++)
    {
      unsigned char c = (unsigned char)*s;
      if (c == '"' || c == '\\')
        fprintf (f, "\\%c", c);
      else if (c < 0x20)
        fprintf (f, "\\u%04x", c);
      else
        fputc (c, f);
    }
  fputc ('"', f);
}

static void
print_summary (FILE *f, const struct rc_job_result *res, int code)
{
  size_t i;
  fprintf (f, "{\"exit_code\":%d,\"setup_us\":%llu,\"steps\":[", code,
           (unsigned long long)res->setup_us);
  for (i = 0; i < res->n_steps; i++)
    {
      const struct rc_step_result *r = &res->steps[i];
      const char *limit = rc_outcome_limit (r->outcome);
      fprintf (f, "%s{\"ran\":%s,\"exit_code\":%d,\"signal\":%d,\"limit\":", i ? "," : "",
               r->ran ? "true" : "false", r->exited ? r->exit_code : -1, r->term_signal);
      if (limit)
        json_str (f, limit);
      else
        fputs ("null", f);
      /* The flags are the verdict's, rendered for the tests' summaries. */
      fprintf (f,
               ",\"outcome\":\"%s\",\"timed_out\":%s,\"idle_timed_out\":%s,\"oom_killed\":%s,"
               "\"truncated\":%s,\"output_overflow\":%s,\"wall_ms\":%llu,\"cpu_ms\":%llu,"
               "\"memory_peak_kb\":%llu,\"stdout_bytes\":%zu,\"stderr_bytes\":%zu}",
               rc_outcome_name (r->outcome) ? rc_outcome_name (r->outcome) : "none",
               r->outcome == RC_OUTCOME_WALL || r->outcome == RC_OUTCOME_CPU ? "true" : "false",
               r->outcome == RC_OUTCOME_IDLE ? "true" : "false",
               r->outcome == RC_OUTCOME_MEMORY ? "true" : "false", r->truncated ? "true" : "false",
               r->outcome == RC_OUTCOME_OUTPUT ? "true" : "false", (unsigned long long)r->wall_ms,
               (unsigned long long)r->cpu_ms, (unsigned long long)r->memory_peak_kb, r->out.len,
               r->err.len);
    }
  fputs ("]}\n", f);
}

/* SIGINT, SIGTERM, SIGHUP: finish the current job (at most its wall
 * limit), then tear the host setup down and exit 128+sig, so an
 * interrupted run leaves no cgroup subtree behind.  (SIGKILL cannot be
 * caught; the subtree "runcell-exec-<pid>" is then left for the operator.) */
static volatile sig_atomic_t got_signal;

static void
on_signal (int sig)
{
  got_signal = sig;
}

static void
catch_signals (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The configuration of a `runcell exec`: a cgroup subtree, a state
 * directory and slot uids of its own, so it runs beside the service and
 * the other tests without touching their slots. */
static int
exec_config (const struct exec_opts *o, struct rc_config *cfg, char *state, size_t state_size,
             rc_err_t *err)
{
  char cgname[64];
  if (rc_config_load_env (cfg, err) < 0)
    return -1;
  snprintf (cgname, sizeof cgname, "runcell-exec-%ld", (long)getpid ());
  snprintf (state, state_size, "/run/runcell-exec-%ld", (long)getpid ());
  free (cfg->cgroup_name);
  cfg->cgroup_name = strdup (cgname);
  free (cfg->state_dir);
  cfg->state_dir = strdup (state);
  if (cfg->cgroup_name == NULL || cfg->state_dir == NULL)
    return rc_error_set (err, ENOMEM, "configuration");
  cfg->concurrency = o->slots;
  cfg->uid_base += (unsigned)o->slot;
  return 0;
}

/* The job: the language's defaults, then what the command line says
 * (rc_limits_resolve); the command as given, or the language's own (the
 * one builder). */
static int
exec_build (const struct exec_opts *o, const struct rc_config *cfg, const struct rc_lang *lang,
            const char *stdin_data, size_t stdin_len, struct rc_job *job, rc_err_t *err)
{
  struct rc_job_request jr = { 0 };
  if (rc_limits_resolve (cfg, lang, RC_LIMITS_COMMAND, &o->limits, &jr.limits, err) < 0)
    return -1;
  if (o->tmp_bytes)
    jr.limits.tmp_bytes = o->tmp_bytes;
  jr.kind = RC_JOB_COMMAND;
  jr.workspace = RC_WORKSPACE_TEMPLATE;
  jr.argv = o->argv[0] ? (const char *const *)o->argv : NULL;
  jr.files = o->files;
  jr.n_files = o->n_files;
  jr.stdin_data = stdin_data;
  jr.stdin_len = stdin_len;
  jr.template_dir = o->template_dir;
  return rc_job_build (job, lang, &jr, cfg, err);
}

/* Runs the job o->repeat times, one claim each; times[i] is each job's
 * wall time.  > 0 (128 + signal) when a signal interrupted the loop. */
static int
exec_repeat (struct rc_sandbox *sb, const struct exec_opts *o, struct rc_job *job,
             struct rc_job_result *res, uint64_t *times, rc_err_t *err)
{
  catch_signals ();
  for (uint64_t i = 0; i < o->repeat; i++)
    {
      uint64_t t = rc_now_us ();
      struct rc_slot_claim claim = rc_slot_claim_wait (10000, 10000, NULL);
      rc_job_result_free (res);
      if (claim.slot < 0)
        return rc_error_set (err, EBUSY, "no slot became ready");
      job->spec.slot = claim.slot;
      if (rc_sandbox_run (sb, &job->spec, claim.seq, res, err) < 0)
        return -1;
      times[i] = rc_now_us () - t;
      rc_sandbox_end_claims (sb, false);
      for (size_t k = 0; k < res->n_steps; k++)
        rc_step_result_explain (&res->steps[k], &job->spec.steps[k].limits);
      if (got_signal)
        {
          fprintf (stderr, "runcell: interrupted by signal %d after %llu jobs\n", (int)got_signal,
                   (unsigned long long)i + 1);
          return 128 + (int)got_signal;
        }
    }
  return 0;
}

/* The last job's output and summary; the median over a --repeat run.
 * Returns the program's exit status (128 + signal when killed). */
static int
exec_report (const struct exec_opts *o, const struct rc_job_result *res, uint64_t *times)
{
  const struct rc_step_result *r = &res->steps[0];
  FILE *jf = stderr;
  int code = r->exited ? r->exit_code : 128 + r->term_signal;
  if (r->out.len)
    fwrite (r->out.data, 1, r->out.len, stdout);
  fflush (stdout);
  if (r->err.len)
    fwrite (r->err.data, 1, r->err.len, stderr);
  if (o->result_json && (jf = fopen (o->result_json, "we")) == NULL)
    {
      fprintf (stderr, "runcell: --result-json %s: %s\n", o->result_json, strerror (errno));
      jf = stderr;
    }
  print_summary (jf, res, code);
  if (jf != stderr)
    fclose (jf);
  if (o->repeat > 1)
    {
      qsort (times, o->repeat, sizeof (*times), cmp_u64);
      fprintf (stderr, "runcell: %llu jobs, median %.3f ms per job (min %.3f, max %.3f)\n",
               (unsigned long long)o->repeat, (double)times[o->repeat / 2] / 1000.0,
               (double)times[0] / 1000.0, (double)times[o->repeat - 1] / 1000.0);
    }
  return code;
}

/* Removes what exec_config's state directory holds. */
static void
exec_teardown (const struct rc_config *cfg, const char *state)
{
  rc_sandbox_host_teardown (cfg);
  for (unsigned k = 0; k < cfg->concurrency; k++)
    {
      char sock[160];
      snprintf (sock, sizeof sock, "%s/slot%u.sock", state, k);
      (void)unlink (sock);
    }
  (void)rmdir (state);
}

static int
cmd_exec (int argc, char **argv)
{
  struct exec_opts o = { .repeat = 1, .slots = 1 };
  struct rc_config cfg;
  struct rc_lang_table langs = { 0 };
  const struct rc_lang *lang = NULL;
  struct rc_sandbox *sb = NULL;
  enum rc_sandbox_mode mode;
  struct rc_job job = { 0 };
  struct rc_job_result res = { 0 };
  char state[96] = "", *stdin_data = NULL;
  size_t stdin_len = 0;
  uint64_t *times = NULL;
  rc_err_t err = NULL;
  int code = 125, r;
  bool teardown = false;

  memset (&cfg, 0, sizeof cfg);
  if (parse_exec (argc, argv, &o) < 0 || (o.argv[0] == NULL && o.lang == NULL))
    {
      usage (stderr);
      return 125;
    }
  if (exec_config (&o, &cfg, state, sizeof state, &err) < 0)
    goto fail;
  if (o.lang
      && (rc_lang_table_load (&langs, &cfg, &err) < 0
          || rc_lang_lookup (&langs, "--lang", o.lang, true, RC_LANG_NEED_TEST, &lang, &err) < 0))
    goto fail;
  if (o.stdin_path && read_whole (o.stdin_path, &stdin_data, &stdin_len) < 0)
    {
      fprintf (stderr, "runcell: --stdin %s: %s\n", o.stdin_path, strerror (errno));
      goto out;
    }
  if (exec_build (&o, &cfg, lang, stdin_data, stdin_len, &job, &err) < 0)
    goto fail;
  teardown = true;
  if (rc_sandbox_host_setup (&cfg, &mode, &err) < 0 || rc_sandbox_open (&sb, &cfg, mode, &err) < 0)
    goto fail;
  /* Every slot's init, with a root serving the language (or the
   * template) alone.  An init refuses to start while a process of its
   * slot's uid exists outside the slot (a live service, another runner on
   * the same RUN_UID_BASE), so no job shares a uid with a stranger. */
  {
    struct rc_lang_table one = { (struct rc_lang *)lang, lang ? 1 : 0 };
    if (rc_sandbox_keeper_start (sb, &one, o.template_dir, &err) < 0
        || rc_sandbox_keeper_wait_ready (sb, 30000, &err) < 0)
      goto fail;
  }
  times = calloc (o.repeat, sizeof (*times));
  if (times == NULL)
    goto out;
  r = exec_repeat (sb, &o, &job, &res, times, &err);
  if (r < 0)
    goto fail;
  code = r > 0 ? r : exec_report (&o, &res, times);
  goto out;

fail:
  fprintf (stderr, "runcell: %s\n", rc_error_text (err));
  code = 125;
out:
  rc_error_free (&err);
  rc_job_result_free (&res);
  if (sb)
    rc_sandbox_end_claims (sb, true);
  rc_sandbox_close (sb);
  if (teardown)
    exec_teardown (&cfg, state);
  rc_job_free (&job);
  rc_lang_table_free (&langs);
  free (stdin_data);
  free (times);
  for (size_t i = 0; i < o.n_files; i++)
    {
      free ((char *)o.files[i].path);
      free ((char *)o.files[i].data);
    }
  rc_config_free (&cfg);
  return code;
}

int
main (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "--check-host") == 0)
    {
      struct rc_config cfg;
      rc_err_t err = NULL;
      memset (&cfg, 0, sizeof cfg);
      if (rc_config_load_env (&cfg, &err) < 0)
        {
          fprintf (stderr, "runcell: %s\n", rc_error_text (err));
          rc_error_free (&err);
          return 2;
        }
      struct rc_lang_table langs = { 0 };
      bool have_langs;
      int r;
      /* The languages too: a path of theirs no job's root can hold stops
       * the service at start, and so it fails the check (counted with the
       * rest of what is missing). */
      have_langs = rc_lang_table_load (&langs, &cfg, &err) == 0;
      r = rc_sandbox_check_host (&cfg, have_langs ? &langs : NULL,
                                 have_langs ? NULL : rc_error_text (err),
                                 argc > 2 && strcmp (argv[2], "-v") == 0);
      rc_error_free (&err);
      if (have_langs)
        rc_lang_table_free (&langs);
      rc_config_free (&cfg);
      return r;
    }
  if (argc >= 2 && strcmp (argv[1], "exec") == 0)
    return cmd_exec (argc - 2, argv + 2);
  if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0))
    {
      usage (stdout);
      return 0;
    }
  usage (stderr);
  return 2;
}
