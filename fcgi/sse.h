/* sse.h - the events runcell streams (text/event-stream), written the same
 * way by a streamed POST /v1/execute (written straight to its client) and
 * by a process's supervisor (kept in its numbered log, fcgi/processes/).
 *
 *   event: stage    data: {"stage":"compile"} or {"stage":"run"}
 *   event: stdout   data: {"data":"..."}     (stderr the same; a chunk that
 *                                            is not UTF-8, or every chunk
 *                                            with "encoding": "base64",
 *                                            {"data":{"base64":"..."}}, as
 *                                            the answer writes output)
 *   event: result   data: the /v1/execute result (exit for a process)
 *
 * Output arrives in pipe-sized chunks that may cut a UTF-8 sequence in
 * two; a chunk's incomplete tail is held back and sent with the next one,
 * so a character cut by the pipe never makes a text chunk binary.
 */
#ifndef RUNCELL_FCGI_SSE_H
#define RUNCELL_FCGI_SSE_H

#include "common/job.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Appends one event: "id: <id>\n" (id 0: none), "event: <event>\n",
 * "data: <data>\n\n".  data must hold no newline (json_out escapes them). */
int rc_sse_format (struct rc_buf *b, uint64_t id, const char *event, const char *data, size_t len);

/* The UTF-8 carry of stdout (1) and stderr (2). */
struct rc_sse_text
{
  char tail[3][4];
  size_t tail_len[3];
};

/* The data of a stdout or stderr event for a chunk of stream 1 or 2, in
 * *out (reset first): {"data":"..."} (or {"data":{"base64":"..."}},
 * step_render.h).  false when nothing is to be sent (the chunk was only
 * the start of a character). */
bool rc_sse_output (struct rc_sse_text *t, int stream, const char *data, size_t len, bool base64,
                    struct rc_buf *out);
/* What a stream still holds back (the step ended mid-character), or
 * false. */
bool rc_sse_output_flush (struct rc_sse_text *t, int stream, bool base64, struct rc_buf *out);
/* "stdout" or "stderr". */
const char *rc_sse_stream_name (int stream);
/* {"stage":"<stage>"} in *out (reset first). */
void rc_sse_stage (struct rc_buf *out, const char *stage);

#endif
