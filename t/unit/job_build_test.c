/* job_build_test.c - the one job builder, for each of its four callers:
 * /run (RC_JOB_CONTRACT), /v1/execute (RC_JOB_EXECUTE, template workspace),
 * sessions (RC_JOB_EXECUTE, bound workspace) and `runcell exec`
 * (RC_JOB_COMMAND): files, argv, env, limits, the one RLIMIT_CPU and the
 * host paths of the job's root. */
#include <config.h>

#include "common/job_build.h"
#include "t/unit/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned cpus;

static int
load (struct rc_lang *l, const char *json)
{
  rc_err_t err = NULL;
  if (rc_lang_parse_manifest (l, json, strlen (json), "/langs/x", &err) < 0)
    {
      tap_diag ("%s", rc_error_text (err));
      rc_error_free (&err);
      return -1;
    }
  l->command = strdup ("python3 -B ./checker.py");
  return 0;
}

static bool
has_env (const struct rc_job *job, const char *kv)
{
  for (const char *const *e = job->spec.envp; e && *e; e++)
    if (strcmp (*e, kv) == 0)
      return true;
  return false;
}

static size_t
argc_of (const char *const *argv)
{
  size_t n = 0;
  while (argv && argv[n])
    n++;
  return n;
}

static void
config (struct rc_config *cfg)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->pids_max = 512;
  cfg->output_max = 1 << 20;
  cfg->memory_max = 3ULL << 30;
  cfg->sandbox_tmp_size = 0;
  cfg->timeout_default_ms = 30000;
  cfg->timeout_max_ms = 600000;
  cfg->limit_max = (struct rc_limits){ .wall_ms = 300000,
                                       .idle_ms = 300000,
                                       .cpu_ms = 300000,
                                       .memory_bytes = 4096ULL << 20,
                                       .pids = 1024,
                                       .output_bytes = 64ULL << 20 };
  cfg->sessions.timeout_s = 20;
  cfg->sessions.memory = 256ULL << 20;
  cfg->sessions.pids = 128;
  cfg->sessions.max_output = 10 << 20;
  cfg->sessions.nofile = 200;
  cfg->sessions.fsize = 1 << 20;
  cfg->sessions.max_session_size = 100ULL << 20;
  cfg->sessions.tmp_size = 64ULL << 20;
}

/* The limits through the one resolver, as every entry point gets them. */
static void
resolve (const struct rc_config *cfg, const struct rc_lang *lang, enum rc_limits_origin origin,
         const struct rc_limits *asked, struct rc_job_request *req)
{
  rc_err_t err = NULL;
  if (rc_limits_resolve (cfg, lang, origin, asked, &req->limits, &err) < 0)
    {
      tap_diag ("resolve: %s", rc_error_text (err));
      rc_error_free (&err);
    }
}

static const char *PY
    = "{\"slug\":\"python\",\"solutionFile\":\"solution.py\",\"defaultLimits\":{\"memoryMb\":512},"
      "\"tmpSize\":\"256m\",\"overlayPaths\":[\"/opt/c\"],"
      "\"execute\":{\"run\":\"python3 -B \\\"$MAIN\\\"\",\"main\":\"main.py\"}}";
static const char *CPP
    = "{\"slug\":\"cpp\",\"solutionFile\":\"solution.cpp\","
      "\"checkerFile\":\"checker.cpp\",\"checkerRequired\":true,\"defaultLimits\":{\"memoryMb\":"
      "1024},"
      "\"execute\":{\"compile\":\"g++ -o /tmp/a.out *.cpp\",\"run\":\"/tmp/a.out\","
      "\"main\":\"main.cpp\"}}";

static void
test_rlimit_cpu (void)
{
  struct rc_limits l = { 0 };
  tap_ok (rc_limits_rlimit_cpu_s (&l, 4) == 0, "RLIMIT_CPU: no clock, no rlimit");
  l.wall_ms = 2500;
  tap_ok (rc_limits_rlimit_cpu_s (&l, 4) == 13,
          "RLIMIT_CPU: ceil(wall) * cpus + 1 without a CPU clock");
  l.cpu_ms = 1000;
  tap_ok (rc_limits_rlimit_cpu_s (&l, 2) == 3, "RLIMIT_CPU: the CPU clock when there is one");
}

