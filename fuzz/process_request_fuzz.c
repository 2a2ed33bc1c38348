/* process_request_fuzz.c - libFuzzer target for a process's request
 * bodies (fcgi/processes/proc_request.c: stdin, raw and JSON; signal;
 * resize; Last-Event-ID) and the streamed events' text (fcgi/sse.c: a
 * chunk cut anywhere, the UTF-8 carry).  Build: CC=clang ./configure
 * --enable-fuzzers && make fuzz/process_request_fuzz; run:
 * fuzz/process_request_fuzz -max_total_time=60 fuzz/corpus/process_request. */
#include <config.h>

#include "fcgi/processes/proc_request.h"
#include "fcgi/sse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *body = (const char *)data;
  struct rc_buf out = { 0 };
  struct rc_sse_text text;
  unsigned rows, cols;
  rc_err_t err = NULL;
  bool eof;
  int sig;
  char *header;

  (void)rc_proc_stdin_parse ("application/json", body, size, &out, &eof, &err);
  rc_error_free (&err);
  (void)rc_proc_stdin_parse (NULL, body, size, &out, &eof, &err);
  rc_error_free (&err);
  (void)rc_proc_signal_parse (body, size, &sig, &err);
  rc_error_free (&err);
  (void)rc_proc_resize_parse (body, size, &rows, &cols, &err);
  rc_error_free (&err);
  header = malloc (size + 1);
  if (header)
    {
      memcpy (header, data, size);
      header[size] = '\0';
      (void)rc_proc_last_event_id (header);
      free (header);
    }
  /* The output cut in two at every third of it, on both streams. */
  memset (&text, 0, sizeof text);
  for (size_t cut = 0; cut <= size; cut += size / 3 + 1)
    {
      (void)rc_sse_output (&text, 1 + (int)(cut & 1), body, cut, &out);
      (void)rc_sse_output (&text, 1 + (int)(cut & 1), body + cut, size - cut, &out);
    }
  (void)rc_sse_output_flush (&text, 1, &out);
  (void)rc_sse_output_flush (&text, 2, &out);
  rc_buf_free (&out);
  return 0;
}
