/* config.h - runcell's configuration: environment variables read once, by
 * one reader (rc_config_load), into one struct.  That covers the service's
 * own variables, the sessions API's and the per-language overrides
 * (RUN_*_<SLUG>); nothing reads the environment after it, and a reload
 * (SIGHUP) is a new rc_config_load.  A malformed value refuses to start
 * with a message naming the variable.  The variables and their defaults are
 * documented in docs/configuration.md and runcell.conf(5).
 */
#ifndef RUNCELL_COMMON_CONFIG_H
#define RUNCELL_COMMON_CONFIG_H

#include "common/error.h"
#include "common/job.h"

#include <stdbool.h>
#include <stdint.h>

/* The PATH every job starts with (a manifest's env may set another). */
#define RC_JOB_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

enum rc_session_quota
{
  RC_SESSION_QUOTA_TMPFS = 0, /* a tmpfs per session: size= and nr_inodes= */
  RC_SESSION_QUOTA_NONE,      /* a plain directory: limits not enforced (development) */
};

/* The sessions API (/sessions, /execute).  The variable names are those of
 * the sessions document (../shared/reference/001_*.txt) where it applies,
 * so an operator's existing settings keep their meaning; RUN_SESSIONS_DIR
 * and SESSION_QUOTA are runcell's own.  Its concurrency limit is
 * RUN_CONCURRENCY: sessions share the job slots. */
struct rc_session_config
{
  char *dir;                    /* RUN_SESSIONS_DIR (<RUN_STATE_DIR>/sessions) */
  enum rc_session_quota quota;  /* SESSION_QUOTA: tmpfs (default when root) | none */
  bool quota_set;               /* SESSION_QUOTA given explicitly */
  uint64_t max_sessions;        /* MAX_SESSIONS (64) */
  uint64_t max_session_size;    /* MAX_SESSION_SIZE (104857600 bytes) */
  uint64_t max_session_entries; /* MAX_SESSION_ENTRIES (32768 inodes) */
  uint64_t max_attachments;     /* MAX_RESULT_ATTACHMENTS (256) */
  uint64_t max_output;          /* MAX_OUTPUT_SIZE (10485760): truncated past it */
  uint64_t max_code;            /* MAX_CODE_LENGTH (65536) */
  uint64_t timeout_s;           /* EXECUTION_TIMEOUT (20 s of wall clock) */
  uint64_t memory;              /* MAX_MEMORY (256M): the job's memory cgroup limit */
  uint64_t pids;                /* CONTAINER_PIDS_LIMIT (128) */
  uint64_t nofile;              /* CONTAINER_ULIMIT_NOFILE (1024): the job's RLIMIT_NOFILE */
  uint64_t fsize;               /* CONTAINER_ULIMIT_FSIZE (268435456): the job's RLIMIT_FSIZE */
  uint64_t tmp_size;            /* CONTAINER_TMPFS_SIZE (64m): the job's /tmp */
  uint64_t inactivity_s;        /* SESSION_INACTIVITY_TIMEOUT_SECONDS (1800) */
  uint64_t sweep_s;             /* SESSION_SWEEP_INTERVAL_SECONDS (60) */
  uint64_t lock_wait_s;         /* SESSION_LOCK_WAIT_TIMEOUT_SECONDS (30) */
  uint64_t max_per_client;      /* MAX_SESSIONS_PER_CLIENT (MAX_SESSIONS / 4, at least 1) */
  uint64_t max_result_bytes;    /* MAX_RESULT_BYTES (MAX_SESSION_SIZE): apparent bytes of
                                 * the attachments of one answer */
};

/* POST /v1/judge (docs/api.md, "Judging"). */
struct rc_judge_config
{
  unsigned parallel;    /* RUN_JUDGE_PARALLEL (4): slots one submission's tests use at once,
                         * at most RUN_CONCURRENCY */
  unsigned max_tests;   /* RUN_JUDGE_MAX_TESTS (1000): tests per request */
  uint64_t input_max;   /* RUN_JUDGE_INPUT_MAX (64 MiB): its body (nginx follows it) */
  uint64_t wall_max_ms; /* RUN_JUDGE_WALL_MAX (10m): the whole judging of one request */
  uint64_t echo_bytes;  /* RUN_JUDGE_ECHO_KB (4): a test's stdout and stderr in the answer */
};