/* /run: the contract's files in inputDir, the resolved make command. */
static void
test_contract (void)
{
  struct rc_lang py, cpp;
  struct rc_config cfg;
  struct rc_job job;
  struct rc_job_request req = { 0 };
  rc_err_t err = NULL;
  const struct rc_step *st;

  config (&cfg);
  if (load (&py, PY) < 0 || load (&cpp, CPP) < 0)
    {
      tap_ok (0, "manifests parse");
      return;
    }
  req.kind = RC_JOB_CONTRACT;
  req.solution = "def solution(): pass";
  req.solution_len = strlen (req.solution);
  req.checker = "ignored";
  req.checker_len = 7;
  req.asserts = "[]";
  req.asserts_len = 2;
  resolve (&cfg, &py, RC_LIMITS_RUN, &(struct rc_limits){ .wall_ms = 5000 }, &req);
  tap_ok (rc_job_build (&job, &py, &req, &cfg, &err) == 0, "/run: builds");
  st = &job.spec.steps[0];
  tap_ok (job.spec.n_steps == 1 && job.spec.n_files == 2
              && strcmp (job.spec.files[0].path, "check/solution.py") == 0
              && strcmp (job.spec.files[1].path, "check/asserts.json") == 0,
          "/run: solution and asserts in inputDir, no checker for a language without one");
  tap_ok (argc_of (st->argv) == 3 && strcmp (st->argv[0], "python3") == 0
              && strcmp (st->argv[1], "-B") == 0 && strcmp (st->argv[2], "./checker.py") == 0,
          "/run: a one-command recipe is exec'd directly, without sh");
  tap_ok (st->limits.wall_ms == 5000 && st->limits.memory_bytes == (512ULL << 20)
              && st->limits.stream_bytes == (1 << 20) && st->limits.pids == 512
              && st->limits.rlimit_as == (3ULL << 30) && st->limits.cpu_ms == 0
              && st->limits.rlimit_cpu_s == rc_limits_rlimit_cpu_s (&st->limits, cpus),
          "/run: timeout, the language's memory, RUN_OUTPUT_MAX, RUN_PIDS_MAX, RUN_MEMORY_MAX, "
          "one RLIMIT_CPU");
  tap_ok (strcmp (job.spec.template_dir, "/langs/x") == 0 && job.spec.tmp_bytes == (256ULL << 20)
              && job.spec.lang && strcmp (job.spec.lang, "python") == 0
              && job.spec.workspace == RC_WORKSPACE_TEMPLATE,
          "/run: the language template, tmpSize and the language (its overlays)");
  tap_ok (has_env (&job, "HOME=/sandbox"), "/run: the job environment");
  rc_job_free (&job);
  tap_ok (rc_job_build (&job, &cpp, &req, &cfg, &err) == 0 && job.spec.n_files == 3
              && strcmp (job.spec.files[1].path, "check/checker.cpp") == 0
              && job.spec.files[1].len == 7,
          "/run: the checker is written for a language that has one");
  rc_job_free (&job);
  rc_lang_free (&py);
  rc_lang_free (&cpp);
}

