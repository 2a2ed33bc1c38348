/* json_in.c - strict JSON input; see json_in.h. */
#include "config.h"

#include "common/json_in.h"
#include "common/json_out.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* RFC 8259 grammar check.  Records the member count of every object in
 * document order, so the json-c tree can be compared against it: an
 * object with fewer members in the tree had a duplicate key. */
struct scan
{
  const char *p, *end;
  const char *msg;
  size_t *counts, n_counts, cap_counts;
  bool saw_nul; /* the last string scanned held \u0000 */
};

static void
skip_ws (struct scan *s)
{
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
    s->p++;
}

static int
scan_fail (struct scan *s, const char *msg)
{
  if (s->msg == NULL)
    s->msg = msg;
  return -1;
}

static int
scan_string (struct scan *s)
{
  s->p++; /* opening quote */
  s->saw_nul = false;
  while (s->p < s->end)
    {
      unsigned char c = (unsigned char)*s->p++;
      if (c == '"')
        return 0;
      if (c < 0x20)
        return scan_fail (s, "invalid JSON: control character in a string (escape it)");
      if (c != '\\')
        continue;
      if (s->p >= s->end)
        break;
      c = (unsigned char)*s->p++;
      if (c == 'u')
        {
          if ((size_t)(s->end - s->p) >= 4 && memcmp (s->p, "0000", 4) == 0)
            s->saw_nul = true;
          for (int i = 0; i < 4; i++, s->p++)
            if (s->p >= s->end || strchr ("0123456789abcdefABCDEF", *s->p) == NULL || *s->p == 0)
              return scan_fail (s, "invalid JSON: bad \\u escape");
        }
      else if (strchr ("\"\\/bfnrt", c) == NULL || c == 0)
        return scan_fail (s, "invalid JSON: bad escape in a string");
    }
  return scan_fail (s, "invalid JSON: truncated body");
}

static bool
is_digit (const struct scan *s)
{
  return s->p < s->end && *s->p >= '0' && *s->p <= '9';
}

static int
scan_number (struct scan *s)
{
  if (*s->p == '-')
    s->p++;
  if (!is_digit (s))
    return scan_fail (s, "invalid JSON: bad number");
  if (*s->p == '0')
    s->p++;
  else
    while (is_digit (s))
      s->p++;
  if (s->p < s->end && *s->p == '.')
    {
      s->p++;
      if (!is_digit (s))
        return scan_fail (s, "invalid JSON: bad number");
      while (is_digit (s))
        s->p++;
    }
  if (s->p < s->end && (*s->p == 'e' || *s->p == 'E'))
    {
      s->p++;
      if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
        s->p++;
      if (!is_digit (s))
        return scan_fail (s, "invalid JSON: bad number");
      while (is_digit (s))
        s->p++;
    }
  return 0;
}

static int scan_value (struct scan *s, int depth);

static int
scan_object (struct scan *s, int depth)
{
  size_t slot, members = 0;
  if (s->n_counts == s->cap_counts)
    {
      size_t cap = s->cap_counts ? s->cap_counts * 2 : 16;
      size_t *n = realloc (s->counts, cap * sizeof *n);
      if (n == NULL)
        return scan_fail (s, "out of memory");
      s->counts = n;
      s->cap_counts = cap;
    }
  slot = s->n_counts++;
  s->p++; /* '{' */
  skip_ws (s);
  if (s->p < s->end && *s->p == '}')
    {
      s->p++;
      s->counts[slot] = 0;
      return 0;
    }
  for (;;)
    {
      skip_ws (s);
      if (s->p >= s->end)
        return scan_fail (s, "invalid JSON: truncated body");
      if (*s->p != '"')
        return scan_fail (s, "invalid JSON: object keys must be double-quoted strings "
                             "(no trailing comma, no comments)");
      if (scan_string (s) < 0)
        return -1;
      /* json-c keys are C strings: "lang_slug\u0000x" would become
       * "lang_slug" and smuggle a second value past the duplicate check. */
      if (s->saw_nul)
        return scan_fail (s, "invalid JSON: NUL (\\u0000) in an object key");
      skip_ws (s);
      if (s->p >= s->end || *s->p != ':')
        return scan_fail (s, s->p >= s->end ? "invalid JSON: truncated body"
                                            : "invalid JSON: expected ':' after a key");
      s->p++;
      if (scan_value (s, depth) < 0)
        return -1;
      members++;
      skip_ws (s);
      if (s->p >= s->end)
        return scan_fail (s, "invalid JSON: truncated body");
      if (*s->p == '}')
        {
          s->p++;
          s->counts[slot] = members;
          return 0;
        }
      if (*s->p != ',')
        return scan_fail (s, "invalid JSON: expected ',' or '}' in an object");
      s->p++;
    }
}

static int
scan_array (struct scan *s, int depth)
{
  s->p++; /* '[' */
  skip_ws (s);
  if (s->p < s->end && *s->p == ']')
    {
      s->p++;
      return 0;
    }
  for (;;)
    {
      if (scan_value (s, depth) < 0)
        return -1;
      skip_ws (s);
      if (s->p >= s->end)
        return scan_fail (s, "invalid JSON: truncated body");
      if (*s->p == ']')
        {
          s->p++;
          return 0;
        }
      if (*s->p != ',')
        return scan_fail (s, "invalid JSON: expected ',' or ']' in an array");
      s->p++;
    }
}

static int
scan_literal (struct scan *s, const char *word)
{
  size_t n = strlen (word);
  if ((size_t)(s->end - s->p) < n || memcmp (s->p, word, n) != 0)
    return scan_fail (s, "invalid JSON: unexpected character (single quotes, comments, NaN "
                         "and bare words are not JSON)");
  s->p += n;
  return 0;
}

