/* config_test.c - the duration, size and configuration parsers. */
#include <config.h>

#include "common/config.h"
#include "t/unit/tap.h"

#include <stdlib.h>
#include <unistd.h>
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
    { "RUN_QUEUE_MAX", "5000" },
    { "RUN_QUEUE_ROUTES", "v1,admin" },
    { "RUN_WORKERS_MAX", "5" },
    { "RUN_WORKERS_MEMORY_MAX", "1m" },
    { "RUN_METRICS_ALLOW", "10.0.0.0/33" },
    { "RUN_METRICS_ALLOW", "localhost" },
    { "MAX_SESSIONS_PER_CLIENT", "65" },
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

/* The front's variables: the queue, the pool, the allow-list. */
static void
test_front (void)
{
  struct rc_config cfg;
  char msg[512];
  static const struct kv empty[] = { { NULL, NULL } };
  static const struct kv set[] = {
    { "RUN_CONCURRENCY", "2" },
    { "RUN_QUEUE_MAX", "6" },
    { "RUN_QUEUE_ROUTES", "run, sessions" },
    { "RUN_WORKERS_MAX", "10" },
    { "RUN_METRICS_ALLOW", "10.1.2.3/8 fd00::/8, 192.168.1.7" },
    { "MAX_SESSIONS", "10" },
    { NULL, NULL },
  };

  tap_ok (load (empty, &cfg, msg, sizeof msg) == 0, "front: defaults load");
  tap_ok (cfg.queue_max == 40 && cfg.queue_wait_ms == 30000
              && cfg.queue_routes
                     == (RC_FAMILY_BIT (RC_FAMILY_V1) | RC_FAMILY_BIT (RC_FAMILY_SESSIONS))
              && cfg.workers_max == 10 + 40 + 2 + 32 && cfg.sessions.max_per_client == 16
              && cfg.sessions.max_result_bytes == cfg.sessions.max_session_size,
          "front: a queue of 4 x the slots for /v1 and sessions, none for /run; the pool's "
          "ceiling above slots + queue + spares; 16 sessions per client");
  tap_ok (rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "127.0.0.1")
              && rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "127.9.8.7")
              && rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "::1")
              && !rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "10.0.0.1")
              && !rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "::2")
              && !rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "garbage"),
          "front: /metrics for loopback only by default");
  rc_config_free (&cfg);
  tap_ok (load (set, &cfg, msg, sizeof msg) == 0, "front: explicit values load (%s)", msg);
  tap_ok (cfg.queue_max == 6 && cfg.workers_max == 10
              && cfg.queue_routes
                     == (RC_FAMILY_BIT (RC_FAMILY_RUN) | RC_FAMILY_BIT (RC_FAMILY_SESSIONS))
              && cfg.sessions.max_per_client == 2,
          "front: explicit values are applied");
  tap_ok (rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "10.200.0.1")
              && rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "::ffff:10.0.0.9")
              && rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "fd12:3456::1")
              && rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "192.168.1.7")
              && !rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "192.168.1.8")
              && !rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "11.0.0.1")
              && !rc_cidr_match (cfg.metrics_allow, cfg.n_metrics_allow, "127.0.0.1"),
          "front: networks match by prefix, IPv4 also in its mapped IPv6 form; the list "
          "replaces the loopback default");
  rc_config_free (&cfg);
}

/* A reload keeps what only a restart can change, and names it. */
static void
test_restart_only (void)
{
  struct rc_config old, fresh;
  char msg[512], *changed = NULL;
  static const struct kv a[] = { { "RUN_CONCURRENCY", "2" }, { NULL, NULL } };
  static const struct kv b[] = { { "RUN_CONCURRENCY", "3" },
                                 { "RUN_CGROUP_NAME", "other" },
                                 { "RUN_QUEUE_WAIT_MS", "5" },
                                 { NULL, NULL } };
  if (load (a, &old, msg, sizeof msg) < 0 || load (b, &fresh, msg, sizeof msg) < 0)
    {
      tap_ok (false, "reload: load (%s)", msg);
      return;
    }
  tap_ok (rc_config_keep_restart_only (&old, &fresh, &changed) == 0 && fresh.concurrency == 2
              && strcmp (fresh.cgroup_name, "runcell") == 0 && fresh.queue_wait_ms == 5 && changed
              && strstr (changed, "RUN_CONCURRENCY") && strstr (changed, "RUN_CGROUP_NAME")
              && !strstr (changed, "RUN_QUEUE_WAIT_MS"),
          "reload: RUN_CONCURRENCY and RUN_CGROUP_NAME keep their value and are named (%s); "
          "RUN_QUEUE_WAIT_MS changes",
          changed ? changed : "none");
  free (changed);
  rc_config_free (&old);
  rc_config_free (&fresh);
}

/* RUN_CONFIG_FILE: the start reads the environment only; a reload takes
 * the lines of the file that changed since, and only those. */
static void
write_file (const char *path, const char *text)
{
  FILE *f = fopen (path, "w");
  if (f)
    {
      fputs (text, f);
      fclose (f);
    }
}

static void
test_config_file (void)
{
  static const char path[] = "config_test.env";
  struct rc_config start, again, third;
  rc_err_t err = NULL;
  int r;

  write_file (path, "# the unit's EnvironmentFile\nRUN_QUEUE_WAIT_MS=100\n"
                    "RUN_LISTEN=unix:/run/x.sock\n");
  setenv ("RUN_CONFIG_FILE", path, 1);
  setenv ("RUN_QUEUE_WAIT_MS", "100", 1);
  unsetenv ("RUN_LISTEN"); /* as runcell-socket.service's UnsetEnvironment= */
  tap_ok (rc_config_load_env (&start, &err) == 0 && start.queue_wait_ms == 100
              && start.listen == NULL,
          "config file: the start takes the environment (RUN_LISTEN unset stays unset)");
  write_file (path, "RUN_QUEUE_WAIT_MS='250'\nRUN_LISTEN=unix:/run/x.sock\n");
  r = rc_config_reload_env (&start, &again, &err);
  tap_ok (r == 0 && again.queue_wait_ms == 250 && again.listen == NULL,
          "config file: a reload takes the changed line, not the unchanged one (%llu)",
          (unsigned long long)again.queue_wait_ms);
  write_file (path, "RUN_LISTEN=unix:/run/x.sock\n");
  tap_ok (rc_config_reload_env (&again, &third, &err) == 0 && third.queue_wait_ms == 30000,
          "config file: a removed line means the default");
  rc_config_free (&third);
  write_file (path, "not a variable line\n");
  r = rc_config_reload_env (&again, &third, &err);
  tap_ok (r < 0 && err && strstr (rc_error_text (err), "config_test.env:1"),
          "config file: a malformed line fails the reload, naming file and line (%s)",
          err ? rc_error_text (err) : "accepted");
  rc_error_free (&err);
  rc_config_free (&start);
  rc_config_free (&again);
  unsetenv ("RUN_CONFIG_FILE");
  unsetenv ("RUN_QUEUE_WAIT_MS");
  unlink (path);
}

int
main (void)
{
  test_durations ();
  test_sizes ();
  test_config ();
  test_front ();
  test_restart_only ();
  test_config_file ();
  return tap_done ();
}