/* /v1/execute: request files, $MAIN, a compile step, args as "$@". */
static void
test_execute (void)
{
  struct rc_lang py, cpp;
  struct rc_config cfg;
  struct rc_job job;
  struct rc_job_request req = { 0 };
  struct rc_file files[2] = { { "prog.py", "print(1)", 8, 0644 }, { "lib.py", "", 0, 0644 } };
  const char *args[] = { "a", "b c", "", "\xc3\xbc", NULL };
  rc_err_t err = NULL;
  const struct rc_step *run, *comp;

  config (&cfg);
  if (load (&py, PY) < 0 || load (&cpp, CPP) < 0)
    return;
  req.kind = RC_JOB_EXECUTE;
  req.workspace = RC_WORKSPACE_TEMPLATE;
  req.files = files;
  req.n_files = 2;
  req.args = args;
  req.stdin_data = "in";
  req.stdin_len = 2;
  resolve (&cfg, &py, RC_LIMITS_EXECUTE, NULL, &req);
  tap_ok (rc_job_build (&job, &py, &req, &cfg, &err) == 0, "/v1/execute: builds");
  run = &job.spec.steps[job.run_step];
  tap_ok (job.spec.n_steps == 1 && !job.has_compile && job.spec.template_dir == NULL
              && job.spec.n_files == 2,
          "/v1/execute: an interpreted language is one step in an empty workspace");
  tap_ok (argc_of (run->argv) == 7 && strcmp (run->argv[0], "python3") == 0
              && strcmp (run->argv[2], "prog.py") == 0,
          "/v1/execute: a simple run command is exec'd directly, $MAIN expanded (%s)",
          run->argv[2]);
  tap_ok (strcmp (run->argv[3], "a") == 0 && strcmp (run->argv[4], "b c") == 0
              && strcmp (run->argv[5], "") == 0 && strcmp (run->argv[6], "\xc3\xbc") == 0,
          "/v1/execute: args follow byte-exact and in order");
  tap_ok (has_env (&job, "MAIN=prog.py") && has_env (&job, "RUNCELL_LANG_DIR=/lang/python"),
          "/v1/execute: MAIN is the first file, RUNCELL_LANG_DIR the language directory");
  tap_ok (run->stdin_len == 2 && run->limits.wall_ms == py.default_limits.wall_ms
              && run->limits.cpu_ms == py.default_limits.cpu_ms
              && run->limits.rlimit_cpu_s == rc_limits_rlimit_cpu_s (&run->limits, cpus)
              && run->limits.rlimit_as == (3ULL << 30),
          "/v1/execute: the request's limits and stdin, one RLIMIT_CPU");
  rc_job_free (&job);

  req.files = (struct rc_file[]){ { "main.cpp", "int main(){}", 12, 0644 } };
  req.n_files = 1;
  resolve (&cfg, &cpp, RC_LIMITS_EXECUTE, &(struct rc_limits){ .memory_bytes = 64ULL << 20 }, &req);
  tap_ok (rc_job_build (&job, &cpp, &req, &cfg, &err) == 0 && job.spec.n_steps == 2
              && job.has_compile && job.run_step == 1,
          "/v1/execute: a compiled language has a compile step");
  comp = &job.spec.steps[0];
  run = &job.spec.steps[1];
  tap_ok (comp->stop_on_failure && comp->limits.wall_ms == RC_COMPILE_WALL_MS
              && comp->limits.memory_bytes == (1ULL << 30) && comp->stdin_data == NULL
              && argc_of (comp->argv) == 4
              && comp->limits.rlimit_cpu_s == rc_limits_rlimit_cpu_s (&comp->limits, cpus),
          "/v1/execute: compile limits of its own, no args, no stdin");
  tap_ok (strcmp (run->argv[0], "/tmp/a.out") == 0 && argc_of (run->argv) == 5
              && run->limits.memory_bytes == (64ULL << 20),
          "/v1/execute: the compiled program gets the args and the request's memory");
  rc_job_free (&job);

  /* /v1/judge splits the two: a compile job whose /tmp is the build
   * directory, then run jobs whose /tmp is an overlay on it. */
  req.stage = RC_JOB_STAGE_COMPILE;
  req.tmp = RC_TMP_BIND;
  req.tmp_dirfd = 9;
  tap_ok (rc_job_build (&job, &cpp, &req, &cfg, &err) == 0 && job.spec.n_steps == 1
              && job.has_compile && job.run_step == 0 && job.spec.tmp == RC_TMP_BIND
              && job.spec.tmp_dirfd == 9,
          "/v1/judge: the compile step alone, /tmp the build directory");
  comp = &job.spec.steps[0];
  tap_ok (strcmp (comp->argv[0], "/bin/sh") == 0 && strstr (comp->argv[2], "g++")
              && comp->stdin_data == NULL && comp->limits.wall_ms == RC_COMPILE_WALL_MS,
          "/v1/judge: the compile job has the compile limits and no stdin");
  rc_job_free (&job);
  req.stage = RC_JOB_STAGE_RUN;
  req.tmp = RC_TMP_OVERLAY;
  tap_ok (rc_job_build (&job, &cpp, &req, &cfg, &err) == 0 && job.spec.n_steps == 1
              && !job.has_compile && job.spec.tmp == RC_TMP_OVERLAY
              && strcmp (job.spec.steps[0].argv[0], "/tmp/a.out") == 0
              && job.spec.steps[0].stdin_len == 2,
          "/v1/judge: a test's run step alone, over the build");
  rc_job_free (&job);
  req.stage = RC_JOB_STAGE_COMPILE;
  tap_ok (rc_job_build (&job, &py, &req, &cfg, &err) < 0,
          "a compile job of a language without one is refused");
  rc_error_free (&err);
  rc_job_free (&job);
  rc_lang_free (&py);
  rc_lang_free (&cpp);
}

