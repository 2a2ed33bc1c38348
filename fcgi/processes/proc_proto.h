/* proc_proto.h - how a worker talks to a process's supervisor.
 *
 * A supervisor listens on a unix stream socket in the root-only state
 * directory, <RUN_STATE_DIR>/proc/<the id's last 32 digits> (its own 128
 * random bits: a session's process has its session's id in front, which
 * would not fit a socket address below most directories); whichever worker
 * gets a request for the process connects there, and the supervisor
 * checks the whole id the request names.  One connection carries one
 * request:
 *
 *   worker -> supervisor   struct rc_proc_msg, then msg.len bytes (stdin)
 *   supervisor -> worker   struct rc_proc_reply, then reply.len bytes: the
 *                          status JSON (200), or the error's message
 *                          (4xx, written by the worker as {"error": ...});
 *                          SUBSCRIBE: 200, then the event stream itself,
 *                          already in text/event-stream form, until the
 *                          process's last event (then the close)
 *
 * The supervisor decides every status, so two workers never disagree on
 * the state of a process.  A socket that does not exist or refuses is a
 * process that does not exist (404).
 */
#ifndef RUNCELL_FCGI_PROCESSES_PROC_PROTO_H
#define RUNCELL_FCGI_PROCESSES_PROC_PROTO_H

#include "common/config.h"
#include "common/error.h"
#include "common/job.h"
#include "fcgi/processes/proc_table.h"

#include <stdbool.h>
#include <stdint.h>

enum rc_proc_op
{
  RC_PROC_STATUS = 1, /* GET /v1/processes/{id} */
  RC_PROC_SUBSCRIBE,  /* GET .../events: after = Last-Event-ID */
  RC_PROC_STDIN,      /* POST .../stdin: the bytes; flags RC_PROC_EOF */
  RC_PROC_SIGNAL,     /* POST .../signal: value */
  RC_PROC_RESIZE,     /* POST .../resize: rows, cols */
  RC_PROC_DELETE,     /* DELETE /v1/processes/{id} */
};
#define RC_PROC_EOF 1u

struct rc_proc_msg
{
  uint32_t op;
  uint32_t flags;
  int32_t value;
  uint32_t rows, cols;
  uint32_t len; /* bytes that follow (stdin) */
  uint64_t after;
  char id[RC_PROC_ID_MAX + 1]; /* the process asked for */
};

struct rc_proc_reply
{
  int32_t status; /* HTTP */
  uint32_t len;
};

/* A process id: 32 lower-case hex digits (128 random bits), or 64 for a
 * process of a session (its session's id, then its own 128 bits). */
bool rc_proc_id_valid (const char *id);
/* <RUN_STATE_DIR>/proc, and a process's socket in it; -1 when it does
 * not fit a socket address (RUN_STATE_DIR longer than
 * RC_PROC_STATE_DIR_MAX, which rc_processes_setup refuses). */
#define RC_PROC_STATE_DIR_MAX 68
int rc_proc_dir (const struct rc_config *cfg, char *buf, size_t size);
int rc_proc_sock_path (const struct rc_config *cfg, const char *id, char *buf, size_t size);

/* Worker side: connects to the process's supervisor (404 "process not
 * found" in err when there is none), sends m and data, and reads the
 * reply head and, except for SUBSCRIBE, its body (at most 1 MiB) within
 * timeout_ms.  Returns the connected fd (the caller closes it), or -1. */
int rc_proc_call (const struct rc_config *cfg, const char *id, const struct rc_proc_msg *m,
                  const void *data, struct rc_proc_reply *rep, struct rc_buf *body, int timeout_ms,
                  rc_err_t *err);

#endif
