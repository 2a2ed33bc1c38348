/* supervisor.h - a process's supervisor, inside fcgi/processes/ only.
 *
 * The worker that takes POST /v1/processes claims a slot, builds the job
 * and forks (twice: the supervisor is re-parented to the master, which is
 * the service's subreaper, reaps it and ends whatever it held when it
 * dies).  The supervisor owns the run (rc_run_start .. rc_run_finish) and
 * everything a client can ask of it, in one poll loop, no threads:
 *
 *   supervisor.c   its start (fork, claim and table entry transferred to
 *                  it, the run started, the worker told), the job's events
 *                  into the log, the end of the run (result, exit event,
 *                  claim ended, kept for RUN_PROCESS_KEEP_S), the loop
 *   sup_clients.c  its socket (proc_proto.h): requests from workers, the
 *                  numbered event log and the subscribers it is written to
 */
#ifndef RUNCELL_FCGI_PROCESSES_SUPERVISOR_H
#define RUNCELL_FCGI_PROCESSES_SUPERVISOR_H

#include "fcgi/app.h"
#include "fcgi/execute/execute_request.h"
#include "fcgi/processes/proc_proto.h"
#include "fcgi/processes/proc_table.h"
#include "fcgi/sessions/sessions.h"
#include "fcgi/sse.h"

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

/* What the worker hands its supervisor (on the memory they share at the
 * fork). */
struct rc_sup_args
{
  struct rc_app *app;
  struct rc_execute_job *ej;
  const char *lang;
  char id[RC_PROC_ID_MAX + 1];
  int entry; /* proc_table.h */
  struct rc_slot_claim claim;
  bool tty;
  bool base64;                /* "encoding": "base64": output events and result in base64 */
  struct rc_session *session; /* a session's process: locked, or NULL */
};

/* Forks the supervisor and waits for its word: 0 once the program is
 * compiling or running, or < 0 with res answered (500).  The claim and
 * the table entry are the supervisor's from then on, in either case. */
int rc_sup_spawn (const struct rc_sup_args *a, struct rc_http_response *res);

#define RC_SUP_CLIENTS 64

struct rc_sup_client
{
  int fd;            /* -1: unused */
  struct rc_buf in;  /* the request read so far */
  struct rc_buf out; /* a reply not yet written */
  size_t out_off;
  bool subscribed; /* writes the event log from pos on */
  size_t pos;
};

enum rc_sup_state
{
  RC_SUP_COMPILING = 0,
  RC_SUP_RUNNING,
  RC_SUP_EXITED,
};

struct rc_sup
{
  const struct rc_sup_args *a;
  struct rc_run *run; /* NULL once over */
  enum rc_sup_state state;
  bool failed;      /* the sandbox failed: no result */
  bool run_started; /* the run step's STARTED came: stdin goes through */
  struct rc_job_result result;
  struct rc_buf status;  /* once exited: the result JSON with "state" */
  struct rc_buf pending; /* stdin given before the run step started */
  bool pending_eof;
  struct rc_sse_text text;
  struct rc_buf data;
  /* The numbered event log: every event in text/event-stream form, event
   * i (1-based) ending at ends[i - 1]; bounded by the job's output budget
   * (the sandbox drops output past it). */
  struct rc_buf log;
  size_t *ends;
  uint64_t n_events, cap_events;
  int listen;
  struct rc_sup_client clients[RC_SUP_CLIENTS];
  bool leave; /* DELETE after exit, SIGTERM: go once the run is over */
};

/* sup_clients.c */
int rc_sup_event (struct rc_sup *s, const char *event, const struct rc_buf *data);
/* The socket's fds to poll, after pfd[0..n). */
size_t rc_sup_clients_pollfds (struct rc_sup *s, struct pollfd *pfd, size_t n);
void rc_sup_clients_handle (struct rc_sup *s, const struct pollfd *pfd, size_t from, size_t n);
/* Writes what the subscribers have not seen yet; closes those that have
 * seen the last event. */
void rc_sup_clients_flush (struct rc_sup *s);
bool rc_sup_clients_busy (const struct rc_sup *s);
void rc_sup_clients_close (struct rc_sup *s);
/* supervisor.c: what a client asks of the program. */
int rc_sup_stdin (struct rc_sup *s, const char *data, size_t len, bool eof, const char **why);
void rc_sup_stop (struct rc_sup *s);

#endif