/* The operator's overrides of one language (RUN_TMP_SIZE_<SLUG>,
 * RUN_MEM_MAX_<SLUG>, RUN_OVERLAY_PATHS_<SLUG>), read for every directory
 * of RUN_LANGS_DIR; 0 / NULL: not set. */
struct rc_lang_override
{
  char *slug;
  uint64_t tmp_size;
  uint64_t memory_bytes;
  char **overlay_paths; /* NULL-terminated */
};

/* The API families, for the per-route queue (RUN_QUEUE_ROUTES). */
enum rc_route_family
{
  RC_FAMILY_OTHER = 0, /* /health, /metrics, ...: never a job */
  RC_FAMILY_RUN,       /* POST /run */
  RC_FAMILY_V1,        /* /v1/... */
  RC_FAMILY_SESSIONS,  /* /sessions..., POST /execute */
};
#define RC_FAMILY_BIT(f) (1u << (unsigned)(f))

/* One entry of an address allow-list (RUN_METRICS_ALLOW): an IPv4 or IPv6
 * network in the 16-byte form (IPv4 as ::ffff:a.b.c.d). */
struct rc_cidr
{
  unsigned char addr[16];
  unsigned prefix; /* 0..128, counted on the 16-byte form */
};
/* True when addr (text, as nginx's $remote_addr) is in one of the n
 * networks. */
bool rc_cidr_match (const struct rc_cidr *list, size_t n, const char *addr);
/* "127.0.0.0/8, ::1" (commas or spaces); an error names the variable. */
int rc_cidr_parse_list (const char *name, const char *text, struct rc_cidr **out, size_t *n,
                        rc_err_t *err);

struct rc_config
{
  unsigned concurrency;   /* RUN_CONCURRENCY (10): job slots */
  unsigned spare_workers; /* RUN_SPARE_WORKERS (2): workers beyond the slots, for /health and 429 */
  uint64_t input_max;     /* RUN_INPUT_MAX (1 MiB) */
  uint64_t output_max;    /* RUN_OUTPUT_MAX (1 MiB per stream, 0 = off) */
  bool debug;             /* DEBUG (false; empty value = true) */
  unsigned uid_base;      /* RUN_UID_BASE (10001) */
  char **env_allow;       /* RUN_ENV_ALLOW: extra keys, NULL-terminated */
  char **job_env;         /* every job's environment before its language's: PATH,
                           * LANG, LC_ALL, TZ, the RUN_ENV_ALLOW values at start */
  uint64_t memory_max;    /* RUN_MEMORY_MAX (0): RLIMIT_AS bytes */
  uint64_t sandbox_tmp_size;   /* RUN_SANDBOX_TMP_SIZE (0 = per-language default) */
  uint64_t sandbox_mem_max;    /* RUN_SANDBOX_MEM_MAX (0 = per-language default): every
                                * language's defaultLimits.memoryMb */
  uint64_t memory_total_max;   /* RUN_MEMORY_TOTAL_MAX (0 = auto): cap of all slots together */
  bool allow_shutdown;         /* ALLOW_SHUTDOWN (false) */
  unsigned port;               /* PORT (4040): the nginx listen port, used by tooling */
  uint64_t timeout_default_ms; /* 30 s */
  uint64_t timeout_max_ms;     /* RUN_TIMEOUT_MAX (10m): larger /run timeouts are 400 */
  char *langs_dir;             /* RUN_LANGS_DIR (compiled-in pkgdatadir/langs) */
  char *listen;                /* RUN_LISTEN: unix:/path or host:port; unset = inherited fd 0 */
  char *state_dir;             /* RUN_STATE_DIR (/run/runcell/state): root-only, 0700 */
  char *cgroup_name;           /* RUN_CGROUP_NAME ("runcell"): subtree below our own cgroup */
  bool sandbox;                /* RUN_SANDBOX: "auto" (root => on), "on" (must), "off" (unsafe) */
  bool sandbox_required;       /* RUN_SANDBOX=on */
  uint64_t pids_max;           /* RUN_PIDS_MAX (512): cgroup pids.max per slot */
  char *languages;             /* RUN_LANGUAGES: comma list to load (NULL = all) */
  /* Operator ceilings for /v1/execute limits (a request above one is a 400
   * naming the field): RUN_MAX_WALL_MS, RUN_MAX_IDLE_MS, RUN_MAX_CPU_MS,
   * RUN_MAX_MEMORY_MB, RUN_MAX_PIDS, RUN_MAX_OUTPUT_KB. */
  struct rc_limits limit_max;
  unsigned max_files; /* RUN_MAX_FILES (64): files per /v1/execute request */
  unsigned max_processes;  /* RUN_MAX_PROCESSES (RUN_CONCURRENCY): /v1/processes alive at once */
  uint64_t process_keep_s; /* RUN_PROCESS_KEEP_S (60): an exited process stays readable */
  struct rc_session_config sessions;
  struct rc_judge_config judge;
  /* The front (docs/design.md, "A bounded queue, a growing pool"). */
  unsigned queue_max;            /* RUN_QUEUE_MAX (4 x RUN_CONCURRENCY): requests waiting */
  uint64_t queue_wait_ms;        /* RUN_QUEUE_WAIT_MS (30000): longest wait in the queue */
  unsigned queue_routes;         /* RUN_QUEUE_ROUTES (v1,sessions): RC_FAMILY_BIT()s */
  unsigned workers_max;          /* RUN_WORKERS_MAX (slots + queue + spare + 32) */
  uint64_t workers_memory_max;   /* RUN_WORKERS_MEMORY_MAX (1g, 0: none): the workers' cgroup */
  struct rc_cidr *metrics_allow; /* RUN_METRICS_ALLOW (127.0.0.0/8,::1) */
  size_t n_metrics_allow;
  char *config_file;       /* RUN_CONFIG_FILE: NAME=value lines (an EnvironmentFile=) */
  char **config_file_vars; /* its lines as read at start: what a reload compares with */
  struct rc_lang_override *lang_overrides;
  size_t n_lang_overrides;
};

