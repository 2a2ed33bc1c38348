/* session_exec.h - running code inside a session (POST /execute and
 * POST /sessions/{id}/execute): the job (built by rc_job_build from the
 * language's manifest), change detection around the run, and the
 * multipart/mixed answer.
 */
#ifndef RUNCELL_FCGI_SESSION_EXEC_H
#define RUNCELL_FCGI_SESSION_EXEC_H

#include "common/job.h"
#include "common/lang.h"
#include "fcgi/app.h"
#include "fcgi/sessions/session_path.h"
#include "fcgi/sessions/sessions.h"

#include <stdbool.h>
#include <stdint.h>

/* A file to create in the session before the run. */
struct rc_session_upload
{
  char path[RC_SESSION_PATH_MAX + 1];
  struct rc_buf data;
};

struct rc_exec_request
{
  const struct rc_lang *lang; /* from the language registry, has "execute" */
  struct rc_buf code;
  struct rc_session_upload *uploads;
  size_t n_uploads;
};
void rc_exec_request_free (struct rc_exec_request *er);

/* Reads the multipart/form-data body of POST /execute and
 * /sessions/{id}/execute into er (api_sessions.c; no session, slot or
 * worker needed, so fuzz/session_form_fuzz.c calls it).  Returns 0, or the
 * HTTP status (400, 413, 501) with res filled; er is the caller's to free
 * either way. */
int rc_session_parse_execute (const struct rc_http_request *req, const struct rc_session_config *sc,
                              const struct rc_lang_table *langs, struct rc_exec_request *er,
                              struct rc_http_response *res);

/* Writes uploads into the session all-or-nothing: every file is staged
 * first, and only when all fit are they published.  Returns 0, or an HTTP
 * status (400, 413, 500) with res filled. */
int rc_session_write_uploads (struct rc_session *s, const struct rc_session_config *sc,
                              struct rc_session_upload *ups, size_t n,
                              struct rc_http_response *res);

/* Appends one file of the multipart/mixed answer to b: the part under
 * boundary, its exact path in filename* (RFC 5987), a flattened ASCII
 * filename, then the bytes.  No session needed (fuzz/session_answer_fuzz.c
 * reads it back). */
void rc_session_answer_part (struct rc_buf *b, const char *boundary, const char *path,
                             size_t path_len, const char *data, size_t len);
/* Its head alone (the answer streams the bytes after it, then CRLF). */
void rc_session_answer_part_head (struct rc_buf *b, const char *boundary, const char *path,
                                  size_t path_len);

/* Runs er in the locked session s and fills res with the multipart/mixed
 * answer (or an error: 503 when no slot freed up in time, 500). */
void rc_session_execute (struct rc_app *app, const struct rc_session_config *sc,
                         struct rc_session *s, const struct rc_exec_request *er,
                         struct rc_http_response *res);

/* rc_app_run_job (fcgi/jobs.c) with prepare(slot, ud), run once the slot
 * is claimed and before the job (< 0 aborts with a 500). */
int rc_app_run_job_prepared (struct rc_app *app, struct rc_job_spec *spec,
                             struct rc_job_result *result, struct rc_http_response *res,
                             int (*prepare) (int slot, void *ud), void *ud);

#endif
