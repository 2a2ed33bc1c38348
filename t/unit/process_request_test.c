/* process_request_test.c - the bodies of a process's requests
 * (fcgi/processes/proc_request.c), its ids, and the streamed events' text
 * (fcgi/sse.c): every refusal is a 400 naming what is wrong, and a
 * character cut in two by a pipe is sent whole. */
#include "config.h"

#include "fcgi/processes/proc_proto.h"
#include "fcgi/processes/proc_request.h"
#include "fcgi/sse.h"
#include "t/unit/tap.h"

#include <signal.h>
#include <string.h>

static int
status_of (rc_err_t *err)
{
  int s = *err ? (*err)->http_status : 0;
  rc_error_free (err);
  return s;
}

static void
test_stdin (void)
{
  struct rc_buf data = { 0 };
  rc_err_t err = NULL;
  bool eof = true;

  tap_ok (rc_proc_stdin_parse (NULL, "raw\0bytes", 9, &data, &eof, &err) == 0 && data.len == 9
              && memcmp (data.data, "raw\0bytes", 9) == 0 && !eof,
          "no content type: the body is the bytes, NUL and all, no eof");
  tap_ok (rc_proc_stdin_parse ("text/plain", "{\"eof\":true}", 12, &data, &eof, &err) == 0
              && data.len == 12 && !eof,
          "another content type: JSON text is bytes too");
  tap_ok (rc_proc_stdin_parse ("application/json; charset=utf-8",
                               "{\"data\":\"a\\u0000b\\n\",\"eof\":true}", 32, &data, &eof, &err)
                  == 0
              && data.len == 4 && memcmp (data.data, "a\0b\n", 4) == 0 && eof,
          "application/json: data (with an escaped NUL) and eof");
  tap_ok (rc_proc_stdin_parse ("Application/JSON", "{\"eof\":true}", 12, &data, &eof, &err) == 0
              && data.len == 0 && eof,
          "eof alone, the media type in any case");
  tap_ok (rc_proc_stdin_parse ("application/json", "{}", 2, &data, &eof, &err) == 0 && data.len == 0
              && !eof,
          "an empty object writes nothing");
  static const char *const bad[] = {
    "{\"data\":5}", "{\"eof\":\"yes\"}", "{\"data\":\"x\",\"extra\":1}",
    "[\"x\"]",      "{data:1}",          "{\"data\":\"x\",\"data\":\"y\"}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      int r = rc_proc_stdin_parse ("application/json", bad[i], strlen (bad[i]), &data, &eof, &err);
      tap_ok (r < 0 && status_of (&err) == 400, "stdin %s: 400", bad[i]);
    }
  rc_buf_free (&data);
}

static void
test_signal_resize (void)
{
  rc_err_t err = NULL;
  unsigned rows = 0, cols = 0;
  int sig = 0;
  static const struct
  {
    const char *name;
    int sig;
  } ok[] = { { "SIGINT", SIGINT },  { "SIGTERM", SIGTERM }, { "SIGKILL", SIGKILL },
             { "SIGHUP", SIGHUP },  { "SIGQUIT", SIGQUIT }, { "SIGUSR1", SIGUSR1 },
             { "SIGUSR2", SIGUSR2 } };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    {
      char body[64];
      int n = snprintf (body, sizeof body, "{\"signal\":\"%s\"}", ok[i].name);
      tap_ok (rc_proc_signal_parse (body, (size_t)n, &sig, &err) == 0 && sig == ok[i].sig,
              "signal %s is %d", ok[i].name, ok[i].sig);
    }
  static const char *const bad[] = {
    "{\"signal\":\"SIGSTOP\"}",
    "{\"signal\":\"INT\"}",
    "{\"signal\":\"sigint\"}",
    "{\"signal\":2}",
    "{}",
    "{\"signal\":\"SIGINT\",\"x\":1}",
    "{\"signal\":\"SIGINT\\u0000\"}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    tap_ok (rc_proc_signal_parse (bad[i], strlen (bad[i]), &sig, &err) < 0
                && status_of (&err) == 400,
            "signal %s: 400", bad[i]);
  tap_ok (rc_proc_resize_parse ("{\"rows\":24,\"cols\":80}", 21, &rows, &cols, &err) == 0
              && rows == 24 && cols == 80,
          "resize 24 x 80");
  static const char *const badsize[] = {
    "{\"rows\":0,\"cols\":80}",    "{\"rows\":24,\"cols\":65536}",  "{\"rows\":24}",
    "{\"rows\":24.5,\"cols\":80}", "{\"rows\":\"24\",\"cols\":80}", "{\"rows\":-1,\"cols\":80}",
  };
  for (size_t i = 0; i < sizeof badsize / sizeof badsize[0]; i++)
    tap_ok (rc_proc_resize_parse (badsize[i], strlen (badsize[i]), &rows, &cols, &err) < 0
                && status_of (&err) == 400,
            "resize %s: 400", badsize[i]);
}

