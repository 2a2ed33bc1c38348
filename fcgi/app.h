/* app.h - what a worker's handlers share: configuration, languages, the
 * sandbox handle.  One per worker process; nothing here is shared between
 * workers except through the slot table (sandbox/slot/slot_table.h). */
#ifndef RUNCELL_FCGI_APP_H
#define RUNCELL_FCGI_APP_H

#include "common/config.h"
#include "common/lang.h"
#include "fcgi/http.h"
#include "sandbox/sandbox.h"

#include <signal.h>
#include <stdbool.h>

struct rc_app
{
  const struct rc_config *cfg;
  const struct rc_lang_table *langs;
  struct rc_sandbox *sandbox; /* NULL in unit tests of parsing */
  volatile int shutdown_requested;
  /* The family of the route being served (the router sets it): whether
   * its jobs wait in the queue (RUN_QUEUE_ROUTES). */
  enum rc_route_family family;
};

void rc_route (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res);

/* One route as docs/openapi.yaml names it (path templates use {id} and
 * {path}).  rc_route_list calls fn for every route of the router's one
 * table (t/unit/openapi.py compares the list with the API description). */
struct rc_route_info
{
  const char *method;
  const char *path;
};
void rc_route_list (void (*fn) (const struct rc_route_info *route, void *ud), void *ud);
/* The largest body the route of method and path takes: RUN_INPUT_MAX, or
 * RUN_JUDGE_INPUT_MAX for POST /v1/judge. */
uint64_t rc_route_body_max (const struct rc_config *cfg, const char *method, const char *path);
/* Handlers, one file per API family. */
void rc_api_run (struct rc_app *app, const struct rc_http_request *req,
                 struct rc_http_response *res);
void rc_api_execute (struct rc_app *app, const struct rc_http_request *req,
                     struct rc_http_response *res);
void rc_api_languages (struct rc_app *app, const struct rc_http_request *req,
                       struct rc_http_response *res);
/* POST /v1/judge (fcgi/judge/). */
void rc_api_judge (struct rc_app *app, const struct rc_http_request *req,
                   struct rc_http_response *res);

/* The sessions API (fcgi/sessions/api_sessions.c); req->path_id is the
 * session id, req->path_rest the file path. */
void rc_api_session_create (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res);
void rc_api_session_delete (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res);
void rc_api_session_execute (struct rc_app *app, const struct rc_http_request *req,
                             struct rc_http_response *res);
void rc_api_session_execute_once (struct rc_app *app, const struct rc_http_request *req,
                                  struct rc_http_response *res);
void rc_api_session_file_get (struct rc_app *app, const struct rc_http_request *req,
                              struct rc_http_response *res);
void rc_api_session_file_put (struct rc_app *app, const struct rc_http_request *req,
                              struct rc_http_response *res);
void rc_api_session_file_delete (struct rc_app *app, const struct rc_http_request *req,
                                 struct rc_http_response *res);
/* Processes (fcgi/processes/api_processes.c); req->path_id is the
 * process id (the session's for rc_api_session_process_create). */
void rc_api_process_create (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res);
void rc_api_session_process_create (struct rc_app *app, const struct rc_http_request *req,
                                    struct rc_http_response *res);
void rc_api_process_status (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res);
void rc_api_process_events (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res);
void rc_api_process_stdin (struct rc_app *app, const struct rc_http_request *req,
                           struct rc_http_response *res);
void rc_api_process_signal (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res);
void rc_api_process_resize (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res);
void rc_api_process_delete (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res);
/* Master tick: removes sessions idle past their expiry (sessions.c). */
void rc_sessions_sweep (const struct rc_config *cfg);

/* Runs a prepared job: claims a slot, runs it, and leaves the claim to
 * rc_app_after_reply to end (fcgi/jobs.c).  A route of RUN_QUEUE_ROUTES
 * waits in the queue for a slot (429, or 503 for the sessions, with
 * Retry-After when the queue is full or the wait ran out); the others
 * answer 429 at once when every slot runs a job.  500 on a sandbox
 * failure; 0 when the job ran and res_job holds its result. */
int rc_app_run_job (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *res_job,
                    struct rc_http_response *res);
/* The claim of a slot for a caller that runs the job itself (a streamed
 * /v1/execute, a process), the route's way (RUN_QUEUE_ROUTES): through
 * the queue, or at once; < 0 with res answered (429, or 503 for the
 * sessions). */
int rc_app_claim (struct rc_app *app, struct rc_http_response *res, struct rc_slot_claim *claim);
/* A job's result, accounted as every job's is: the sandbox's note on the
 * limit that ended a step appended to its stderr, the metrics counted. */
void rc_app_account_job (const struct rc_job_spec *spec, struct rc_job_result *result);
/* The canary job (fcgi/canary.c): 1 when it ran and printed what it
 * should, 0 when no slot was free at once (wait_ms 0: a busy runner is
 * ready), < 0 with err when it failed or (wait_ms > 0) no slot became
 * ready in that time. */
int rc_app_canary (struct rc_app *app, uint64_t wait_ms, rc_err_t *err);
/* Once the response has been handed to the web server: ends the claims
 * of the jobs just answered (their slots' inits clear them away). */
void rc_app_after_reply (struct rc_app *app);

#endif
