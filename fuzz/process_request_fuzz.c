/* process_request_fuzz.c - libFuzzer target for a process's request bodies
 * (fcgi/processes/proc_request.c: stdin raw and JSON, signal, resize,
 * Last-Event-ID) and the streamed events' text (fcgi/sse.c: output cut
 * anywhere, the UTF-8 carry).
 *
 * Input: byte 0 chooses where the output is cut (and whether as base64),
 * the rest is the body.  Promises checked beyond "no crash":
 *   - a refusal is a 400 with a message;
 *   - raw stdin is the body, byte for byte, never eof;
 *   - an accepted signal is one of the seven, an accepted size within
 *     1..65535 both ways;
 *   - the events of an output cut in two carry exactly its bytes, in
 *     order, each event's data a JSON string or {"base64": ...}.
 */
#include <config.h>

#include "common/base64.h"
#include "fcgi/processes/proc_request.h"
#include "fcgi/sse.h"
#include "fuzz/fuzz.h"

#include <json-c/json.h>
#include <signal.h>
#include <string.h>

static const int bad_request[] = { 400, 0 };

/* Appends what one event's data carries to got. */
static void
take_event (const struct rc_buf *ev, struct rc_buf *got)
{
  struct json_object *root = json_tokener_parse (ev->data), *v, *b;
  FUZZ_CHECK (root && json_object_object_get_ex (root, "data", &v), "an event's data has data");
  if (json_object_is_type (v, json_type_string))
    rc_buf_append (got, json_object_get_string (v), (size_t)json_object_get_string_len (v));
  else
    {
      char *raw = NULL;
      size_t n = 0;
      FUZZ_CHECK (json_object_is_type (v, json_type_object)
                      && json_object_object_get_ex (v, "base64", &b)
                      && json_object_is_type (b, json_type_string),
                  "binary data is {\"base64\": ...}");
      FUZZ_CHECK (rc_base64_decode (json_object_get_string (b),
                                    (size_t)json_object_get_string_len (b), &raw, &n)
                      == 0,
                  "the base64 decodes");
      rc_buf_append (got, raw, n);
      free (raw);
    }
  json_object_put (root);
}

static void
check_output (const char *data, size_t size, size_t cut, bool base64)
{
  struct rc_sse_text text;
  struct rc_buf ev = { 0 }, got = { 0 };
  memset (&text, 0, sizeof text);
  if (rc_sse_output (&text, 1, data, cut, base64, &ev))
    take_event (&ev, &got);
  if (rc_sse_output (&text, 1, data + cut, size - cut, base64, &ev))
    take_event (&ev, &got);
  if (rc_sse_output_flush (&text, 1, base64, &ev))
    take_event (&ev, &got);
  FUZZ_CHECK (got.len == size && (size == 0 || memcmp (got.data, data, size) == 0),
              "the events carry exactly the output's bytes");
  FUZZ_CHECK (!rc_sse_output_flush (&text, 2, base64, &ev), "the other stream holds nothing");
  rc_buf_free (&ev);
  rc_buf_free (&got);
}

int
LLVMFuzzerTestOneInput (const uint8_t *input, size_t size)
{
  const char *body = (const char *)input + 1;
  struct rc_buf out = { 0 };
  unsigned rows = 0, cols = 0;
  rc_err_t err = NULL;
  bool eof = true;
  int sig = 0;
  char *header;

  if (size == 0)
    return 0;
  size--;
  if (rc_proc_stdin_parse (NULL, body, size, &out, &eof, &err) == 0)
    FUZZ_CHECK (out.len == size && (size == 0 || memcmp (out.data, body, size) == 0) && !eof,
                "raw stdin is the body");
  else
    fuzz_check_refusal (&err, bad_request);
  if (rc_proc_stdin_parse ("application/json", body, size, &out, &eof, &err) == 0)
    FUZZ_CHECK (out.len <= size, "JSON stdin is no longer than its body");
  else
    fuzz_check_refusal (&err, bad_request);
  if (rc_proc_signal_parse (body, size, &sig, &err) == 0)
    FUZZ_CHECK (sig == SIGINT || sig == SIGTERM || sig == SIGKILL || sig == SIGHUP || sig == SIGQUIT
                    || sig == SIGUSR1 || sig == SIGUSR2,
                "an accepted signal is one of the seven");
  else
    fuzz_check_refusal (&err, bad_request);
  if (rc_proc_resize_parse (body, size, &rows, &cols, &err) == 0)
    FUZZ_CHECK (rows >= 1 && rows <= 65535 && cols >= 1 && cols <= 65535,
                "an accepted size is within 1..65535");
  else
    fuzz_check_refusal (&err, bad_request);
  header = malloc (size + 1);
  if (header)
    {
      memcpy (header, body, size);
      header[size] = '\0';
      if (rc_proc_last_event_id (header) > 0)
        FUZZ_CHECK (strspn (header, " \t0123456789") > 0, "an event id is digits");
      free (header);
    }
  check_output (body, size, size ? input[0] % (size + 1) : 0, (input[0] & 0x80) != 0);
  rc_buf_free (&out);
  return 0;
}