static int
scan_value (struct scan *s, int depth)
{
  skip_ws (s);
  if (s->p >= s->end)
    return scan_fail (s, "invalid JSON: truncated body");
  if (depth >= RC_JSON_MAX_DEPTH && (*s->p == '{' || *s->p == '['))
    return scan_fail (s, "invalid JSON: nested too deeply");
  switch (*s->p)
    {
    case '{':
      return scan_object (s, depth + 1);
    case '[':
      return scan_array (s, depth + 1);
    case '"':
      return scan_string (s);
    case 't':
      return scan_literal (s, "true");
    case 'f':
      return scan_literal (s, "false");
    case 'n':
      return scan_literal (s, "null");
    default:
      if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
        return scan_number (s);
      return scan_literal (s, "\x01"); /* always fails, with the bare-word message */
    }
}

/* Walks the tree in document order (json-c keeps insertion order) and
 * compares each object's size with the scanned member count. */
static bool
same_counts (struct json_object *o, const size_t *counts, size_t n, size_t *i)
{
  if (json_object_is_type (o, json_type_object))
    {
      if (*i >= n || (size_t)json_object_object_length (o) != counts[(*i)++])
        return false;
      json_object_object_foreach (o, key, val)
      {
        (void)key;
        if (!same_counts (val, counts, n, i))
          return false;
      }
    }
  else if (json_object_is_type (o, json_type_array))
    {
      size_t len = json_object_array_length (o);
      for (size_t k = 0; k < len; k++)
        if (!same_counts (json_object_array_get_idx (o, k), counts, n, i))
          return false;
    }
  return true;
}

struct json_object *
rc_json_parse_strict (const char *body, size_t len, rc_err_t *err)
{
  struct scan s = { .p = body, .end = body + len };
  struct json_tokener *tok;
  struct json_object *root;
  size_t i = 0;

  if (len == 0)
    {
      rc_error_http (err, 400, "invalid JSON: empty body");
      return NULL;
    }
  if (len > (size_t)INT32_MAX)
    {
      rc_error_http (err, 400, "invalid JSON: body too large");
      return NULL;
    }
  /* A NUL byte is never valid JSON text (inside strings it must be
   * escaped); said apart because json-c would stop at it. */
  if (memchr (body, '\0', len) != NULL)
    {
      rc_error_http (err, 400, "invalid JSON: NUL byte in body");
      return NULL;
    }
  /* RFC 8259 text is UTF-8; json-c's own check lets overlong forms
   * through, so the whole body is validated here (one linear pass). */
  if (rc_utf8_valid_prefix (body, len) != len)
    {
      rc_error_http (err, 400, "invalid JSON: invalid UTF-8");
      return NULL;
    }
  if (scan_value (&s, 0) == 0)
    {
      skip_ws (&s);
      if (s.p != s.end)
        scan_fail (&s, "invalid JSON: trailing data after the document");
    }
  if (s.msg != NULL)
    {
      rc_error_http (err, 400, "%s", s.msg);
      free (s.counts);
      return NULL;
    }
  tok = json_tokener_new_ex (RC_JSON_MAX_DEPTH + 1);
  if (tok == NULL)
    {
      free (s.counts);
      rc_error_set (err, ENOMEM, "out of memory");
      return NULL;
    }
  json_tokener_set_flags (tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
  root = json_tokener_parse_ex (tok, body, (int)len);
  /* A top-level number has no end mark of its own: a NUL ends it. */
  if (root == NULL && json_tokener_get_error (tok) == json_tokener_continue)
    root = json_tokener_parse_ex (tok, "", 1);
  if (root == NULL && json_tokener_get_error (tok) == json_tokener_success)
    rc_error_http (err, 400, "request body must be a JSON object"); /* the document is null */
  else if (root == NULL || json_tokener_get_error (tok) != json_tokener_success)
    {
      /* The grammar check passed, so this is json-c refusing something
       * valid (or running out of memory): still the client's 400. */
      rc_error_http (err, 400, "invalid JSON");
      json_object_put (root);
      root = NULL;
    }
  else if (!same_counts (root, s.counts, s.n_counts, &i) || i != s.n_counts)
    {
      rc_error_http (err, 400, "invalid JSON: duplicate key in an object");
      json_object_put (root);
      root = NULL;
    }
  json_tokener_free (tok);
  free (s.counts);
  return root;
}

const char *
rc_json_get_name (struct json_object *o, size_t *len, bool *has_nul)
{
  const char *s;
  size_t n;
  *has_nul = false;
  if (o == NULL || !json_object_is_type (o, json_type_string))
    return NULL;
  s = json_object_get_string (o);
  n = (size_t)json_object_get_string_len (o);
  if (memchr (s, '\0', n) != NULL)
    {
      *has_nul = true;
      return NULL;
    }
  if (len)
    *len = n;
  return s;
}

struct json_object *
rc_json_parse_object (const char *body, size_t len, rc_err_t *err)
{
  struct json_object *root = rc_json_parse_strict (body, len, err);
  if (root != NULL && !json_object_is_type (root, json_type_object))
    {
      json_object_put (root);
      rc_error_http (err, 400, "request body must be a JSON object");
      return NULL;
    }
  return root;
}

int
rc_json_known_fields (struct json_object *obj, const char *where, const char *const *known,
                      rc_err_t *err)
{
  json_object_object_foreach (obj, key, val)
  {
    bool found = false;
    (void)val;
    for (size_t i = 0; known[i] && !found; i++)
      found = strcmp (key, known[i]) == 0;
    if (!found)
      return rc_error_http (err, 400, "%s%s%s is not a known field", where, *where ? "." : "", key);
  }
  return 0;
}
