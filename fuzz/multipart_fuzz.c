/* multipart_fuzz.c - libFuzzer target for the streaming multipart/form-data
 * parser of the sessions API (fcgi/sessions/multipart.c).
 *
 * Input layout: byte 0 picks the chunk size the body is fed in (1..256),
 * byte 1 the header limit; up to the first '\n' after that is a
 * Content-Type (so rc_mp_boundary is fuzzed too), the rest is the body.
 * Promises checked:
 *  - the callbacks come in order (begin, data..., end), only inside a
 *    part, at most max_parts times, with a name and a consistent filename;
 *  - every refusal says why, and a finished body has no open part;
 *  - the chunking does not matter: the body fed in one piece gives the
 *    same verdict and, when accepted, the same parts with the same bytes;
 *  - an accepted body round-trips: its parts written out again as
 *    multipart/form-data (quoted name, filename* for the file name) and
 *    parsed give the same parts.
 */
#include "config.h"

#include "fcgi/sessions/multipart.h"
#include "fuzz/fuzz.h"

#include <stdbool.h>
#include <string.h>

struct part
{
  char *name, *filename, *ctype;
  size_t filename_len;
  char *data;
  size_t len;
};

struct trace
{
  int in_part;
  size_t max_parts;
  struct part *parts;
  size_t n;
};

static char *
dup_bytes (const char *s, size_t n)
{
  char *d = malloc (n + 1);
  FUZZ_CHECK (d != NULL, "memory");
  memcpy (d, s, n);
  d[n] = '\0';
  return d;
}

static int
begin (void *ud, const struct rc_mp_part *p, const char **why)
{
  struct trace *t = ud;
  struct part *grown;
  (void)why;
  FUZZ_CHECK (!t->in_part, "a part begins only after the previous one ended");
  FUZZ_CHECK (p->name != NULL, "a part has a name");
  FUZZ_CHECK (p->filename != NULL || p->filename_len == 0, "no filename length without a filename");
  FUZZ_CHECK (p->filename == NULL || p->filename[p->filename_len] == '\0',
              "the filename is held with its length");
  FUZZ_CHECK (t->n < t->max_parts, "parts are bounded by the limit");
  grown = realloc (t->parts, (t->n + 1) * sizeof *grown);
  FUZZ_CHECK (grown != NULL, "memory");
  t->parts = grown;
  memset (&grown[t->n], 0, sizeof *grown);
  grown[t->n].name = dup_bytes (p->name, strlen (p->name));
  if (p->filename)
    {
      grown[t->n].filename = dup_bytes (p->filename, p->filename_len);
      grown[t->n].filename_len = p->filename_len;
    }
  if (p->content_type)
    grown[t->n].ctype = dup_bytes (p->content_type, strlen (p->content_type));
  t->n++;
  t->in_part = 1;
  return 0;
}

static int
data (void *ud, const char *d, size_t n, const char **why)
{
  struct trace *t = ud;
  struct part *p;
  (void)why;
  FUZZ_CHECK (t->in_part, "data comes only inside a part");
  FUZZ_CHECK (n > 0 && d != NULL, "data callbacks carry bytes");
  p = &t->parts[t->n - 1];
  p->data = realloc (p->data, p->len + n);
  FUZZ_CHECK (p->data != NULL, "memory");
  memcpy (p->data + p->len, d, n);
  p->len += n;
  return 0;
}

static int
end (void *ud, const char **why)
{
  struct trace *t = ud;
  (void)why;
  FUZZ_CHECK (t->in_part, "a part ends only after it began");
  t->in_part = 0;
  return 0;
}

static void
trace_free (struct trace *t)
{
  for (size_t i = 0; i < t->n; i++)
    {
      free (t->parts[i].name);
      free (t->parts[i].filename);
      free (t->parts[i].ctype);
      free (t->parts[i].data);
    }
  free (t->parts);
  memset (t, 0, sizeof *t);
}

static bool
same_str (const char *a, const char *b)
{
  return (a == NULL || b == NULL) ? a == b : strcmp (a, b) == 0;
}

static void
check_same_parts (const struct trace *a, const struct trace *b, const char *what)
{
  FUZZ_CHECK (a->n == b->n, what);
  for (size_t i = 0; i < a->n; i++)
    {
      const struct part *x = &a->parts[i], *y = &b->parts[i];
      FUZZ_CHECK (strcmp (x->name, y->name) == 0, what);
      FUZZ_CHECK ((x->filename == NULL) == (y->filename == NULL), what);
      FUZZ_CHECK (
          x->filename_len == y->filename_len
              && (x->filename == NULL || memcmp (x->filename, y->filename, x->filename_len) == 0),
          what);
      FUZZ_CHECK (same_str (x->ctype, y->ctype), what);
      FUZZ_CHECK (x->len == y->len && (x->len == 0 || memcmp (x->data, y->data, x->len) == 0),
                  what);
    }
}

