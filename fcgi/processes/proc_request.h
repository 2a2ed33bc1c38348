/* proc_request.h - the bodies of a process's requests (the body that
 * starts one is /v1/execute's, execute_request.h):
 *
 *   POST .../stdin    raw bytes, or with Content-Type application/json
 *                     {"data": "...", "eof": true} (both optional)
 *   POST .../signal   {"signal": "SIGINT"}: SIGINT, SIGTERM, SIGKILL,
 *                     SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2
 *   POST .../resize   {"rows": 1..65535, "cols": 1..65535}
 *
 * Each returns < 0 with an HTTP 400 error naming what is wrong (or an
 * error without status: out of memory).  Pure functions over the body:
 * unit-tested and fuzzed (fuzz/process_request_fuzz.c) without a service.
 */
#ifndef RUNCELL_FCGI_PROCESSES_PROC_REQUEST_H
#define RUNCELL_FCGI_PROCESSES_PROC_REQUEST_H

#include "common/error.h"
#include "common/job.h"

#include <stdbool.h>
#include <stddef.h>

/* data receives the bytes to write (raw, or the JSON string's, which may
 * hold NUL); eof whether stdin closes after them. */
int rc_proc_stdin_parse (const char *content_type, const char *body, size_t len,
                         struct rc_buf *data, bool *eof, rc_err_t *err);
int rc_proc_signal_parse (const char *body, size_t len, int *sig, rc_err_t *err);
int rc_proc_resize_parse (const char *body, size_t len, unsigned *rows, unsigned *cols,
                          rc_err_t *err);
/* Last-Event-ID: the decimal id of an event; anything else is 0 (from the
 * start). */
unsigned long long rc_proc_last_event_id (const char *header);
/* True for application/json, parameters aside. */
bool rc_proc_is_json (const char *content_type);

#endif
