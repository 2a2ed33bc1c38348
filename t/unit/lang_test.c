/* lang_test.c - manifest parsing, the per-language overrides, the command
 * resolved from `make -n test`, and the job environment allowlist. */
#include <config.h>

#include "common/lang.h"
#include "common/limits.h"
#include "t/unit/env_table.h"
#include "t/unit/tap.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
write_file (const char *path, const char *text)
{
  FILE *f = fopen (path, "w");
  fputs (text, f);
  fclose (f);
}

static void
test_parse (void)
{
  struct rc_lang l;
  rc_err_t err = NULL;
  const char *good = "{\"slug\":\"golang\",\"aliases\":[\"go\"],\"inputDir\":\"check\","
                     "\"solutionFile\":\"solution.go\",\"checkerFile\":\"checker.go\","
                     "\"checkerRequired\":true,\"tmpSize\":\"512m\","
                     "\"overlayPaths\":[\"/opt/go/cache\"],\"env\":{\"GOCACHE\":\"/opt/go/cache\"},"
                     "\"defaultLimits\":{\"wallTimeMs\":20000,\"memoryMb\":256,\"outputKb\":64}}";
  tap_ok (rc_lang_parse_manifest (&l, good, strlen (good), "/x", &err) == 0, "manifest parses");
  tap_ok (strcmp (l.slug, "golang") == 0 && strcmp (l.aliases[0], "go") == 0 && l.checker_required
              && strcmp (l.checker_file, "checker.go") == 0 && l.tmp_size == 512ULL << 20
              && l.n_overlay_paths == 1 && strcmp (l.env[0], "GOCACHE=/opt/go/cache") == 0,
          "manifest fields are read");
  tap_ok (l.default_limits.wall_ms == 20000 && l.default_limits.memory_bytes == 256ULL << 20
              && l.default_limits.output_bytes == 64 * 1024 && l.default_limits.idle_ms == 10000,
          "defaultLimits override the document's defaults field by field");
  rc_lang_free (&l);

  static const char *const bad[] = {
    "{\"solutionFile\":\"a\"}",
    "{\"slug\":\"x\",\"solutionFile\":\"../a\"}",
    "{\"slug\":\"x\",\"solutionFile\":\"/etc/passwd\"}",
    "{\"slug\":\"x\",\"solutionFile\":\"a\",\"checkerRequired\":true}",
    "{\"slug\":\"x\",\"solutionFile\":\"a\",\"tmpSize\":\"lots\"}",
    "{\"slug\":\"x\",\"solutionFile\":\"a\",\"overlayPaths\":[\"rel\"]}",
    /* hostPaths the job's own mounts would cover: refused at load, not
     * by every slot's init at start */
    "{\"slug\":\"x\",\"solutionFile\":\"a\",\"hostPaths\":[\"/tmp/toolchain\"]}",
    "{\"slug\":\"x\",\"solutionFile\":\"a\",\"hostPaths\":[\"/lang/other\"]}",
    "{\"slug\":\"x\",\"solutionFile\":\"a\",\"hostPaths\":[\"/opt/x/..\"]}",
    "{\"slug\":\"x\",\"solutionFile\":\"a\",\"defaultLimits\":{\"pids\":-1}}",
    "[]",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      int r = rc_lang_parse_manifest (&l, bad[i], strlen (bad[i]), NULL, &err);
      tap_ok (r < 0 && err != NULL, "bad manifest rejected: %s (%s)", bad[i],
              err ? rc_error_text (err) : "accepted");
      rc_error_free (&err);
    }
}