/* Parses body with the given chunk size; 0 or -1 as rc_mp_feed/finish. */
static int
parse (const char *boundary, const struct rc_mp_limits *limits, const char *body, size_t len,
       size_t chunk, struct trace *t)
{
  static const struct rc_mp_callbacks cbs = { begin, data, end };
  struct rc_mp_parser *p;
  const char *why = NULL;
  int r = 0;

  memset (t, 0, sizeof *t);
  t->max_parts = limits->max_parts;
  p = rc_mp_new (boundary, limits, &cbs, t);
  FUZZ_CHECK (p != NULL, "a valid boundary makes a parser");
  for (size_t off = 0; r == 0 && off < len; off += chunk)
    r = rc_mp_feed (p, body + off, len - off < chunk ? len - off : chunk, &why);
  if (r == 0)
    r = rc_mp_finish (p, &why);
  FUZZ_CHECK (r == 0 || why != NULL, "every refusal says why");
  FUZZ_CHECK (r < 0 || !t->in_part, "a finished body has no open part");
  rc_mp_free (p);
  return r;
}

static void
append (char **b, size_t *len, size_t *cap, const char *s, size_t n)
{
  if (*len + n > *cap)
    {
      *cap = (*len + n) * 2;
      *b = realloc (*b, *cap);
      FUZZ_CHECK (*b != NULL, "memory");
    }
  memcpy (*b + *len, s, n);
  *len += n;
}

static void
append_str (char **b, size_t *len, size_t *cap, const char *s)
{
  append (b, len, cap, s, strlen (s));
}

/* A quoted-string: '"' and '\' escaped with a backslash. */
static void
append_quoted (char **b, size_t *len, size_t *cap, const char *s)
{
  append_str (b, len, cap, "\"");
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        append_str (b, len, cap, "\\");
      append (b, len, cap, s, 1);
    }
  append_str (b, len, cap, "\"");
}

/* The parts written out again: the parser's own reading, as a client would
 * send it. */
static char *
write_back (const struct trace *t, const char *boundary, size_t *out_len)
{
  static const char hex[] = "0123456789ABCDEF";
  char *b = NULL;
  size_t len = 0, cap = 0;
  for (size_t i = 0; i < t->n; i++)
    {
      const struct part *p = &t->parts[i];
      append_str (&b, &len, &cap, "--");
      append_str (&b, &len, &cap, boundary);
      append_str (&b, &len, &cap, "\r\nContent-Disposition: form-data; name=");
      append_quoted (&b, &len, &cap, p->name);
      if (p->filename)
        {
          append_str (&b, &len, &cap, "; filename*=UTF-8''");
          for (size_t k = 0; k < p->filename_len; k++)
            {
              unsigned char c = (unsigned char)p->filename[k];
              char esc[3] = { '%', hex[c >> 4], hex[c & 15] };
              if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
                append (&b, &len, &cap, (const char *)&c, 1);
              else
                append (&b, &len, &cap, esc, 3);
            }
        }
      append_str (&b, &len, &cap, "\r\n");
      if (p->ctype)
        {
          append_str (&b, &len, &cap, "Content-Type: ");
          append_str (&b, &len, &cap, p->ctype);
          append_str (&b, &len, &cap, "\r\n");
        }
      append_str (&b, &len, &cap, "\r\n");
      if (p->len)
        append (&b, &len, &cap, p->data, p->len);
      append_str (&b, &len, &cap, "\r\n");
    }
  append_str (&b, &len, &cap, "--");
  append_str (&b, &len, &cap, boundary);
  append_str (&b, &len, &cap, "--\r\n");
  *out_len = len;
  return b;
}

int
LLVMFuzzerTestOneInput (const uint8_t *buf, size_t len)
{
  struct rc_mp_limits limits;
  char ct[512], boundary[RC_MP_BOUNDARY_MAX + 1];
  const uint8_t *nl;
  size_t chunk, ctlen;
  struct trace chunked, whole;
  int r1, r2;

  if (len < 3)
    return 0;
  chunk = (size_t)buf[0] + 1;
  limits.max_parts = 16;
  limits.max_header_bytes = 64 + (size_t)buf[1] * 8;
  buf += 2;
  len -= 2;
  nl = memchr (buf, '\n', len < sizeof ct - 1 ? len : sizeof ct - 1);
  if (nl == NULL)
    return 0;
  ctlen = (size_t)(nl - buf);
  memcpy (ct, buf, ctlen);
  ct[ctlen] = '\0';
  buf = nl + 1;
  len -= ctlen + 1;
  if (rc_mp_boundary (ct, boundary, sizeof boundary) < 0)
    return 0;
  FUZZ_CHECK (strlen (boundary) > 0 && strlen (boundary) <= RC_MP_BOUNDARY_MAX,
              "a boundary is 1..70 bytes");

  r1 = parse (boundary, &limits, (const char *)buf, len, chunk, &chunked);
  r2 = parse (boundary, &limits, (const char *)buf, len, len ? len : 1, &whole);
  FUZZ_CHECK (r1 == r2, "the chunking does not change the verdict");
  if (r1 == 0)
    {
      struct trace again;
      size_t blen;
      char *body;
      check_same_parts (&chunked, &whole, "the chunking does not change the parts");
      /* The round trip needs room for the longer headers it writes. */
      limits.max_header_bytes = 16384;
      body = write_back (&whole, boundary, &blen);
      if (parse (boundary, &limits, body, blen, blen, &again) < 0)
        {
          fprintf (stderr, "written back:\n%.*s\n", (int)blen, body);
          FUZZ_CHECK (0, "accepted parts, written back, are accepted again");
        }
      check_same_parts (&whole, &again, "accepted parts round-trip");
      trace_free (&again);
      free (body);
    }
  trace_free (&chunked);
  trace_free (&whole);
  return 0;
}
