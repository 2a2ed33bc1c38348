/* error.h - runcell's one error convention.
 *
 * A function that can fail returns an int < 0 and fills an rc_err_t with the
 * errno of the failing call and a message naming the call and its argument.
 * Callers add context with rc_error_wrap() and pass the error up; only the
 * outermost layer (a request handler, main) logs it.  Modelled on crun's
 * libcrun_error_t.
 *
 * An error that is the request's fault carries the HTTP status to answer
 * with (rc_error_http); fcgi/http.c's rc_http_error_from() is the one place
 * that turns an error into a response.  An error without one is a failure
 * of the service or the sandbox: it is logged and answered 500 "internal".
 */
#ifndef RUNCELL_COMMON_ERROR_H
#define RUNCELL_COMMON_ERROR_H

#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

struct rc_error
{
  int status;      /* errno of the failed call, 0 when not a syscall failure */
  int http_status; /* the request's fault: the status to answer with; 0 otherwise */
  char *msg;       /* heap string, "what failed: detail" */
};
typedef struct rc_error *rc_err_t;

/* Sets *err (freeing nothing: *err must be NULL) and returns -1. */
int rc_error_set (rc_err_t *err, int status, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* An error of the request: the message is what the client is told, under
 * http_status (4xx, or 501 for what this host does not offer). */
int rc_error_http (rc_err_t *err, int http_status, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* Same as rc_error_set with status = errno. */
int rc_error_sys (rc_err_t *err, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* Prefixes "<context>: " to the message of an existing error; returns -1. */
int rc_error_wrap (rc_err_t *err, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
void rc_error_free (rc_err_t *err);
/* Message with ": strerror(status)" appended when status != 0 (static buffer
 * per thread, valid until the next call). */
const char *rc_error_text (rc_err_t err);

/* Cleanup helpers: error paths cannot leak. */
static inline void
rc_cleanup_freep (void *p)
{
  free (*(void **)p);
}
static inline void
rc_cleanup_closep (int *fd)
{
  if (*fd >= 0)
    close (*fd);
}
#define cleanup_free __attribute__ ((cleanup (rc_cleanup_freep)))
#define cleanup_close __attribute__ ((cleanup (rc_cleanup_closep)))

/* Moves ownership of an fd out of a cleanup_close variable. */
static inline int
rc_take_fd (int *fd)
{
  int ret = *fd;
  *fd = -1;
  return ret;
}

#endif
