/* run_request_test.c - POST /run body parsing on literal strings:
 * malformed, truncated, deeply nested, huge strings, NUL bytes, invalid
 * UTF-8, wrong types, and the language checks. */
#include <config.h>

#include "fcgi/run/run_request.h"
#include "t/unit/tap.h"

#include <json-c/json.h>

#include <stdio.h>
#include <string.h>

/* The HTTP status and message an error will be answered with (500 for an
 * error without status, as rc_http_error_from does). */
static void
error_parts (rc_err_t *err, int *status, const char **msg)
{
  static char text[512];
  *status = (*err)->http_status ? (*err)->http_status : 500;
  snprintf (text, sizeof text, "%s", (*err)->msg ? (*err)->msg : "");
  *msg = text;
  rc_error_free (err);
}

static struct rc_config cfg = { .timeout_default_ms = 30000, .timeout_max_ms = 600000 };
static struct rc_lang python = { .slug = (char *)"python", .available = true };
static struct rc_lang_table python_only = { &python, 1 };
static struct rc_job_limits limits;

static int
check_lang (const struct rc_run_request *r, const struct rc_lang_table *t, const struct rc_lang **l,
            int *status, const char **msg)
{
  rc_err_t err = NULL;
  int ret = rc_run_request_check (r, &cfg, t, l, &limits, &err);
  if (ret < 0)
    error_parts (&err, status, msg);
  return ret;
}

/* Parses, and checks a request for python (the timeout's ceiling). */
static int
parse (const char *body, size_t len, struct rc_run_request *out, int *status, const char **msg)
{
  rc_err_t err = NULL;
  const struct rc_lang *l;
  int ret = rc_run_request_parse (body, len, out, &err);
  if (ret < 0)
    error_parts (&err, status, msg);
  else if (strcmp (out->lang_slug, "python") == 0
           && check_lang (out, &python_only, &l, status, msg) < 0)
    {
      rc_run_request_free (out);
      return -1;
    }
  return ret;
}

static void
expect_reject_len (const char *body, size_t len, int want_status, const char *want_msg,
                   const char *what)
{
  struct rc_run_request r;
  int status = 0;
  const char *msg = "";
  int ret = parse (body, len, &r, &status, &msg);
  tap_ok (ret < 0 && status == want_status && (want_msg == NULL || strstr (msg, want_msg)),
          "%s -> %d (%s)", what, status, msg);
}

static void
expect_reject (const char *body, int want_status, const char *want_msg, const char *what)
{
  expect_reject_len (body, strlen (body), want_status, want_msg, what);
}

static void
test_valid (void)
{
  struct rc_run_request r;
  int status;
  const char *msg;
  const char *body = "{\"timeout\":\"2s\",\"solution_text\":\"print(1)\",\"lang_slug\":\"python\","
                     "\"asserts\":\"{\\\"arguments\\\":[[1,2]]}\",\"checker_text\":null,"
                     "\"unknown\":[1,2,3]}";
  tap_ok (parse (body, strlen (body), &r, &status, &msg) == 0, "Codebattle's request parses");
  tap_ok (r.timeout_ms == 2000 && limits.run.wall_ms == 2000 && strcmp (r.lang_slug, "python") == 0
              && strcmp (r.solution_text, "print(1)") == 0 && r.checker_text == NULL && r.asserts
              && strcmp (r.asserts, "{\"arguments\":[[1,2]]}") == 0,
          "fields are extracted, null checker is absent, unknown fields ignored");
  rc_run_request_free (&r);

  body = "{\"solution_text\":\"a\\u0000b\",\"lang_slug\":\"cpp\",\"checker_text\":\"c\"}";
  tap_ok (parse (body, strlen (body), &r, &status, &msg) == 0 && r.solution_len == 3
              && memcmp (r.solution_text, "a\0b", 3) == 0 && r.timeout_ms == 0 && r.checker_text
              && strcmp (r.checker_text, "c") == 0,
          "escaped NUL survives with its length; no timeout given");
  rc_run_request_free (&r);
}

