/* session_send.h - files leave a session through a bounded stream.
 *
 * A file is copied to the answer 64 KiB at a time (rc_http_stream_*), so
 * a worker holds the same few pages whatever the file's size, a sparse
 * file's included; nginx may buffer the stream, at most
 * fastcgi_max_temp_file_size of it on disk per request (nginx/runcell.conf.in),
 * and takes the rest from the worker as its client reads.  Without a
 * stream (unit tests) the bytes go to res->body.
 */
#ifndef RUNCELL_FCGI_SESSIONS_SEND_H
#define RUNCELL_FCGI_SESSIONS_SEND_H

#include "fcgi/http.h"

#include <stdint.h>

#define RC_SEND_CHUNK (64u * 1024u)

/* Starts the answer: a stream when the worker has one (length: its
 * Content-Length, 0 for unknown), else the body.  < 0 once the client is
 * gone. */
int rc_send_begin (struct rc_http_response *res, int status, const char *content_type,
                   uint64_t length);
/* Appends bytes to the answer; < 0 once the client is gone. */
int rc_send (struct rc_http_response *res, const void *data, size_t len);
/* Appends len bytes of fd (read from its start); < 0 when the client is
 * gone or the file ended early (errno says which: EPIPE, EIO). */
int rc_send_fd (struct rc_http_response *res, int fd, uint64_t len);

#endif
