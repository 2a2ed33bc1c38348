/* job.h - the job spec and job result: the only vocabulary shared by the API
 * layer (fcgi/) and the sandbox (sandbox/).
 *
 * The API layer turns a request into an rc_job_spec, the sandbox runs it and
 * fills an rc_job_result; neither side knows the other's details.  A job is
 * one workspace and one or more steps run in order inside it (a compile step
 * and a run step for /v1/execute, a single `sh -c <make test lines>` step for
 * /run).  Every step has its own limits and its own result.
 */
#ifndef RUNCELL_COMMON_JOB_H
#define RUNCELL_COMMON_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A growable byte buffer; data is always NUL-terminated for convenience but
 * may contain NUL bytes (len is authoritative). */
struct rc_buf
{
  char *data;
  size_t len;
  size_t cap;
};
int rc_buf_append (struct rc_buf *b, const void *data, size_t len);
int rc_buf_append_str (struct rc_buf *b, const char *s);
int rc_buf_printf (struct rc_buf *b, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
void rc_buf_reset (struct rc_buf *b); /* len = 0, keeps memory */
void rc_buf_free (struct rc_buf *b);

/* 0 in any field means "no limit" except where noted. */
struct rc_limits
{
  uint64_t wall_ms;       /* wall clock, monotonic */
  uint64_t idle_ms;       /* no output and no stdin consumed for this long */
  uint64_t cpu_ms;        /* cgroup CPU usage of the step */
  uint64_t memory_bytes;  /* cgroup memory limit, swap off */
  uint64_t pids;          /* cgroup pids.max */
  uint64_t output_bytes;  /* combined stdout+stderr budget: past it, drop + truncated */
  uint64_t stream_bytes;  /* per-stream cap: past it the step is killed, output_overflow */
  uint64_t rlimit_cpu_s;  /* RLIMIT_CPU seconds (0: derived from wall_ms) */
  uint64_t rlimit_as;     /* RLIMIT_AS bytes, 0 = unset (RUN_MEMORY_MAX) */
};

enum rc_limit_kind
{
  RC_LIMIT_NONE = 0,
  RC_LIMIT_WALL,
  RC_LIMIT_IDLE,
  RC_LIMIT_CPU,
  RC_LIMIT_MEMORY,
  RC_LIMIT_OUTPUT, /* a stream went over stream_bytes */
};
const char *rc_limit_name (enum rc_limit_kind kind); /* "wall", "idle", ... or NULL */

/* The limits a request, a manifest's defaultLimits and the operator's
 * ceilings name, one table for the three: the JSON key, the RUN_MAX_*
 * variable, where the value goes in rc_limits and the factor from the
 * named unit (ms, MB, KB) to the field's (ms, bytes). */
struct rc_limit_field
{
  const char *key;     /* "memoryMb" */
  const char *ceiling; /* "RUN_MAX_MEMORY_MB" */
  size_t off;          /* offsetof (struct rc_limits, memory_bytes) */
  uint64_t scale;      /* 1 MiB */
};
extern const struct rc_limit_field rc_limit_fields[];
extern const size_t rc_n_limit_fields;

/* A file the sandbox writes into the workspace before the first step.
 * path is relative to the workspace root, already validated by the API layer
 * (no "..", no leading '/', no NUL); missing parent directories are created. */
struct rc_file
{
  const char *path;
  const char *data;
  size_t len;
  mode_t mode; /* 0 means 0644 */
};

struct rc_step
{
  const char *const *argv; /* argv[0] is resolved through PATH inside the sandbox */
  const char *stdin_data;  /* NULL: stdin is /dev/null */
  size_t stdin_len;
  struct rc_limits limits;
  /* Stop the job after this step when it did not exit 0 (compile steps). */
  bool stop_on_failure;
};

enum rc_workspace_kind
{
  /* The language directory is the read-only lower layer of an overlay at
   * /sandbox; files and all writes go to a per-job tmpfs. */
  RC_WORKSPACE_TEMPLATE = 0,
  /* An existing host directory (a session) is bind-mounted read-write at
   * /sandbox; /tmp is still a per-job tmpfs. */
  RC_WORKSPACE_BIND,
};

struct rc_job_spec
{
  int slot; /* 0 .. concurrency-1, claimed by the worker */
  enum rc_workspace_kind workspace;
  const char *template_dir; /* RC_WORKSPACE_TEMPLATE: language directory */
  int bind_dirfd;           /* RC_WORKSPACE_BIND: O_PATH|O_DIRECTORY fd of the session dir */
  const struct rc_file *files;
  size_t n_files;
  const struct rc_step *steps;
  size_t n_steps;
  const char *const *envp;   /* final environment (allowlist already applied) */
  const char *const *overlay_paths; /* per-language copy-on-write cache dirs */
  size_t n_overlay_paths;
  uint64_t tmp_bytes;        /* size= of the per-job tmpfs (0: 64 MiB) */
  uint64_t tmp_inodes;       /* nr_inodes= of the per-job tmpfs (0: derived) */
};

struct rc_step_result
{
  bool ran;          /* false if an earlier step stopped the job */
  bool exited;       /* true: exit_code valid; false: killed by term_signal */
  int exit_code;
  int term_signal;
  enum rc_limit_kind limit; /* which limit ended the step, or NONE */
  bool timed_out;    /* wall or cpu */
  bool idle_timed_out;
  bool oom_killed;
  bool truncated;       /* output_bytes budget exceeded, bytes dropped */
  bool output_overflow; /* stream_bytes exceeded, step killed */
  struct rc_buf out;
  struct rc_buf err;
  uint64_t wall_ms;
  uint64_t cpu_ms;
  uint64_t memory_peak_kb;
};

struct rc_job_result
{
  struct rc_step_result *steps; /* n_steps entries, allocated by the sandbox */
  size_t n_steps;
  uint64_t setup_us; /* time from start to the first exec, for metrics/bench */
  bool prestarted;   /* ran in an init started ahead of the job (spawn.c) */
};
void rc_job_result_free (struct rc_job_result *res);

#endif