static void
test_invalid (void)
{
  static const char nul_body[] = "{\"solution_text\":\"a\0\",\"lang_slug\":\"python\"}";
  char *deep, *huge;
  size_t i, depth = 100000;

  expect_reject ("", 400, "empty", "empty body");
  expect_reject ("{", 400, "truncated", "truncated object");
  expect_reject ("{\"solution_text\":\"x", 400, "invalid JSON", "truncated string");
  expect_reject ("not json", 400, "invalid JSON", "garbage");
  expect_reject ("{} {}", 400, "trailing", "two documents");
  expect_reject ("[1,2]", 400, "object", "array instead of object");
  expect_reject ("{\"lang_slug\":\"python\"}", 400, "solution_text is required",
                 "missing solution_text");
  expect_reject ("{\"solution_text\":5,\"lang_slug\":\"python\"}", 400, "must be a string",
                 "solution_text of the wrong type");
  expect_reject ("{\"solution_text\":\"\",\"lang_slug\":7}", 400, "lang_slug",
                 "lang_slug of the wrong type");
  expect_reject ("{\"solution_text\":\"\"}", 400, "lang_slug is required", "missing lang_slug");
  expect_reject ("{\"solution_text\":\"\",\"lang_slug\":\"python\",\"timeout\":\"soon\"}", 400,
                 "invalid timeout", "invalid timeout");
  expect_reject ("{\"solution_text\":\"\",\"lang_slug\":\"python\",\"timeout\":30}", 400,
                 "invalid timeout", "numeric timeout");
  /* Found by fuzz/run_request_fuzz.c: read up to its NUL, this was 5 s. */
  expect_reject ("{\"solution_text\":\"\",\"lang_slug\":\"python\",\"timeout\":\"5s\\u0000x\"}",
                 400, "invalid timeout", "timeout with a NUL inside");
  expect_reject ("{\"solution_text\":\"\",\"lang_slug\":\"python\",\"timeout\":\"2S\"}", 400,
                 "invalid timeout \"2S\"", "upper-case unit: not the documented pattern");
  expect_reject ("{\"solution_text\":\"\",\"lang_slug\":\"python\",\"timeout\":\"1h\"}", 400,
                 "above the maximum", "timeout 1h: above RUN_TIMEOUT_MAX");
  expect_reject ("{\"solution_text\":\"\",\"lang_slug\":\"python\",\"timeout\":\"11m\"}", 400,
                 "maximum", "timeout above RUN_TIMEOUT_MAX");
  expect_reject ("{\"solution_text\":\"\",\"lang_slug\":\"python\",\"asserts\":[1]}", 400,
                 "asserts", "asserts as an array");
  expect_reject ("{\"solution_text\":\"\",\"lang_slug\":\"cpp\",\"checker_text\":1}", 400,
                 "checker_text", "checker_text of the wrong type");
  expect_reject_len (nul_body, sizeof nul_body - 1, 400, "NUL", "raw NUL byte");
  expect_reject ("{\"solution_text\":\"\xff\xfe\",\"lang_slug\":\"python\"}", 400, "UTF-8",
                 "invalid UTF-8 in a string");
  expect_reject ("{\"solution_text\":\"\xc0\xaf\",\"lang_slug\":\"python\"}", 400, NULL,
                 "overlong UTF-8");

  deep = malloc (depth * 2 + 1);
  for (i = 0; i < depth; i++)
    deep[i] = '[';
  for (i = 0; i < depth; i++)
    deep[depth + i] = ']';
  deep[depth * 2] = '\0';
  expect_reject_len (deep, depth * 2, 400, "deeply", "10^5-deep nesting");
  memset (deep, '{', depth);
  expect_reject_len (deep, depth, 400, NULL, "10^5 unclosed braces");
  free (deep);

  {
    /* An 8 MiB string parses (the body limit is nginx's and the worker's
     * job, not the parser's) and keeps its length. */
    size_t n = 8u << 20;
    struct rc_run_request r;
    int status;
    const char *msg;
    const char *pre = "{\"lang_slug\":\"python\",\"solution_text\":\"";
    size_t plen = strlen (pre);
    huge = malloc (plen + n + 3);
    memcpy (huge, pre, plen);
    memset (huge + plen, 'x', n);
    memcpy (huge + plen + n, "\"}", 3);
    tap_ok (parse (huge, plen + n + 2, &r, &status, &msg) == 0 && r.solution_len == n,
            "huge string parses with its full length");
    rc_run_request_free (&r);
    free (huge);
  }
}

/* Issue 16: what json-c accepts even in its strict mode is refused, and
 * a name with an escaped NUL is a 400 (the NUL would cut the slug). */