static void
test_ids (void)
{
  char id64[65];
  memset (id64, 'a', 64);
  id64[64] = '\0';
  tap_ok (rc_proc_id_valid ("0123456789abcdef0123456789abcdef") && rc_proc_id_valid (id64),
          "ids: 32 or 64 lower-case hex digits");
  tap_ok (!rc_proc_id_valid ("0123456789ABCDEF0123456789abcdef")
              && !rc_proc_id_valid ("0123456789abcdef") && !rc_proc_id_valid ("../../etc/passwd")
              && !rc_proc_id_valid ("0123456789abcdef0123456789abcdef0"),
          "not upper case, shorter, longer, or a path");
  tap_ok (rc_proc_last_event_id ("42") == 42 && rc_proc_last_event_id (" 7") == 7
              && rc_proc_last_event_id ("x") == 0 && rc_proc_last_event_id (NULL) == 0
              && rc_proc_last_event_id ("-3") == 0,
          "Last-Event-ID: a decimal id, anything else from the start");
}

static void
test_sse (void)
{
  struct rc_sse_text t;
  struct rc_buf out = { 0 }, ev = { 0 };
  memset (&t, 0, sizeof t);
  /* "é" is C3 A9: cut after C3. */
  tap_ok (rc_sse_output (&t, 1, "caf\xc3", 4, false, &out)
              && strcmp (out.data, "{\"data\":\"caf\"}") == 0,
          "a chunk ending mid-character sends what is whole");
  tap_ok (rc_sse_output (&t, 1, "\xa9!", 2, false, &out)
              && strcmp (out.data, "{\"data\":\"\xc3\xa9!\"}") == 0,
          "and the character whole with the next chunk");
  tap_ok (!rc_sse_output (&t, 2, "\xe2\x82", 2, false, &out), "two bytes of three: nothing yet");
  tap_ok (rc_sse_output (&t, 2, "\xac", 1, false, &out)
              && strcmp (out.data, "{\"data\":\"\xe2\x82\xac\"}") == 0,
          "then the euro sign, on its own stream");
  tap_ok (!rc_sse_output (&t, 1, "\xf0", 1, false, &out) && rc_sse_output_flush (&t, 1, false, &out)
              && strcmp (out.data, "{\"data\":{\"base64\":\"8A==\"}}") == 0,
          "a stream that ends mid-character: its bytes are flushed, as base64 (not UTF-8)");
  tap_ok (!rc_sse_output_flush (&t, 2, false, &out), "nothing held: nothing flushed");
  tap_ok (rc_sse_output (&t, 1,
                         "a\xff"
                         "b",
                         3, false, &out)
              && strcmp (out.data, "{\"data\":{\"base64\":\"Yf9i\"}}") == 0,
          "a chunk that is not UTF-8 is base64, as the answer writes output");
  tap_ok (rc_sse_output (&t, 1, "ok\n", 3, true, &out)
              && strcmp (out.data, "{\"data\":{\"base64\":\"b2sK\"}}") == 0,
          "with \"encoding\": \"base64\", every chunk is base64");
  tap_ok (rc_sse_output (&t, 1, "a\tb\n", 4, false, &out)
              && strcmp (out.data, "{\"data\":\"a\\tb\\n\"}") == 0,
          "text: control characters are escapes");
  rc_sse_format (&ev, 3, "stdout", out.data, out.len);
  tap_ok (strncmp (ev.data, "id: 3\nevent: stdout\ndata: {", 27) == 0 && ev.len > 2
              && memcmp (ev.data + ev.len - 2, "\n\n", 2) == 0
              && memchr (ev.data + 27, '\n', ev.len - 29) == NULL,
          "an event: id, event, one data line, a blank line");
  rc_buf_reset (&ev);
  rc_sse_format (&ev, 0, "result", "{}", 2);
  tap_ok (strcmp (ev.data, "event: result\ndata: {}\n\n") == 0, "id 0: no id line");
  rc_sse_stage (&out, "compile");
  tap_ok (strcmp (out.data, "{\"stage\":\"compile\"}") == 0, "a stage's data");
  rc_buf_free (&out);
  rc_buf_free (&ev);
}

int
main (void)
{
  test_stdin ();
  test_signal_resize ();
  test_ids ();
  test_sse ();
  return tap_done ();
}
