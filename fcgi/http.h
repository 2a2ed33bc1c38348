/* http.h - the request and response as the handlers see them.
 *
 * Handlers never touch libfcgi: the worker fills an rc_http_request from the
 * FastCGI params and body, calls the router, and writes the rc_http_response
 * back.  Unit tests build requests from literals.
 */
#ifndef RUNCELL_FCGI_HTTP_H
#define RUNCELL_FCGI_HTTP_H

#include "common/error.h"
#include "common/job.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rc_http_request
{
  const char *method;           /* "GET", "POST", ... */
  const char *path;             /* "/run", without the query string, decoded (for the log) */
  const char *raw_path;         /* the same as the client sent it (percent-escapes kept), or
                                 * NULL: what the router matches, so that a decoded '/' or
                                 * ".." in a file path is seen, not merged away by nginx */
  const char *query;            /* after '?', or "" */
  const char *content_type;     /* may be NULL */
  const char *content_encoding; /* HTTP_CONTENT_ENCODING, may be NULL */
  const char *accept;           /* HTTP_ACCEPT, may be NULL */
  const char *remote_addr;
  /* Who the request counts against (MAX_SESSIONS_PER_CLIENT): nginx's
   * per-client key (RUNCELL_CLIENT), else remote_addr; may be NULL. */
  const char *client;
  const char *request_id; /* nginx $request_id when passed, else generated */
  const char *last_event_id; /* HTTP_LAST_EVENT_ID (an SSE reconnect), may be NULL */
  const char *body;
  size_t body_len;
  bool body_too_large; /* CONTENT_LENGTH or the bytes read exceeded RUN_INPUT_MAX */
  /* Set by the router from the route's pattern: {id} and {path}. */
  const char *path_id;
  const char *path_rest;
};
/* The longest {id} a route pattern matches. */
#define RC_ROUTE_ID_MAX 128

/* A response written as it is produced (SSE, a file streamed out), set up
 * by the worker; handlers use the rc_http_stream_* calls below. */
struct rc_http_stream
{
  /* Writes and flushes; < 0 once the client is gone. */
  int (*write) (void *ctx, const char *data, size_t len);
  void *ctx;
  int fd; /* the connection to the web server: readable or hung up when it
           * drops the request (the client went away) */
};

struct rc_http_response
{
  int status;
  const char *content_type; /* default application/json */
  const char *allow;        /* Allow header for 405 */
  const char *request_id;   /* X-Request-Id of every answer */
  int retry_after_s;        /* Retry-After (0: none; 429 defaults to 1) */
  struct rc_buf body;
  /* Streaming: the worker's, or NULL (unit tests, the CLI). */
  const struct rc_http_stream *stream;
  bool streamed; /* headers and body already written */
  /* A stream of known length (a file): Content-Length, and nginx may
   * buffer it (its temp file per request is bounded by
   * fastcgi_max_temp_file_size); 0: unknown, and nginx passes each write
   * on at once (X-Accel-Buffering: no, for events). */
  uint64_t stream_length;
  /* nginx may buffer the stream although its length is unknown (a
   * multipart answer of files). */
  bool stream_buffered;
  uint64_t stream_bytes; /* written so far, for the log */
  /* For the request log line. */
  const char *log_lang;
  const char *log_outcome;
  int log_exit_code;
  bool log_has_exit;
  uint64_t log_wall_ms, log_cpu_ms, log_mem_kb;
  uint64_t log_setup_us;
  int log_slot;          /* the slot the job ran in */
  unsigned log_compiles; /* compile steps the request ran (logged when > 0) */
  bool log_job;          /* a job endpoint: counted in runcell_jobs_total */
};

const char *rc_http_reason (int status);
/* The one place an error becomes a response.  An error that carries an
 * HTTP status (the request's fault) is answered with that status and its
 * message as {"error": msg}; one without (a failure of the service or the
 * sandbox) is logged as event and answered 500 "internal", so nothing of
 * the host leaks to the client.  Frees *err. */
void rc_http_error_from (struct rc_http_response *res, rc_err_t *err, const char *event);
/* An error of the request, answered through rc_http_error_from. */
void rc_http_error (struct rc_http_response *res, int status, const char *msg);
void rc_http_errorf (struct rc_http_response *res, int status, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* A failure of the service: logged as event with the detail, answered 500
 * "internal" through rc_http_error_from. */
void rc_http_internal (struct rc_http_response *res, const char *event, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* Streaming.  begin writes the status and headers (no Content-Length:
 * the web server frames the body; X-Accel-Buffering: no, so nginx passes
 * each write on at once); write sends bytes at once.  Both < 0 with
 * EPIPE once the client is gone, ENOTSUP when res has no stream. */
int rc_http_stream_begin (struct rc_http_response *res, int status, const char *content_type);
int rc_http_stream_write (struct rc_http_response *res, const void *data, size_t len);
/* One Server-Sent Event: "id: <id>\nevent: <event>\ndata: <data>\n\n"
 * (id 0: none); data must hold no newline (JSON from json_out never does). */
int rc_http_sse (struct rc_http_response *res, uint64_t id, const char *event, const char *data,
                 size_t len);
/* True when the client went away (poll of stream->fd, no wait). */
bool rc_http_stream_gone (const struct rc_http_response *res);

/* The CGI response head of res ("Status: ...\r\n...\r\n\r\n"): with a
 * Content-Length of the body, or without one for a stream.  The length
 * written, or -1 when size cannot hold it. */
int rc_http_format_head (const struct rc_http_response *res, bool streamed, char *buf, size_t size);

/* True when an Accept header names media type (e.g. "text/event-stream"). */
bool rc_http_accepts (const char *accept, const char *type);

/* Percent-decodes in[0..len) into out (NUL-terminated, at most size - 1
 * bytes); -1 for a malformed escape, an encoded NUL, or an output that
 * does not fit. */
int rc_http_percent_decode (const char *in, size_t len, char *out, size_t size);

/* True for a missing, empty or "identity" Content-Encoding. */
bool rc_http_encoding_is_identity (const char *encoding);

#endif
