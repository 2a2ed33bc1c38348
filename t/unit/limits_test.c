/* limits_test.c - rc_limits_resolve: its four layers in their order for
 * every entry point, the ceilings, the operator's per-language overrides. */
#include <config.h>

#include "common/limits.h"
#include "t/unit/env_table.h"
#include "t/unit/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct rc_lang
toy_lang (void)
{
  struct rc_lang l;
  memset (&l, 0, sizeof l);
  l.slug = (char *)"toy";
  l.tmp_size = 128ULL << 20;
  l.default_limits = (struct rc_limits){ .wall_ms = 5000,
                                         .idle_ms = 4000,
                                         .cpu_ms = 3000,
                                         .memory_bytes = 512ULL << 20,
                                         .pids = 64,
                                         .output_bytes = 1 << 20 };
  return l;
}

static int
load (struct rc_config *cfg, const char **env)
{
  rc_err_t err = NULL;
  int r = rc_config_load (cfg, env_table_lookup, (void *)env, &err);
  if (r < 0)
    {
      tap_diag ("config: %s", rc_error_text (err));
      rc_error_free (&err);
    }
  return r;
}

static void
test_layers (const char *langs_dir)
{
  const char *plain[] = { "RUN_LANGS_DIR", langs_dir, "RUN_MEMORY_MAX", "2g", NULL };
  const char *ops[] = { "RUN_LANGS_DIR",
                        langs_dir,
                        "RUN_SANDBOX_MEM_MAX",
                        "256m",
                        "RUN_MEM_MAX_TOY",
                        "300m",
                        "RUN_TMP_SIZE_TOY",
                        "32m",
                        "RUN_MAX_MEMORY_MB",
                        "400",
                        "RUN_MAX_CPU_MS",
                        "2000",
                        NULL };
  struct rc_config cfg;
  struct rc_lang toy = toy_lang ();
  struct rc_job_limits jl;
  rc_err_t err = NULL;

  if (load (&cfg, plain) < 0)
    return;
  tap_ok (rc_limits_resolve (&cfg, &toy, RC_LIMITS_EXECUTE, NULL, &jl, &err) == 0
              && jl.run.wall_ms == 5000 && jl.run.memory_bytes == 512ULL << 20 && jl.run.pids == 64
              && jl.tmp_bytes == 128ULL << 20 && jl.run.rlimit_as == 2ULL << 30
              && jl.run.rlimit_cpu_s > 0,
          "layer 1: the manifest's defaults, then RLIMIT_AS and RLIMIT_CPU for every step");
  tap_ok (rc_limits_resolve (&cfg, &toy, RC_LIMITS_EXECUTE,
                             &(struct rc_limits){ .wall_ms = 9000, .memory_bytes = 64ULL << 20 },
                             &jl, &err)
                  == 0
              && jl.run.wall_ms == 9000 && jl.run.memory_bytes == 64ULL << 20
              && jl.run.cpu_ms == 3000 && jl.compile.memory_bytes == 512ULL << 20
              && jl.compile.wall_ms == RC_COMPILE_WALL_MS,
          "layer 3: the request field by field; a compile step keeps the language's memory");
  tap_ok (rc_limits_resolve (&cfg, &toy, RC_LIMITS_RUN, NULL, &jl, &err) == 0
              && jl.run.wall_ms == cfg.timeout_default_ms && jl.run.memory_bytes == 512ULL << 20
              && jl.run.cpu_ms == 0 && jl.run.stream_bytes == cfg.output_max,
          "/run: its default timeout, the language's memory, RUN_OUTPUT_MAX per stream");
  tap_ok (rc_limits_resolve (&cfg, &toy, RC_LIMITS_RUN, &(struct rc_limits){ .wall_ms = 3600000 },
                             &jl, &err)
                  < 0
              && err->http_status == 400 && strstr (err->msg, "above the maximum"),
          "/run: a timeout over RUN_TIMEOUT_MAX is a 400");
  rc_error_free (&err);
  tap_ok (rc_limits_resolve (&cfg, &toy, RC_LIMITS_SESSION, NULL, &jl, &err) == 0
              && jl.run.wall_ms == cfg.sessions.timeout_s * 1000
              && jl.run.memory_bytes == cfg.sessions.memory && jl.run.pids == cfg.sessions.pids
              && jl.run.nofile == cfg.sessions.nofile && jl.tmp_bytes == cfg.sessions.tmp_size
              && jl.run.idle_ms == 0,
          "a session's job: the sessions' configuration in place of the manifest");
  tap_ok (rc_limits_resolve (&cfg, NULL, RC_LIMITS_COMMAND,
                             &(struct rc_limits){ .stream_bytes = RC_LIMIT_NONE }, &jl, &err)
                  == 0
              && jl.run.stream_bytes == 0 && jl.run.wall_ms == cfg.timeout_default_ms
              && jl.run.pids == cfg.pids_max,
          "runcell exec: RC_LIMIT_NONE turns a default off; no language, the service's defaults");
  rc_config_free (&cfg);

  if (load (&cfg, ops) < 0)
    return;
  tap_ok (rc_limits_resolve (&cfg, &toy, RC_LIMITS_RUN, NULL, &jl, &err) == 0
              && jl.run.memory_bytes == 300ULL << 20 && jl.tmp_bytes == 32ULL << 20,
          "layer 2: RUN_MEM_MAX_<SLUG> over RUN_SANDBOX_MEM_MAX over the manifest, and tmpfs");
  tap_ok (rc_limits_resolve (&cfg, &toy, RC_LIMITS_EXECUTE, NULL, &jl, &err) == 0
              && jl.run.memory_bytes == 300ULL << 20 && jl.run.cpu_ms == 2000,
          "layer 4: a default above a ceiling comes down to it");
  tap_ok (rc_limits_resolve (&cfg, &toy, RC_LIMITS_EXECUTE,
                             &(struct rc_limits){ .memory_bytes = 401ULL << 20 }, &jl, &err)
                  < 0
              && err->http_status == 400
              && strcmp (err->msg, "limits.memoryMb: 401 is above this server's ceiling of 400")
                     == 0,
          "layer 4: an asked value above its ceiling is a 400 naming it");
  rc_error_free (&err);
  {
    struct rc_limits run = { .wall_ms = 1000, .output_bytes = 64 * 1024 };
    struct rc_limits compile = { .wall_ms = 7000, .memory_bytes = 100ULL << 20 };
    struct rc_limits_ask ask = { &run, &compile, "tests[2].limits", NULL };
    tap_ok (rc_limits_resolve_ask (&cfg, &toy, RC_LIMITS_JUDGE, &ask, &jl, &err) == 0
                && jl.compile.wall_ms == 7000 && jl.compile.memory_bytes == 100ULL << 20
                && jl.compile.cpu_ms == RC_COMPILE_CPU_MS && jl.run.wall_ms == 1000
                && jl.run.stream_bytes == 64 * 1024 && jl.run.output_bytes == 0,
            "compileLimits over the compile step's own; the judge caps each stream at outputKb");
    compile.memory_bytes = 401ULL << 20;
    tap_ok (rc_limits_resolve_ask (&cfg, &toy, RC_LIMITS_EXECUTE, &ask, &jl, &err) < 0
                && err->http_status == 400
                && strcmp (err->msg,
                           "compileLimits.memoryMb: 401 is above this server's ceiling of 400")
                       == 0,
            "an asked compile limit above its ceiling is a 400 naming it");
    rc_error_free (&err);
    compile.memory_bytes = 0;
    run.cpu_ms = 2001;
    tap_ok (rc_limits_resolve_ask (&cfg, &toy, RC_LIMITS_JUDGE, &ask, &jl, &err) < 0
                && strcmp (err->msg, "tests[2].limits.cpuMs: 2001 is above this server's ceiling "
                                     "of 2000")
                       == 0,
            "a judged test's limit is named by its path");
    rc_error_free (&err);
  }
  rc_config_free (&cfg);
}

int
main (void)
{
  char dir[] = "/tmp/rc-limits-test-XXXXXX", sub[64], cmd[96];
  if (mkdtemp (dir) == NULL)
    return 1;
  snprintf (sub, sizeof sub, "%s/toy", dir);
  mkdir (sub, 0755);
  test_layers (dir);
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system (cmd) != 0)
    tap_diag ("cleanup of %s failed", dir);
  return tap_done ();
}