/* Sessions: the code staged in /tmp, one step, the session's rlimits. */
static void
test_session (void)
{
  struct rc_lang cpp;
  struct rc_config cfg;
  struct rc_job job;
  struct rc_job_request req = { 0 };
  rc_err_t err = NULL;
  const struct rc_step *st;

  config (&cfg);
  if (load (&cpp, CPP) < 0)
    return;
  req.kind = RC_JOB_EXECUTE;
  req.workspace = RC_WORKSPACE_BIND;
  req.bind_dirfd = 7;
  req.code = "int main(){}";
  req.code_len = 12;
  resolve (&cfg, &cpp, RC_LIMITS_SESSION, NULL, &req);
  tap_ok (rc_job_build (&job, &cpp, &req, &cfg, &err) == 0, "sessions: builds");
  st = &job.spec.steps[0];
  tap_ok (job.spec.n_steps == 1 && job.spec.workspace == RC_WORKSPACE_BIND
              && job.spec.bind_dirfd == 7 && job.spec.n_files == 0
              && job.spec.tmp_bytes == (64ULL << 20),
          "sessions: one step in the bound session, nothing written into it");
  tap_ok (argc_of (st->argv) == 5 && strcmp (st->argv[4], "int main(){}") == 0
              && strstr (st->argv[2], "\"$d/main.cpp\"") && strstr (st->argv[2], "exec 2>&1")
              && strstr (st->argv[2], "g++ -o /tmp/a.out *.cpp || exit $?")
              && strstr (st->argv[2], "exec /tmp/a.out \"$@\"") && !strstr (st->argv[2], "ulimit"),
          "sessions: staged under /tmp, compiled there, stderr merged, no ulimit prologue");
  tap_ok (has_env (&job, "MAIN=" RC_EXEC_STAGE_DIR "/main.cpp"),
          "sessions: MAIN is the staged file");
  tap_ok (st->limits.nofile == 200 && st->limits.fsize_bytes == (1 << 20) && st->limits.pids == 128
              && st->limits.output_bytes == (10 << 20)
              && st->limits.rlimit_cpu_s == rc_limits_rlimit_cpu_s (&st->limits, cpus),
          "sessions: RLIMIT_NOFILE and RLIMIT_FSIZE are limits fields, one RLIMIT_CPU");
  {
    /* A file never outgrows the session's byte quota, sparse or not. */
    struct rc_job_request small = req;
    cfg.sessions.max_session_size = 512 << 10;
    resolve (&cfg, &cpp, RC_LIMITS_SESSION, NULL, &small);
    tap_ok (small.limits.run.fsize_bytes == (512 << 10),
            "sessions: RLIMIT_FSIZE is at most MAX_SESSION_SIZE (%llu)",
            (unsigned long long)small.limits.run.fsize_bytes);
  }
  rc_job_free (&job);
  rc_lang_free (&cpp);
}