/* The operator's overrides for a slug, or NULL. */
const struct rc_lang_override *rc_config_lang_override (const struct rc_config *cfg,
                                                        const char *slug);

/* Looks a variable up; returns NULL when unset.  Tests pass their own. */
typedef const char *(*rc_getenv_fn) (const char *name, void *userdata);

int rc_config_load (struct rc_config *cfg, rc_getenv_fn get, void *userdata, rc_err_t *err);
/* The variables a reload cannot change (the slots, their uids and
 * cgroups, the socket, the state): each one that differs between old and
 * fresh is copied back from old into fresh and named in *changed (a
 * comma-separated list the caller frees; NULL when none differ). */
int rc_config_keep_restart_only (const struct rc_config *old, struct rc_config *fresh,
                                 char **changed);
/* The readers of one numeric variable: an unset or empty variable leaves *out as it
 * is; a value that does not parse or lies outside its range fails, naming
 * the variable.  rc_config_env_size takes a size with k/m/g units. */
int rc_config_env_u64 (rc_getenv_fn get, void *ud, const char *name, uint64_t min, uint64_t max,
                       uint64_t *out, rc_err_t *err);
int rc_config_env_size (rc_getenv_fn get, void *ud, const char *name, uint64_t min, uint64_t *out,
                        rc_err_t *err);
/* The front's variables (common/config_front.c): the queue, the worker
 * pool, the metrics allow-list; after the sessions' (MAX_SESSIONS is
 * their default's base). */
int rc_config_load_front (rc_getenv_fn get, void *ud, struct rc_config *cfg, rc_err_t *err);
void rc_config_free_front (struct rc_config *cfg);
/* rc_config_load with getenv(3), and RUN_CONFIG_FILE's variables where
 * the environment lacks one (the start). */
int rc_config_load_env (struct rc_config *cfg, rc_err_t *err);
/* A reload: the same, except that a variable whose line in RUN_CONFIG_FILE
 * changed since old was loaded takes the file's new value. */
int rc_config_reload_env (const struct rc_config *old, struct rc_config *cfg, rc_err_t *err);
void rc_config_free (struct rc_config *cfg);

/* Parsers shared with the API layer (common/parse.c); all return < 0 on
 * malformed input. */
/* "500ms", "2s", "1m", "1h" (and "1.5s"; lower case only) -> milliseconds;
 * 0 is rejected. */
int rc_parse_duration_ms (const char *s, uint64_t *out_ms);
/* "1048576", "64k", "256m", "1g", "1536m" (binary units) -> bytes. */
int rc_parse_size (const char *s, uint64_t *out_bytes);
/* Strict decimal unsigned integer. */
int rc_parse_u64 (const char *s, uint64_t *out);
/* "1", "true", "yes", "on" / "0", "false", "no", "off" (case-insensitive). */
int rc_parse_bool (const char *s, bool *out);

#endif
