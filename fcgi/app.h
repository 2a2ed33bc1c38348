/* app.h - what a worker's handlers share: configuration, languages, the
 * sandbox handle.  One per worker process; nothing here is shared between
 * workers except through the slot table (slots.h). */
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
  volatile sig_atomic_t shutdown_requested;
  /* A slot whose job was answered but not yet cleaned (jobs_wait.c). */
  bool slot_to_clean;
  int clean_slot;
  /* The slot marked as holding this worker's resident init, or -1
   * (rc_slot_set_resident). */
  int resident_mark;
};

void rc_route (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res);

/* One route as docs/openapi.yaml names it (path templates use {id} and
 * {path}).  rc_route_list calls fn for every route the router serves: its
 * own table, then the sessions family's (t/unit/openapi.py compares the
 * list with the API description). */
struct rc_route_info
{
  const char *method;
  const char *path;
};
void rc_route_list (void (*fn) (const struct rc_route_info *route, void *ud), void *ud);
/* The sessions family's routes, kept beside its dispatcher. */
extern const struct rc_route_info rc_api_sessions_routes[];
extern const size_t rc_api_sessions_n_routes;

/* Handlers, one file per API family. */
void rc_api_run (struct rc_app *app, const struct rc_http_request *req,
                 struct rc_http_response *res);
void rc_api_execute (struct rc_app *app, const struct rc_http_request *req,
                     struct rc_http_response *res);
void rc_api_languages (struct rc_app *app, const struct rc_http_request *req,
                       struct rc_http_response *res);

/* The sessions API (fcgi/sessions/api_sessions.c): returns true when the path
 * belongs to it (and res is filled), false to let the router go on. */
bool rc_api_sessions_route (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res);
/* Master tick: removes sessions idle past their expiry (sessions.c). */
void rc_sessions_sweep (const struct rc_config *cfg);

/* Runs a prepared job on a claimed slot: claims, runs, and leaves the
 * slot to rc_app_after_reply to clean and release.  Answers 429 when no
 * slot is free and 500 on a sandbox failure; returns 0 when the job ran
 * and res_job holds its result. */
int rc_app_run_job (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *res_job,
                    struct rc_http_response *res);
/* Once the response has been handed to the web server: cleans and
 * releases (or quarantines) the slot of the job just answered, if any. */
void rc_app_after_reply (struct rc_app *app);
/* The fd that becomes readable when the slot answered last can be cleaned
 * without waiting (its resident init has cleared the job away), or -1
 * when there is nothing to wait for: the worker may then wait for the
 * next connection and for that fd together, and call rc_app_after_reply
 * when either comes (sandbox/spawn.c, "The resident init"). */
int rc_app_clean_wait_fd (struct rc_app *app);

#endif
