/* config_test.c - the duration, size and configuration parsers. */
#include <config.h>

#include "common/config.h"
#include "t/unit/tap.h"

#include <string.h>

struct kv
{
  const char *k, *v;
};

static const char *
lookup (const char *name, void *ud)
{
  for (const struct kv *p = ud; p->k; p++)
    if (strcmp (p->k, name) == 0)
      return p->v;
  return NULL;
}

static int
load (const struct kv *env, struct rc_config *cfg, char *msg, size_t size)
{
  rc_err_t err = NULL;
  int r = rc_config_load (cfg, lookup, (void *)env, &err);
  if (r < 0)
    {
      snprintf (msg, size, "%s", rc_error_text (err));
      rc_error_free (&err);
    }
  return r;
}

static void
test_durations (void)
{
  static const struct
  {
    const char *in;
    long long ms; /* -1: rejected */
  } cases[] = {
    { "500ms", 500 }, { "2s", 2000 },      { "1m", 60000 },
    { "30s", 30000 }, { "1.5s", 1500 },    { "20S", -1 },
    { "0s", -1 },     { "", -1 },          { "s", -1 },
    { "10", -1 },     { "10h", 36000000 }, { "-1s", -1 },
    { "1 s", -1 },    { "1e3ms", -1 },     { "99999999999999999999s", -1 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      uint64_t ms = 0;
      int r = rc_parse_duration_ms (cases[i].in, &ms);
      if (cases[i].ms < 0)
        tap_ok (r < 0, "duration '%s' is rejected", cases[i].in);
      else
        tap_ok (r == 0 && ms == (uint64_t)cases[i].ms, "duration '%s' = %lld ms (got %llu)",
                cases[i].in, cases[i].ms, (unsigned long long)ms);
    }
}

static void
test_sizes (void)
{
  uint64_t b = 0;
  tap_ok (rc_parse_size ("1048576", &b) == 0 && b == 1048576, "size in bytes");
  tap_ok (rc_parse_size ("64k", &b) == 0 && b == 65536, "size 64k");
  tap_ok (rc_parse_size ("1536m", &b) == 0 && b == 1536ULL << 20, "size 1536m");
  tap_ok (rc_parse_size ("2G", &b) == 0 && b == 2ULL << 30, "size 2G");
  tap_ok (rc_parse_size ("12x", &b) < 0, "size with unknown unit is rejected");
  tap_ok (rc_parse_size ("-5", &b) < 0, "negative size is rejected");
}

static void
test_config (void)
{
  struct rc_config cfg;
  char msg[512];
  static const struct kv empty[] = { { NULL, NULL } };
  static const struct kv good[] = {
    { "RUN_CONCURRENCY", "4" },
    { "RUN_INPUT_MAX", "2m" },
    { "RUN_OUTPUT_MAX", "0" },
    { "DEBUG", "" },
    { "RUN_UID_BASE", "20000" },
    { "RUN_ENV_ALLOW", "FOO, BAR_2" },
    { "ALLOW_SHUTDOWN", "true" },
    { "RUN_MEMORY_MAX", "1g" },
    { "PORT", "8080" },
    { "RUN_SANDBOX", "off" },
    { "RUN_PROCESS_KEEP_S", "0" },
    { NULL, NULL },
  };

  tap_ok (load (empty, &cfg, msg, sizeof msg) == 0, "defaults load");
  tap_ok (cfg.judge.parallel == 4 && cfg.judge.max_tests == 1000
              && cfg.judge.input_max == 64ULL << 20 && cfg.judge.wall_max_ms == 600000
              && cfg.judge.echo_bytes == 4096,
          "the judge's defaults");
  rc_config_free (&cfg);
  {
    static const struct kv judge[]
        = { { "RUN_JUDGE_PARALLEL", "2" },   { "RUN_JUDGE_MAX_TESTS", "50" },
            { "RUN_JUDGE_INPUT_MAX", "8m" }, { "RUN_JUDGE_WALL_MAX", "90s" },
            { "RUN_JUDGE_ECHO_KB", "0" },    { NULL, NULL } };
    tap_ok (load (judge, &cfg, msg, sizeof msg) == 0 && cfg.judge.parallel == 2
                && cfg.judge.max_tests == 50 && cfg.judge.input_max == 8ULL << 20
                && cfg.judge.wall_max_ms == 90000 && cfg.judge.echo_bytes == 0,
            "RUN_JUDGE_* are read (%s)", msg);
  }
  rc_config_free (&cfg);
  tap_ok (load (empty, &cfg, msg, sizeof msg) == 0, "defaults load again");
  tap_ok (cfg.concurrency == 10 && cfg.input_max == 1048576 && cfg.output_max == 1048576
              && cfg.uid_base == 10001 && !cfg.allow_shutdown && !cfg.debug && cfg.port == 4040
              && cfg.timeout_default_ms == 30000,
          "defaults match the reference");
  tap_ok (cfg.max_processes == cfg.concurrency && cfg.process_keep_s == 60,
          "processes: as many as slots, kept 60 s after exit");
  rc_config_free (&cfg);

  tap_ok (load (good, &cfg, msg, sizeof msg) == 0, "explicit values load");
  tap_ok (cfg.concurrency == 4 && cfg.input_max == 2u << 20 && cfg.output_max == 0 && cfg.debug
              && cfg.uid_base == 20000 && cfg.allow_shutdown && cfg.memory_max == 1ULL << 30
              && cfg.port == 8080 && !cfg.sandbox,
          "explicit values are applied");
  tap_ok (cfg.env_allow && cfg.env_allow[0] && strcmp (cfg.env_allow[0], "FOO") == 0
              && cfg.env_allow[1] && strcmp (cfg.env_allow[1], "BAR_2") == 0 && !cfg.env_allow[2],
          "RUN_ENV_ALLOW is split on commas");
  tap_ok (cfg.max_processes == 4 && cfg.process_keep_s == 0,
          "RUN_MAX_PROCESSES follows RUN_CONCURRENCY; RUN_PROCESS_KEEP_S 0 is allowed");
  rc_config_free (&cfg);

  static const struct
  {
    const char *var, *value;
  } bad[] = {
    { "RUN_CONCURRENCY", "ten" },
    { "RUN_CONCURRENCY", "0" },
    { "RUN_INPUT_MAX", "lots" },
    { "RUN_OUTPUT_MAX", "1q" },
    { "DEBUG", "maybe" },
    { "RUN_UID_BASE", "0" },
    { "RUN_ENV_ALLOW", "A=B" },
    { "ALLOW_SHUTDOWN", "sure" },
    { "RUN_MEMORY_MAX", "x" },
    { "PORT", "70000" },
    { "RUN_SANDBOX", "sometimes" },
    { "RUN_SANDBOX_TMP_SIZE", "big" },
    { "RUN_SANDBOX_MEM_MAX", "-1" },
    { "RUN_CGROUP_NAME", "a/b" },
    { "RUN_TIMEOUT_MAX", "forever" },
    { "RUN_MAX_PROCESSES", "0" },
    { "RUN_PROCESS_KEEP_S", "90000" },
    { "RUN_JUDGE_PARALLEL", "0" },
    { "RUN_JUDGE_MAX_TESTS", "many" },
    { "RUN_JUDGE_INPUT_MAX", "2g" },
    { "RUN_JUDGE_WALL_MAX", "10" },
    { "RUN_JUDGE_ECHO_KB", "-4" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      struct kv env[2] = { { bad[i].var, bad[i].value }, { NULL, NULL } };
      int r = load (env, &cfg, msg, sizeof msg);
      tap_ok (r < 0 && strstr (msg, bad[i].var) != NULL, "%s=%s refuses to start naming it (%s)",
              bad[i].var, bad[i].value, r < 0 ? msg : "accepted");
      if (r == 0)
        rc_config_free (&cfg);
    }
}

int
main (void)
{
  test_durations ();
  test_sizes ();
  test_config ();
  return tap_done ();
}
