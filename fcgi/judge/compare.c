/* compare.c - the comparison modes; see compare.h.  Pure functions over
 * byte ranges: no allocation, no locale (a number is C's). */
#include "config.h"

#include "fcgi/judge/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* A cursor over one text, by lines or by tokens. */
struct cursor
{
  const char *p, *end;
};

/* The next line without its trailing whitespace; false at the end.  A
 * last line without '\n' counts; the empty rest after a final '\n' does
 * not. */
static bool
next_line (struct cursor *c, const char **s, size_t *n)
{
  const char *nl, *e;
  if (c->p >= c->end)
    return false;
  nl = memchr (c->p, '\n', (size_t)(c->end - c->p));
  e = nl ? nl : c->end;
  *s = c->p;
  while (e > *s && is_space (e[-1]))
    e--;
  *n = (size_t)(e - *s);
  c->p = nl ? nl + 1 : c->end;
  return true;
}

/* True when only blank lines are left. */
static bool
only_blank (const struct cursor *c)
{
  for (const char *p = c->p; p < c->end; p++)
    if (!is_space (*p))
      return false;
  return true;
}

static bool
equal_lines (const char *a, size_t an, const char *b, size_t bn)
{
  struct cursor ca = { a, a + an }, cb = { b, b + bn };
  for (;;)
    {
      const char *sa, *sb;
      size_t na, nb;
      /* Trailing blank lines on either side are no difference. */
      if (only_blank (&ca) || only_blank (&cb))
        return only_blank (&ca) && only_blank (&cb);
      if (!next_line (&ca, &sa, &na) || !next_line (&cb, &sb, &nb))
        return false;
      if (na != nb || memcmp (sa, sb, na) != 0)
        return false;
    }
}

static bool
next_token (struct cursor *c, const char **s, size_t *n)
{
  while (c->p < c->end && is_space (*c->p))
    c->p++;
  if (c->p >= c->end)
    return false;
  *s = c->p;
  while (c->p < c->end && !is_space (*c->p))
    c->p++;
  *n = (size_t)(c->p - *s);
  return true;
}

/* A token that is a finite decimal number as a contestant would print it
 * ("-1", "3.25", "1e-9"; not "nan", "inf" or hexadecimal). */
static bool
token_number (const char *s, size_t n, double *v)
{
  char buf[128], *end;
  bool digit = false;
  if (n == 0 || n >= sizeof buf)
    return false;
  for (size_t i = 0; i < n; i++)
    {
      char ch = s[i];
      if (ch >= '0' && ch <= '9')
        digit = true;
      else if (!strchr ("+-.eE", ch))
        return false;
    }
  if (!digit)
    return false;
  memcpy (buf, s, n);
  buf[n] = '\0';
  *v = strtod (buf, &end);
  return *end == '\0' && isfinite (*v);
}

static bool
close_enough (double out, double exp, double eps)
{
  double d = fabs (out - exp);
  /* A small margin for the decimal round trip of eps itself. */
  double slack = eps * 1e-9;
  return d <= eps + slack || d <= eps * fabs (exp) + slack * fabs (exp);
}

static bool
equal_tokens (const char *a, size_t an, const char *b, size_t bn, bool numeric, double eps)
{
  struct cursor ca = { a, a + an }, cb = { b, b + bn };
  for (;;)
    {
      const char *sa, *sb;
      size_t na, nb;
      bool ha = next_token (&ca, &sa, &na), hb = next_token (&cb, &sb, &nb);
      double va, vb;
      if (!ha || !hb)
        return ha == hb;
      if (na == nb && memcmp (sa, sb, na) == 0)
        continue;
      if (!numeric || !token_number (sa, na, &va) || !token_number (sb, nb, &vb)
          || !close_enough (va, vb, eps))
        return false;
    }
}

bool
rc_compare_equal (const struct rc_compare *c, const char *out, size_t out_len, const char *expected,
                  size_t expected_len)
{
  switch (c->mode)
    {
    case RC_COMPARE_EXACT:
      return out_len == expected_len && memcmp (out, expected, out_len) == 0;
    case RC_COMPARE_TOKENS:
      return equal_tokens (out, out_len, expected, expected_len, false, 0);
    case RC_COMPARE_FLOAT:
      return equal_tokens (out, out_len, expected, expected_len, true, c->eps);
    case RC_COMPARE_LINES:
    default:
      return equal_lines (out, out_len, expected, expected_len);
    }
}

enum rc_compare_result
rc_compare (const struct rc_compare *c, const char *out, size_t out_len, const char *expected,
            size_t expected_len)
{
  static const struct rc_compare tokens = { RC_COMPARE_TOKENS, 0 };
  if (rc_compare_equal (c, out, out_len, expected, expected_len))
    return RC_COMPARE_EQUAL;
  if ((c->mode == RC_COMPARE_EXACT || c->mode == RC_COMPARE_LINES)
      && rc_compare_equal (&tokens, out, out_len, expected, expected_len))
    return RC_COMPARE_PRESENTATION;
  return RC_COMPARE_DIFFERENT;
}
