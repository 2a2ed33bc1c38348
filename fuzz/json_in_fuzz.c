/* json_in_fuzz.c - libFuzzer target for the strict JSON reader every JSON
 * request body goes through (common/json_in.c, rc_json_parse_strict) and
 * its name helper (rc_json_get_name).
 *
 * The input is a body.  Promises checked:
 *  - a refusal is a 400 whose message says what is wrong;
 *  - an accepted body holds no NUL byte and is valid UTF-8, as
 *    docs/design.md requires, and json-c alone reads it too;
 *  - an accepted object or array ends at its last non-blank byte: cut one
 *    byte short, or with a byte added after it, it is refused;
 *  - it re-validates: the tree written back by json-c is accepted again
 *    and is the same tree (numbers that do not survive writing, such as
 *    1e999, are left out of that comparison);
 *  - rc_json_get_name returns a string exactly when it has no U+0000.
 */
#include "config.h"

#include "common/json_in.h"
#include "common/json_out.h"
#include "fuzz/fuzz.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

static const int refused[] = { 400, 0 };

/* True when every number in the tree is written back as itself. */
static bool
writes_back_exactly (struct json_object *o)
{
  switch (json_object_get_type (o))
    {
    case json_type_double:
      return isfinite (json_object_get_double (o));
    case json_type_object:
      {
        json_object_object_foreach (o, key, val)
        {
          (void)key;
          if (!writes_back_exactly (val))
            return false;
        }
        return true;
      }
    case json_type_array:
      for (size_t i = 0; i < json_object_array_length (o); i++)
        if (!writes_back_exactly (json_object_array_get_idx (o, i)))
          return false;
      return true;
    case json_type_null:
    case json_type_boolean:
    case json_type_int:
    case json_type_string:
    default:
      return true;
    }
}

static void
check_names (struct json_object *o, int depth)
{
  FUZZ_CHECK (depth <= RC_JSON_MAX_DEPTH, "the tree is no deeper than the limit");
  switch (json_object_get_type (o))
    {
    case json_type_string:
      {
        bool has_nul = true;
        size_t len = 0;
        const char *s = json_object_get_string (o);
        size_t n = (size_t)json_object_get_string_len (o);
        const char *name = rc_json_get_name (o, &len, &has_nul);
        bool nul = memchr (s, '\0', n) != NULL;
        FUZZ_CHECK (has_nul == nul, "rc_json_get_name tells a NUL inside");
        FUZZ_CHECK ((name != NULL) == !nul, "rc_json_get_name returns exactly the names");
        if (name)
          FUZZ_CHECK (len == n && strlen (name) == n, "a name's length");
        FUZZ_CHECK (rc_utf8_valid_prefix (s, n) == n, "a decoded string is valid UTF-8");
        break;
      }
    case json_type_object:
      {
        json_object_object_foreach (o, key, val)
        {
          (void)key;
          check_names (val, depth + 1);
        }
        break;
      }
    case json_type_array:
      for (size_t i = 0; i < json_object_array_length (o); i++)
        check_names (json_object_array_get_idx (o, i), depth + 1);
      break;
    case json_type_null:
    case json_type_boolean:
    case json_type_int:
    case json_type_double:
    default:
      {
        bool has_nul = true;
        FUZZ_CHECK (rc_json_get_name (o, NULL, &has_nul) == NULL && !has_nul,
                    "rc_json_get_name refuses what is not a string");
      }
      break;
    }
}

static void
expect_refused (const char *body, size_t len, const char *what)
{
  rc_err_t err = NULL;
  struct json_object *o = rc_json_parse_strict (body, len, &err);
  if (o != NULL)
    fprintf (stderr, "accepted: %.*s\n", (int)len, body);
  FUZZ_CHECK (o == NULL, what);
  fuzz_check_refusal (&err, refused);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *body = (const char *)data;
  struct json_object *root, *again, *loose;
  rc_err_t err = NULL;
  size_t end;

  root = rc_json_parse_strict (body, size, &err);
  if (root == NULL)
    {
      fuzz_check_refusal (&err, refused);
      return 0;
    }
  FUZZ_CHECK (err == NULL, "an accepted body leaves the error empty");
  FUZZ_CHECK (memchr (body, '\0', size) == NULL, "an accepted body holds no NUL byte");
  FUZZ_CHECK (rc_utf8_valid_prefix (body, size) == size, "an accepted body is valid UTF-8");
  check_names (root, 0);

  {
    struct json_tokener *tok = json_tokener_new_ex (RC_JSON_MAX_DEPTH + 1);
    FUZZ_CHECK (tok != NULL, "memory");
    loose = json_tokener_parse_ex (tok, body, (int)size);
    if (loose == NULL && json_tokener_get_error (tok) == json_tokener_continue)
      loose = json_tokener_parse_ex (tok, "", 1);
    FUZZ_CHECK (json_tokener_get_error (tok) == json_tokener_success,
                "json-c alone reads an accepted body");
    FUZZ_CHECK (json_object_equal (root, loose), "and reads the same tree");
    json_object_put (loose);
    json_tokener_free (tok);
  }

  /* An object or array ends with its closing bracket, so no proper prefix
   * of it is JSON, and nothing but blanks may follow it. */
  end = size;
  while (end > 0 && strchr (" \t\r\n", body[end - 1]) != NULL)
    end--;
  if (json_object_is_type (root, json_type_object) || json_object_is_type (root, json_type_array))
    {
      char *more = malloc (size + 2);
      FUZZ_CHECK (more != NULL, "memory");
      expect_refused (body, end - 1, "a cut object or array is refused");
      memcpy (more, body, size);
      memcpy (more + size, "1", 1);
      expect_refused (more, size + 1, "trailing data after an object or array is refused");
      free (more);
    }

  if (writes_back_exactly (root))
    {
      size_t n;
      const char *text = json_object_to_json_string_length (
          root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
      again = rc_json_parse_strict (text, n, &err);
      if (again == NULL)
        fprintf (stderr, "written back: %.*s\nrefused: %s\n", (int)n, text, err->msg);
      FUZZ_CHECK (again != NULL, "an accepted body, written back, is accepted again");
      FUZZ_CHECK (json_object_equal (root, again), "and is the same tree");
      json_object_put (again);
    }
  json_object_put (root);
  return 0;
}