static void
test_strict (void)
{
  static const struct
  {
    const char *body, *msg, *what;
  } cases[] = {
    { "{\"lang_slug\":\"python\",\"solution_text\":\"x\",}", "invalid JSON", "trailing comma" },
    { "{\"lang_slug\":\"python\",\"solution_text\":[1,]}", "invalid JSON",
      "trailing comma in array" },
    { "{'lang_slug':'python','solution_text':'x'}", "invalid JSON", "single quotes" },
    { "{\"lang_slug\":\"python\",\"solution_text\":'x'}", "invalid JSON", "single-quoted value" },
    { "{\"lang_slug\":\"python\",/* c */\"solution_text\":\"x\"}", "invalid JSON",
      "block comment" },
    { "{\"lang_slug\":\"python\",\"solution_text\":\"x\"}// c", "invalid JSON",
      "line comment after" },
    { "{\"lang_slug\":\"python\",\"solution_text\":\"x\"} x", "trailing data", "garbage after" },
    { "{\"lang_slug\":\"python\",\"solution_text\":\"x\",\"t\":NaN}", "invalid JSON", "NaN" },
    { "{\"lang_slug\":\"python\",\"solution_text\":\"x\",\"t\":1.}", "bad number", "1." },
    { "{\"lang_slug\":\"python\",\"solution_text\":\"x\",\"t\":01}", "invalid JSON",
      "leading zero" },
    { "{\"lang_slug\":\"python\",\"solution_text\":\"a\tb\"}", "control character",
      "raw tab in a string" },
    { "{\"lang_slug\":\"python\",\"solution_text\":\"\\x41\"}", "bad escape", "\\x escape" },
    { "{\"lang_slug\":\"cpp\",\"lang_slug\":\"python\",\"solution_text\":\"x\"}", "duplicate key",
      "duplicate key" },
    { "{\"lang_slug\":\"python\",\"solution_text\":\"x\",\"o\":{\"a\":1,\"a\":2}}", "duplicate key",
      "nested duplicate key" },
    { "{\"lang_slug\":\"python\\u0000evil\",\"solution_text\":\"x\"}",
      "lang_slug must not contain NUL", "NUL in lang_slug" },
    { "{\"lang_slug\\u0000x\":\"python\",\"solution_text\":\"x\"}",
      "NUL (\\u0000) in an object key", "NUL in a key (json-c would cut it to lang_slug)" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    expect_reject (cases[i].body, 400, cases[i].msg, cases[i].what);
}

/* What RFC 8259 allows still parses through the strict path. */
static void
test_strict_accepts (void)
{
  static const char *const ok[] = {
    "{}",
    "[]",
    " \t\r\n{ } ",
    "0",
    "-0",
    "1e5",
    "-1.5E-3",
    "2E+2",
    "\"\"",
    "true",
    "{\"a\":[1,[2,{\"b\":{}}],\"\\u00e9\\ud83d\\ude00\\n\\\"\\/\"],\"c\":{\"a\":1}}",
    "{\"a\":{\"x\":1},\"b\":{\"x\":2}}",
    "{\"k\":\"\\\\u0000\"}",
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    {
      rc_err_t err = NULL;
      struct json_object *o = rc_json_parse_strict (ok[i], strlen (ok[i]), &err);
      tap_ok (o != NULL, "strict parse accepts %s (%s)", ok[i], o ? "ok" : err->msg);
      rc_error_free (&err);
      json_object_put (o);
    }
}

static void
test_lang_checks (void)
{
  struct rc_lang langs[3];
  struct rc_lang_table table = { langs, 3 };
  struct rc_run_request r;
  const struct rc_lang *found;
  int status;
  const char *msg;
  char *aliases[] = { (char *)"py", NULL };

  memset (langs, 0, sizeof langs);
  langs[0].slug = (char *)"python";
  langs[0].aliases = aliases;
  langs[0].available = true;
  langs[1].slug = (char *)"cpp";
  langs[1].checker_required = true;
  langs[1].checker_file = (char *)"checker.cpp";
  langs[1].available = true;
  langs[2].slug = (char *)"zig";
  langs[2].available = false;

  memset (&r, 0, sizeof r);
  r.lang_slug = (char *)"python";
  tap_ok (check_lang (&r, &table, &found, &status, &msg) == 0 && found == &langs[0],
          "known slug is accepted");
  r.lang_slug = (char *)"py";
  tap_ok (check_lang (&r, &table, &found, &status, &msg) < 0 && status == 400
              && strcmp (msg, "unsupported lang_slug \"py\"") == 0,
          "/run does not take aliases: unsupported lang_slug naming the value");
  r.lang_slug = (char *)"cobol";
  tap_ok (check_lang (&r, &table, &found, &status, &msg) < 0 && status == 400,
          "unknown slug -> 400");
  r.lang_slug = (char *)"cpp";
  tap_ok (check_lang (&r, &table, &found, &status, &msg) < 0 && status == 400
              && strcmp (msg, "checker_text is required") == 0,
          "cpp without checker -> 400 checker_text is required");
  r.checker_text = (char *)"int main(){}";
  tap_ok (check_lang (&r, &table, &found, &status, &msg) == 0, "cpp with checker");
  r.lang_slug = (char *)"zig";
  tap_ok (check_lang (&r, &table, &found, &status, &msg) < 0 && status == 501,
          "language without toolchain -> 501");
}

int
main (void)
{
  test_valid ();
  test_invalid ();
  test_strict ();
  test_strict_accepts ();
  test_lang_checks ();
  return tap_done ();
}
