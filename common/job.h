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
  uint64_t wall_ms;      /* wall clock, monotonic */
  uint64_t idle_ms;      /* no output and no stdin consumed for this long */
  uint64_t cpu_ms;       /* cgroup CPU usage of the step */
  uint64_t memory_bytes; /* cgroup memory limit, swap off */
  uint64_t pids;         /* cgroup pids.max */
  uint64_t output_bytes; /* combined stdout+stderr budget: past it, drop + truncated */
  uint64_t
      stream_bytes; /* per-stream cap: past it the step is killed, the step is killed: OUTPUT */
  uint64_t rlimit_cpu_s; /* RLIMIT_CPU seconds (0: none); set by rc_job_build only */
  uint64_t rlimit_as;    /* RLIMIT_AS bytes, 0 = unset (RUN_MEMORY_MAX) */
  uint64_t nofile;       /* RLIMIT_NOFILE: open files (0: the sandbox's 256) */
  uint64_t fsize_bytes;  /* RLIMIT_FSIZE: largest file a write may make (0: none) */
};

/* In a request's asked limits (rc_limits_resolve): "no limit", where 0
 * means "not asked". */
#define RC_LIMIT_NONE UINT64_MAX

/* How a step ended: the one verdict, decided by the sandbox in one place
 * (sandbox/process/supervise.c, rc_step_decide) and only rendered by the API
 * layer.  A limit that fired wins over the exit status it caused (a wall
 * kill is WALL, not SIGNALLED). */
enum rc_outcome
{
  RC_OUTCOME_NONE = 0,  /* the step did not run (an earlier step stopped the job) */
  RC_OUTCOME_EXITED,    /* exit_code is the program's */
  RC_OUTCOME_SIGNALLED, /* term_signal killed it, no limit of ours */
  RC_OUTCOME_WALL,      /* wall_ms */
  RC_OUTCOME_IDLE,      /* idle_ms */
  RC_OUTCOME_CPU,       /* cpu_ms, or the RLIMIT_CPU backstop (SIGXCPU) */
  RC_OUTCOME_MEMORY,    /* the cgroup's OOM killer, or thrashing at the limit */
  RC_OUTCOME_OUTPUT,    /* a stream went over stream_bytes */
  RC_OUTCOME_SANDBOX,   /* the sandbox failed; the job has no result */
};
#define RC_OUTCOME_COUNT (RC_OUTCOME_SANDBOX + 1)
/* "exited", "signalled", "wall", "idle", "cpu", "memory", "output",
 * "sandbox_failure"; NULL for NONE. */
const char *rc_outcome_name (enum rc_outcome o);
/* The limit that ended the step ("wall", "idle", "cpu", "memory",
 * "output"), or NULL when none did. */
const char *rc_outcome_limit (enum rc_outcome o);

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
  /* Its stdin, stdout and stderr are a terminal of its own (a private
   * devpts instance at the job's /dev/pts, its controlling tty); its
   * supervisor holds the master.  Set by rc_run_start (rc_run_io.tty). */
  bool tty;
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

/* What a job's /tmp is.  The judge compiles once and runs every test on
 * the result: the compile job's /tmp is the build directory itself, and
 * each test's /tmp an overlay over it, read-only underneath, so a test
 * sees the build and none of another test's writes. */
enum rc_tmp_kind
{
  RC_TMP_FRESH = 0, /* a tmpfs of the job's own (tmp_bytes) */
  RC_TMP_BIND,      /* tmp_dirfd, read-write (a compile's build directory) */
  RC_TMP_OVERLAY,   /* tmp_dirfd as the read-only lower of an overlay whose
                     * upper is the job's own tmpfs */
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
  const char *const *envp; /* final environment (allowlist already applied) */
  /* The language's slug: its cache directories get a copy-on-write
   * overlay per job (NULL: none).  Its host paths and directory are in
   * every slot's root (sandbox/root/root.c). */
  const char *lang;
  uint64_t tmp_bytes;  /* size= of the per-job tmpfs (0: 64 MiB) */
  uint64_t tmp_inodes; /* nr_inodes= of the per-job tmpfs (0: derived) */
  enum rc_tmp_kind tmp;
  int tmp_dirfd; /* RC_TMP_BIND, RC_TMP_OVERLAY: O_PATH|O_DIRECTORY fd of the directory */
};

struct rc_step_result
{
  bool ran;                /* false if an earlier step stopped the job */
  enum rc_outcome outcome; /* the verdict */
  /* The raw wait status, whatever the verdict (a wall kill is SIGKILL). */
  bool exited; /* true: exit_code valid; false: killed by term_signal */
  int exit_code;
  int term_signal;
  bool truncated; /* output_bytes budget exceeded, bytes dropped (not an ending) */
  struct rc_buf out;
  struct rc_buf err;
  uint64_t wall_ms;
  uint64_t cpu_ms;
  uint64_t memory_peak_kb;
  /* MEMORY came from the thrash watch (sandbox/process/thrash.c), not an OOM kill:
   * the rate at which it re-read its file pages, bytes per second. */
  bool thrashed;
  uint64_t thrash_rate;
};

struct rc_job_result
{
  struct rc_step_result *steps; /* n_steps entries, allocated by the sandbox */
  size_t n_steps;
  uint64_t setup_us; /* time from start to the first exec, for metrics/bench */
};
void rc_job_result_free (struct rc_job_result *res);
/* The line a program's stderr gets when a limit of the sandbox ended it
 * ("runner: killed: memory limit (64m) exceeded", and why when it
 * thrashed), the same from every front end; appended to r->err. */
void rc_step_result_explain (struct rc_step_result *r, const struct rc_limits *limits);
/* How long the thrash watch lets a step re-read its pages at its limit
 * before it ends it (sandbox/process/thrash.c). */
#define RC_THRASH_SPAN_MS 2000

#endif
