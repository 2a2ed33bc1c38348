/* json_out_test.c - the JSON writer: escaping and UTF-8 repair.  Every
 * output is re-parsed with json-c to prove it is valid JSON. */
#include <config.h>

#include "common/json_out.h"
#include "t/unit/tap.h"

#include <json-c/json.h>
#include <string.h>

static void
roundtrip (const char *in, size_t len, const char *want, size_t want_len, const char *what)
{
  struct rc_buf b = { 0 };
  struct json_tokener *tok = json_tokener_new ();
  struct json_object *o;
  json_tokener_set_flags (tok, JSON_TOKENER_VALIDATE_UTF8 | JSON_TOKENER_STRICT);
  rc_json_string (&b, in, len);
  o = json_tokener_parse_ex (tok, b.data, (int) b.len);
  tap_ok (o != NULL && json_object_is_type (o, json_type_string)
              && (size_t) json_object_get_string_len (o) == want_len
              && memcmp (json_object_get_string (o), want, want_len) == 0,
          "%s: %s", what, b.data);
  json_object_put (o);
  json_tokener_free (tok);
  rc_buf_free (&b);
}

int
main (void)
{
  roundtrip ("hello", 5, "hello", 5, "plain ASCII");
  roundtrip ("a\"b\\c\n\t\r", 8, "a\"b\\c\n\t\r", 8, "quotes, backslash, whitespace escapes");
  roundtrip ("\x01\x1f", 2, "\x01\x1f", 2, "control characters as \\u00XX");
  roundtrip ("a\0b", 3, "a\0b", 3, "NUL byte as \\u0000");
  roundtrip ("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
             14, "valid multi-byte UTF-8 is kept");
  roundtrip ("x\xffy", 3, "x\xef\xbf\xbdy", 5, "invalid byte becomes U+FFFD");
  roundtrip ("\xc3", 1, "\xef\xbf\xbd", 3, "truncated sequence at the end");
  roundtrip ("\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 9,
             "encoded surrogate is replaced");
  roundtrip ("\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd", 6, "overlong encoding is replaced");
  tap_ok (rc_utf8_valid_prefix ("ab\xc3\xa9\xff", 5) == 4, "valid prefix length");
  return tap_done ();
}