static void
test_load (void)
{
  char dir[] = "/tmp/rc-lang-test-XXXXXX";
  char path[512];
  struct rc_config cfg;
  struct rc_lang_table t;
  struct rc_job_limits jl;
  rc_err_t err = NULL;
  const char *env[] = { "RUN_TMP_SIZE_TOY",
                        "32m",
                        "RUN_OVERLAY_PATHS_TOY",
                        "/a,/b",
                        "RUN_MEM_MAX_TOY",
                        "300m",
                        "RUN_LANGS_DIR",
                        dir,
                        "RUN_ENV_ALLOW",
                        "RC_TEST_ALLOWED",
                        "RC_TEST_ALLOWED",
                        "yes",
                        "RC_TEST_SECRET",
                        "hunter2",
                        NULL };
  const struct rc_lang *toy;
  char **jenv;

  if (mkdtemp (dir) == NULL)
    return;
  snprintf (path, sizeof path, "%s/toy", dir);
  mkdir (path, 0755);
  snprintf (path, sizeof path, "%s/toy/manifest.json", dir);
  write_file (path, "{\"slug\":\"toy\",\"aliases\":[\"t\"],\"solutionFile\":\"s.txt\","
                    "\"requires\":[\"sh\"],\"env\":{\"TOY\":\"1\"}}");
  snprintf (path, sizeof path, "%s/toy/Makefile", dir);
  write_file (path, "test:\n\t@echo first\n\tcat check/s.txt\n");
  snprintf (path, sizeof path, "%s/missing", dir);
  mkdir (path, 0755);
  snprintf (path, sizeof path, "%s/missing/manifest.json", dir);
  write_file (path,
              "{\"slug\":\"missing\",\"solutionFile\":\"s\",\"requires\":[\"no-such-prog-rc\"]}");
  snprintf (path, sizeof path, "%s/missing/Makefile", dir);
  write_file (path, "test:\n\tno-such-prog-rc\n");

  tap_ok (rc_config_load (&cfg, env_table_lookup, (void *)env, &err) == 0,
          "configuration loads (%s)", err ? rc_error_text (err) : "ok");
  rc_error_free (&err);
  tap_ok (rc_lang_table_load (&t, &cfg, &err) == 0, "table loads (%s)",
          err ? rc_error_text (err) : "ok");
  tap_ok (t.n == 2 && strcmp (t.langs[0].slug, "missing") == 0, "two languages, sorted");
  toy = rc_lang_find (&t, "t");
  tap_ok (toy != NULL && strcmp (toy->slug, "toy") == 0, "found by alias");
  tap_ok (toy && toy->command && strcmp (toy->command, "echo first\ncat check/s.txt") == 0,
          "command resolved from make -n test, one line per recipe line");
  tap_ok (toy && toy->n_overlay_paths == 2 && strcmp (toy->overlay_paths[1], "/b") == 0,
          "RUN_OVERLAY_PATHS_TOY overrides the manifest");
  tap_ok (toy && rc_limits_resolve (&cfg, toy, RC_LIMITS_EXECUTE, NULL, &jl, NULL) == 0
              && jl.tmp_bytes == 32ULL << 20 && jl.run.memory_bytes == 300ULL << 20
              && jl.compile.memory_bytes == 300ULL << 20,
          "RUN_TMP_SIZE_TOY and RUN_MEM_MAX_TOY reach the resolved limits");
  tap_ok (!t.langs[0].available && t.langs[0].unavailable_reason,
          "missing toolchain -> unavailable");

  jenv = rc_job_env_build (&cfg, toy);
  {
    bool secret = false, allowed = false, home = false, toyvar = false, path_ok = false;
    for (char **e = jenv; e && *e; e++)
      {
        secret |= strstr (*e, "hunter2") != NULL;
        allowed |= strcmp (*e, "RC_TEST_ALLOWED=yes") == 0;
        home |= strcmp (*e, "HOME=/sandbox") == 0;
        toyvar |= strcmp (*e, "TOY=1") == 0;
        path_ok |= strncmp (*e, "PATH=", 5) == 0;
      }
    tap_ok (!secret && allowed && home && toyvar && path_ok,
            "job env: allowlist + RUN_ENV_ALLOW + language env + HOME=/sandbox, no secret");
  }
  rc_strv_free (jenv);
  rc_lang_table_free (&t);
  rc_config_free (&cfg);
  snprintf (path, sizeof path, "rm -rf '%s'", dir);
  if (system (path) != 0)
    tap_diag ("cleanup of %s failed", dir);
}

int
main (void)
{
  test_parse ();
  test_load ();
  return tap_done ();
}
