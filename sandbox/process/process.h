/* process.h - the job's processes: the child's privilege drop and exec
 * (child.c), the supervision of a step with its clocks (supervise.c,
 * thrash.c), and a job run on a slot seen from the process that
 * supervises it (run.c).  Never included outside sandbox/.
 */
#ifndef RUNCELL_SANDBOX_PROCESS_PROCESS_H
#define RUNCELL_SANDBOX_PROCESS_PROCESS_H

#include "common/clock.h"
#include "common/error.h"
#include "common/job.h"
#include "sandbox/cgroup/cgroup.h"
#include "sandbox/seccomp/seccomp_filter.h"

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- child.c: between the clone and the exec ---- */

/* What the first process of a step needs, on its parent's memory (the
 * init clones it with CLONE_VM | CLONE_VFORK). */
struct rc_child_ctx
{
  const struct rc_step *step;
  const char *const *envp;
  int in, out, err; /* the step's stdio (in < 0: /dev/null) */
  bool ctty;        /* in is a terminal's slave: it becomes the controlling tty */
  int errpipe;      /* write end: "sandbox: <step> errno=N" on failure */
  uid_t uid;
  gid_t gid;
  unsigned cap_last;
  int cgroup_join;   /* v1: `tasks` of the job's memory cgroup to join first, -1 */
  bool new_cgroupns; /* root its cgroup namespace at its own cgroup */
  const struct rc_seccomp_program *seccomp;
};
/* Never returns: execs the step, or reports on errpipe and _exits. */
int rc_child_main (void *ctx);

/* Helpers (async-signal-safe). */
int rc_child_set_rlimits (const struct rc_limits *limits);
/* Before the uid change (needs CAP_SETPCAP): checks the bounding set is
 * empty, empties the ambient set and locks the securebits. */
int rc_child_lock_caps (unsigned last_cap);
/* After the uid change: empties the effective, permitted and inheritable
 * sets and checks they are empty. */
int rc_child_clear_caps (void);
/* Moves fds to 0, 1, 2 even if they collide; in < 0 means /dev/null. */
int rc_child_setup_stdio (int in, int out, int errfd);
/* Writes "sandbox: <step> errno=N" to fd and _exit(127)s. */
void rc_child_fail (int fd, const char *step, int errnum) __attribute__ ((noreturn));
void rc_child_exec_failed (const char *argv0, int errnum) __attribute__ ((noreturn));
/* execvp on the job's own PATH (from envp), a shell for a script without
 * #!, and rc_child_exec_failed when nothing runs. */
void rc_child_exec (const char *const *argv, const char *const *envp) __attribute__ ((noreturn));

/* ---- thrash.c ---- */

/* A step stuck at its memory limit re-reading its own pages (the theory
 * is in thrash.c).  Fed one sample every RC_THRASH_POLL_MS; true once it
 * has thrashed for RC_THRASH_SPAN_MS. */
#define RC_THRASH_POLL_MS 500 /* RC_THRASH_SPAN_MS: common/job.h */
struct rc_thrash
{
  bool primed;
  uint64_t at_us;
  uint64_t refaults;
  uint64_t hot_since_us;
  uint64_t rate; /* refaulted bytes per second, last hot interval */
};
void rc_thrash_reset (struct rc_thrash *t);
bool rc_thrash_feed (struct rc_thrash *t, uint64_t now_us, const struct rc_memory_sample *s);

/* ---- supervise.c: one step, seen from its supervisor ---- */

/* Where a step's output goes besides its result (streaming). */
typedef void (*rc_output_fn) (void *ud, int stream, const char *data, size_t len);

struct rc_watch
{
  const struct rc_limits *limits;
  const char *stdin_data; /* written whole, then stdin is closed */
  size_t stdin_len;
  bool stdin_live;        /* stdin is fed by rc_watch_stdin while it runs */
  int stdin_fd;           /* worker's write end, or -1 */
  int out_fd, err_fd;     /* worker's read ends, or -1 */
  int exit_fd;            /* readable when read_exit has news; -1: poll every 10 ms */
  /* 1: the step's main process ended (*wstatus set), 0: not yet, < 0:
   * sandbox failure (err set). */
  int (*read_exit) (void *ctx, int *wstatus, rc_err_t *err);
  int (*cpu_us) (void *ctx, uint64_t *usage_us);
  void (*kill) (void *ctx);
  int (*oom_kills) (void *ctx, uint64_t *n, rc_err_t *err); /* NULL: none counted */
  int (*memory_sample) (void *ctx, struct rc_memory_sample *s); /* NULL: none */
  void *ctx;
  rc_output_fn on_output; /* NULL: collected only */
  void *output_ud;
  struct rc_step_result *res;
  uint64_t *output_used; /* the combined output budget, shared by a job's steps */

  /* Its state, private to supervise.c. */
  bool killed;
  enum rc_outcome fired;
  bool exited, done;
  int wstatus;
  uint64_t start_us, last_activity_us, exited_at_us, killed_at_us, next_cpu_us, next_mem_us;
  uint64_t out_total, err_total;
  size_t stdin_off;
  struct rc_buf stdin_live_buf; /* bytes given to rc_watch_stdin, not yet written */
  bool stdin_eof;               /* close stdin once the buffer is written */
  struct rc_thrash thrash;
  int slots[4];                 /* which pollfd is which: in, out, err, exit */
};

/* The step's clocks start now. */
void rc_watch_begin (struct rc_watch *w);
/* The fds to poll (at most 4) and the longest sleep before the next
 * clock check; the caller may poll its own fds beside them. */
size_t rc_watch_pollfds (struct rc_watch *w, struct pollfd *pfd, int *timeout_ms);
/* After the poll: handles what is ready and the clocks.  Returns 1 when
 * the step is over (its result filled), 0 to go on, -1 on a sandbox
 * failure (err set).  pfd/n: the same array rc_watch_pollfds filled. */
int rc_watch_handle (struct rc_watch *w, const struct pollfd *pfd, size_t n, rc_err_t *err);
/* The whole step: begin, poll and handle until it is over. */
int rc_watch_run (struct rc_watch *w, rc_err_t *err);
/* Interactive stdin: bytes to write to the step (kept until the pipe takes
 * them, at most max_buffered), eof to close it after them.  The idle clock
 * counts them as activity.  -1 with ENOSPC when the buffer is full. */
int rc_watch_stdin (struct rc_watch *w, const void *data, size_t len, bool eof,
                    size_t max_buffered);
/* Kills the step now (a client gone, DELETE), reported as `why`. */
void rc_watch_stop (struct rc_watch *w, enum rc_outcome why);
/* Closes whatever is left (after a failure). */
void rc_watch_end (struct rc_watch *w);

/* Fills exited/exit_code/term_signal from a wait status. */
void rc_step_set_status (struct rc_step_result *r, int wstatus);
/* The verdict, in one place: the first limit that fired, else an OOM
 * kill, else SIGXCPU (the RLIMIT_CPU backstop), else the wait status. */
enum rc_outcome rc_step_decide (const struct rc_step_result *r, enum rc_outcome fired,
                                uint64_t oom_kills);

#endif
