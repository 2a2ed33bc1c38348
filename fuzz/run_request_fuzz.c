/* run_request_fuzz.c - libFuzzer target for the POST /run body parser
 * (fcgi/run/run_request.c, rc_run_request_parse, and its check against
 * the language table and the limits, rc_run_request_check).
 *
 * The input is the request body.  Promises checked:
 *  - a refusal is a 400 with a message;
 *  - an accepted request holds its strings with their lengths (NUL kept
 *    inside solution_text, checker_text and asserts, as docs/design.md
 *    says), a lang_slug and a timeout string without NUL, and a timeout
 *    of 0 (absent) or the duration its string says;
 *  - it re-validates: written back as JSON by runcell's own writer
 *    (common/json_out.c) and parsed again, it is the same request;
 *  - the check answers 400, 501, 400, 400 exactly where the table and the
 *    configuration say so (unknown slug, not installed, checker required,
 *    timeout above RUN_TIMEOUT_MAX), and an accepted request runs with its
 *    timeout, or the default, as its wall clock.
 */
#include "config.h"

#include "common/config.h"
#include "common/json_in.h"
#include "common/json_out.h"
#include "fcgi/run/run_request.h"
#include "fuzz/fuzz.h"

#include <json-c/json.h>

#include <string.h>

#define DEFAULT_MS 30000
#define MAX_MS 600000

static const int refused[] = { 400, 0 };

static void
check_string (const char *s, size_t len, const char *what)
{
  FUZZ_CHECK (s != NULL && s[len] == '\0', what);
}

static bool
same_bytes (const char *a, size_t alen, const char *b, size_t blen)
{
  if (a == NULL || b == NULL)
    return a == b;
  return alen == blen && memcmp (a, b, alen) == 0;
}

static void
put_string_or_null (struct rc_buf *b, bool *first, const char *key, const char *s, size_t len)
{
  rc_json_key (b, first, key);
  if (s == NULL)
    rc_json_null (b);
  else
    rc_json_string (b, s, len);
}

/* The request written back as a body, in the order Codebattle sends it. */
static void
write_back (const struct rc_run_request *r, struct rc_buf *b)
{
  bool first = true;
  rc_buf_append (b, "{", 1);
  put_string_or_null (b, &first, "checker_text", r->checker_text, r->checker_len);
  rc_json_key (b, &first, "lang_slug");
  rc_json_cstring (b, r->lang_slug);
  rc_json_key (b, &first, "solution_text");
  rc_json_string (b, r->solution_text, r->solution_len);
  put_string_or_null (b, &first, "asserts", r->asserts, r->asserts_len);
  if (r->timeout_ms)
    {
      rc_json_key (b, &first, "timeout");
      rc_buf_printf (b, "\"%llums\"", (unsigned long long)r->timeout_ms);
    }
  rc_buf_append (b, "}", 1);
}

static void
check_lang (const struct rc_run_request *r)
{
  static struct rc_lang langs[] = {
    { .slug = (char *)"python", .available = true },
    { .slug = (char *)"cpp", .available = true, .checker_required = true },
    { .slug = (char *)"zig", .available = false },
  };
  static const struct rc_lang_table table = { langs, sizeof langs / sizeof langs[0] };
  const struct rc_lang *l = NULL;
  struct rc_job_limits limits;
  struct rc_config cfg;
  rc_err_t err = NULL;
  int want = 0;

  memset (&cfg, 0, sizeof cfg);
  cfg.timeout_default_ms = DEFAULT_MS;
  cfg.timeout_max_ms = MAX_MS;
  cfg.output_max = 1 << 20;
  if (strcmp (r->lang_slug, "python") != 0 && strcmp (r->lang_slug, "cpp") != 0
      && strcmp (r->lang_slug, "zig") != 0)
    want = 400;
  else if (strcmp (r->lang_slug, "zig") == 0)
    want = 501;
  else if (strcmp (r->lang_slug, "cpp") == 0 && r->checker_text == NULL)
    want = 400;
  else if (r->timeout_ms > MAX_MS)
    want = 400;
  if (rc_run_request_check (r, &cfg, &table, &l, &limits, &err) == 0)
    {
      FUZZ_CHECK (want == 0, "the check accepts only an installed slug and a timeout in bounds");
      FUZZ_CHECK (l != NULL && strcmp (l->slug, r->lang_slug) == 0, "it returns that language");
      FUZZ_CHECK (limits.run.wall_ms == (r->timeout_ms ? r->timeout_ms : DEFAULT_MS),
                  "the job's wall clock is the timeout, or the default");
      return;
    }
  FUZZ_CHECK (err != NULL && err->http_status == want, "the check's status");
  rc_error_free (&err);
}