/* `runcell exec`: a command as given, with or without a language. */
static void
test_command (void)
{
  struct rc_lang py;
  struct rc_config cfg;
  struct rc_job job;
  struct rc_job_request req = { 0 };
  const char *argv[] = { "/bin/true", "x", NULL };
  rc_err_t err = NULL;

  config (&cfg);
  if (load (&py, PY) < 0)
    return;
  req.kind = RC_JOB_COMMAND;
  req.argv = argv;
  cfg.sandbox_tmp_size = 32ULL << 20;
  resolve (&cfg, NULL, RC_LIMITS_COMMAND, &(struct rc_limits){ .wall_ms = 1000 }, &req);
  tap_ok (rc_job_build (&job, NULL, &req, &cfg, &err) == 0 && job.spec.steps[0].argv == argv
              && job.spec.template_dir == NULL && job.spec.tmp_bytes == (32ULL << 20)
              && job.spec.steps[0].limits.rlimit_cpu_s
                     == rc_limits_rlimit_cpu_s (&job.spec.steps[0].limits, cpus)
              && job.spec.steps[0].limits.pids == 512,
          "runcell exec: argv as given without a language, RUN_SANDBOX_TMP_SIZE");
  rc_job_free (&job);
  cfg.sandbox_tmp_size = 0;
  resolve (&cfg, &py, RC_LIMITS_COMMAND, &(struct rc_limits){ .wall_ms = 1000 }, &req);
  req.template_dir = "/elsewhere";
  tap_ok (rc_job_build (&job, &py, &req, &cfg, &err) == 0
              && strcmp (job.spec.template_dir, "/elsewhere") == 0
              && job.spec.tmp_bytes == (256ULL << 20),
          "runcell exec: --template over the language directory");
  rc_job_free (&job);
  req.argv = NULL;
  req.template_dir = NULL;
  tap_ok (rc_job_build (&job, &py, &req, &cfg, &err) == 0 && job.spec.n_files == 0
              && strcmp (job.spec.steps[0].argv[2], "./checker.py") == 0
              && strcmp (job.spec.template_dir, "/langs/x") == 0,
          "runcell exec --lang: the language's command, no solution file invented");
  rc_job_free (&job);
  tap_ok (rc_job_build (&job, NULL, &req, &cfg, &err) < 0,
          "runcell exec: no command and no language is an error");
  rc_error_free (&err);
  rc_job_free (&job);
  rc_lang_free (&py);
}

/* The job's root: the manifest's hostPaths for every kind, and the
 * language directory for /v1/execute and sessions ($RUNCELL_LANG_DIR). */
static void
test_host_paths (void)
{
  static const char *const JS
      = "{\"slug\":\"js\",\"solutionFile\":\"solution.js\",\"hostPaths\":[\"/opt/runcell/node\"],"
        "\"execute\":{\"run\":\"node \\\"$MAIN\\\"\",\"main\":\"main.js\"}}";
  struct rc_lang js, py;
  struct rc_config cfg;
  struct rc_job job;
  struct rc_job_request req = { 0 };
  struct rc_file f = { "main.js", "1", 1, 0644 };
  rc_err_t err = NULL;

  config (&cfg);
  if (load (&js, JS) < 0 || load (&py, PY) < 0)
    {
      tap_ok (0, "manifests parse");
      return;
    }
  req.kind = RC_JOB_EXECUTE;
  resolve (&cfg, &js, RC_LIMITS_EXECUTE, NULL, &req);
  req.files = &f;
  req.n_files = 1;
  tap_ok (rc_job_build (&job, &js, &req, &cfg, &err) == 0
              && has_env (&job, "RUNCELL_LANG_DIR=/lang/js"),
          "/v1/execute names the language directory as every root shows it, not its host path");
  rc_job_free (&job);
  req.workspace = RC_WORKSPACE_BIND;
  req.bind_dirfd = 0;
  req.files = NULL;
  req.n_files = 0;
  tap_ok (rc_job_build (&job, &py, &req, &cfg, &err) == 0
              && has_env (&job, "RUNCELL_LANG_DIR=/lang/python"),
          "a session too");
  rc_job_free (&job);
  rc_lang_free (&js);
  rc_lang_free (&py);
}

int
main (void)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  cpus = n > 0 ? (unsigned)n : 1;
  test_rlimit_cpu ();
  test_contract ();
  test_execute ();
  test_session ();
  test_command ();
  test_host_paths ();
  return tap_done ();
}