/* The timeout's JSON string, whole: "5s\u0000x" must be refused as "5sx"
 * is, not read up to the NUL and taken for 5 s (two readers of one body
 * would see two timeouts).  Called for an accepted body only. */
static void
check_timeout_string (const uint8_t *data, size_t size, uint64_t timeout_ms)
{
  struct json_object *root, *t;
  rc_err_t err = NULL;
  uint64_t ms;

  root = rc_json_parse_strict ((const char *)data, size, &err);
  FUZZ_CHECK (root != NULL, "an accepted body is valid JSON");
  if (!json_object_object_get_ex (root, "timeout", &t) || json_object_is_type (t, json_type_null))
    FUZZ_CHECK (timeout_ms == 0, "no timeout is 0");
  else
    {
      FUZZ_CHECK (json_object_is_type (t, json_type_string), "an accepted timeout is a string");
      const char *s = json_object_get_string (t);
      size_t n = (size_t)json_object_get_string_len (t);
      FUZZ_CHECK (memchr (s, '\0', n) == NULL, "an accepted timeout holds no NUL");
      FUZZ_CHECK (rc_parse_duration_ms (s, &ms) == 0 && ms == timeout_ms,
                  "an accepted timeout is the duration its string says");
    }
  json_object_put (root);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct rc_run_request r, again;
  struct rc_buf body = { 0 };
  rc_err_t err = NULL;

  if (rc_run_request_parse ((const char *)data, size, &r, &err) < 0)
    {
      fuzz_check_refusal (&err, refused);
      return 0;
    }
  FUZZ_CHECK (err == NULL, "an accepted request leaves the error empty");
  check_string (r.solution_text, r.solution_len, "solution_text is held with its length");
  FUZZ_CHECK (r.lang_slug != NULL, "an accepted request has a lang_slug");
  if (r.checker_text)
    check_string (r.checker_text, r.checker_len, "checker_text is held with its length");
  if (r.asserts)
    check_string (r.asserts, r.asserts_len, "asserts is held with its length");
  check_timeout_string (data, size, r.timeout_ms);

  check_lang (&r);

  write_back (&r, &body);
  if (rc_run_request_parse (body.data, body.len, &again, &err) < 0)
    {
      fprintf (stderr, "written back: %.*s\nrefused: %s\n", (int)body.len, body.data, err->msg);
      FUZZ_CHECK (0, "an accepted request, written back, is accepted again");
    }
  FUZZ_CHECK (same_bytes (r.solution_text, r.solution_len, again.solution_text, again.solution_len),
              "solution_text survives the round trip");
  FUZZ_CHECK (strcmp (r.lang_slug, again.lang_slug) == 0, "lang_slug survives the round trip");
  FUZZ_CHECK (same_bytes (r.checker_text, r.checker_len, again.checker_text, again.checker_len),
              "checker_text survives the round trip");
  FUZZ_CHECK (same_bytes (r.asserts, r.asserts_len, again.asserts, again.asserts_len),
              "asserts survives the round trip");
  FUZZ_CHECK (r.timeout_ms == again.timeout_ms, "the timeout survives the round trip");
  rc_run_request_free (&again);
  rc_buf_free (&body);
  rc_run_request_free (&r);
  return 0;
}
