/* multipart.c - streaming multipart/form-data parser (see multipart.h).
 *
 * The stream is scanned for the delimiter "\r\n--<boundary>".  A virtual
 * CRLF is put in front of the body so the first delimiter, which RFC 2046
 * allows at the very start, needs no special case.  In a part's content
 * everything but the last (delimiter length - 1) bytes of the window can be
 * handed on at once, since no delimiter can start earlier without having
 * been found; that tail is kept for the next chunk.  Headers are the only
 * thing buffered, up to max_header_bytes.
 */
#include "config.h"

#include "fcgi/sessions/multipart.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum mp_state
{
  MP_PREAMBLE,
  MP_AFTER_DELIM,
  MP_HEADERS,
  MP_BODY,
  MP_EPILOGUE,
  MP_FAILED,
};

struct rc_mp_parser
{
  char delim[4 + RC_MP_BOUNDARY_MAX + 1];
  size_t dlen;
  enum mp_state state;
  char *buf;
  size_t len, cap;
  struct rc_mp_limits limits;
  struct rc_mp_callbacks cbs;
  void *ud;
  size_t parts;
  /* The current part's headers. */
  char *name, *filename, *ctype;
  size_t filename_len;
};

static bool
is_bchar (unsigned char c)
{
  /* RFC 2046 bcharsnospace plus space (not last). */
  return isalnum (c) || strchr ("'()+_,-./:=? ", c) != NULL;
}

static bool
is_tchar (unsigned char c)
{
  return isalnum (c) || (c != 0 && strchr ("!#$%&'*+-.^_`|~", c) != NULL);
}

static bool
boundary_valid (const char *b, size_t n)
{
  if (n == 0 || n > RC_MP_BOUNDARY_MAX || b[n - 1] == ' ')
    return false;
  for (size_t i = 0; i < n; i++)
    if (!is_bchar ((unsigned char)b[i]))
      return false;
  return true;
}

int
rc_mp_boundary (const char *ct, char *out, size_t out_size)
{
  const char *p;
  static const char type[] = "multipart/form-data";

  if (ct == NULL || out_size <= RC_MP_BOUNDARY_MAX)
    return -1;
  while (*ct == ' ' || *ct == '\t')
    ct++;
  if (strncasecmp (ct, type, sizeof type - 1) != 0)
    return -1;
  p = ct + sizeof type - 1;
  while (*p)
    {
      const char *name, *val;
      size_t nlen, vlen = 0;
      char tmp[RC_MP_BOUNDARY_MAX + 1];
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '\0')
        break;
      if (*p != ';')
        return -1;
      p++;
      while (*p == ' ' || *p == '\t')
        p++;
      name = p;
      while (is_tchar ((unsigned char)*p))
        p++;
      nlen = (size_t)(p - name);
      if (nlen == 0 || *p != '=')
        return -1;
      p++;
      if (*p == '"')
        {
          p++;
          while (*p && *p != '"')
            {
              if (*p == '\\' && p[1])
                p++;
              if (vlen >= RC_MP_BOUNDARY_MAX)
                return -1;
              tmp[vlen++] = *p++;
            }
          if (*p != '"')
            return -1;
          p++;
        }
      else
        {
          val = p;
          while (is_tchar ((unsigned char)*p))
            p++;
          vlen = (size_t)(p - val);
          if (vlen > RC_MP_BOUNDARY_MAX)
            return -1;
          memcpy (tmp, val, vlen);
        }
      tmp[vlen] = '\0';
      if (nlen == 8 && strncasecmp (name, "boundary", 8) == 0)
        {
          if (!boundary_valid (tmp, vlen))
            return -1;
          memcpy (out, tmp, vlen + 1);
          return 0;
        }
    }
  return -1;
}

static void
part_reset (struct rc_mp_parser *p)
{
  free (p->name);
  free (p->filename);
  free (p->ctype);
  p->name = p->filename = p->ctype = NULL;
  p->filename_len = 0;
}

struct rc_mp_parser *
rc_mp_new (const char *boundary, const struct rc_mp_limits *limits,
           const struct rc_mp_callbacks *cbs, void *ud)
{
  struct rc_mp_parser *p;
  size_t blen = strlen (boundary);

  if (!boundary_valid (boundary, blen) || limits->max_header_bytes < 16)
    return NULL;
  p = calloc (1, sizeof *p);
  if (p == NULL)
    return NULL;
  memcpy (p->delim, "\r\n--", 4);
  memcpy (p->delim + 4, boundary, blen);
  p->dlen = 4 + blen;
  p->limits = *limits;
  p->cbs = *cbs;
  p->ud = ud;
  p->cap = limits->max_header_bytes + p->dlen + 64;
  p->buf = malloc (p->cap);
  if (p->buf == NULL)
    {
      free (p);
      return NULL;
    }
  memcpy (p->buf, "\r\n", 2);
  p->len = 2;
  p->state = MP_PREAMBLE;
  return p;
}

void
rc_mp_free (struct rc_mp_parser *p)
{
  if (p == NULL)
    return;
  part_reset (p);
  free (p->buf);
  free (p);
}

static int
fail (struct rc_mp_parser *p, const char **why, const char *msg)
{
  if (msg)
    *why = msg;
  p->state = MP_FAILED;
  return -1;
}

static void
consume (struct rc_mp_parser *p, size_t n)
{
  memmove (p->buf, p->buf + n, p->len - n);
  p->len -= n;
}

static int
hexval (unsigned char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  c = (unsigned char)tolower (c);
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* RFC 5987 ext-value, UTF-8 only: UTF-8'<lang>'<pct-encoded>. */
static int
decode_ext_value (const char *v, size_t n, char **out, size_t *out_len)
{
  const char *q1, *q2, *end = v + n;
  char *dst;
  size_t o = 0;

  if (n < 7 || strncasecmp (v, "UTF-8'", 6) != 0)
    return -1;
  q1 = v + 5;
  q2 = memchr (q1 + 1, '\'', (size_t)(end - q1 - 1));
  if (q2 == NULL)
    return -1;
  dst = malloc ((size_t)(end - q2) + 1);
  if (dst == NULL)
    return -1;
  for (const char *s = q2 + 1; s < end; s++)
    {
      if (*s == '%')
        {
          int hi, lo;
          if (end - s < 3 || (hi = hexval ((unsigned char)s[1])) < 0
              || (lo = hexval ((unsigned char)s[2])) < 0)
            {
              free (dst);
              return -1;
            }
          dst[o++] = (char)(hi * 16 + lo);
          s += 2;
        }
      else if (is_tchar ((unsigned char)*s) && *s != '*' && *s != '\'' && *s != '%')
        dst[o++] = *s;
      else
        {
          free (dst);
          return -1;
        }
    }
  dst[o] = '\0';
  *out = dst;
  *out_len = o;
  return 0;
}

static const char *
skip_blanks (const char *s, const char *end)
{
  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  return s;
}

/* A value: a quoted-string (backslash escapes) or a token; malloc'd. */
static char *
param_value (const char **sp, const char *end, size_t *vlen)
{
  const char *s = *sp;
  char *val;
  *vlen = 0;
  if (s < end && *s == '"')
    {
      const char *start = ++s;
      if ((val = malloc ((size_t)(end - start) + 1)) == NULL)
        return NULL;
      while (s < end && *s != '"')
        {
          if (*s == '\\' && s + 1 < end)
            s++;
          val[(*vlen)++] = *s++;
        }
      if (s == end)
        {
          free (val);
          return NULL; /* no closing quote */
        }
      val[*vlen] = '\0';
      *sp = s + 1;
      return val;
    }
  const char *start = s;
  while (s < end && *s != ';' && *s != ' ' && *s != '\t')
    s++;
  *vlen = (size_t)(s - start);
  *sp = s;
  return strndup (start, *vlen);
}

/* The next `; name=value` of a header value: 1 and the parameter, 0 at the
 * end, -1 when malformed. */
static int
next_param (const char **sp, const char *end, const char **pname, size_t *plen, char **val,
            size_t *vlen)
{
  const char *s = skip_blanks (*sp, end);
  if (s == end)
    return 0;
  if (*s != ';')
    return -1;
  s = skip_blanks (s + 1, end);
  *pname = s;
  while (s < end && is_tchar ((unsigned char)*s))
    s++;
  *plen = (size_t)(s - *pname);
  s = skip_blanks (s, end);
  if (*plen == 0 || s == end || *s != '=')
    return -1;
  s = skip_blanks (s + 1, end);
  if ((*val = param_value (&s, end, vlen)) == NULL)
    return -1;
  *sp = s;
  return 1;
}

static bool
param_is (const char *pname, size_t plen, const char *want)
{
  return plen == strlen (want) && strncasecmp (pname, want, plen) == 0;
}

/* Content-Disposition: form-data; name=...; filename=...; filename*=...
 * A name is required; filename* (RFC 5987) wins over filename; a
 * parameter given twice is malformed. */
static int
parse_disposition (struct rc_mp_parser *p, const char *v, size_t n, const char **why)
{
  const char *s, *end = v + n, *pname;
  char *fname_plain = NULL, *fname_ext = NULL, *val;
  size_t fname_plain_len = 0, fname_ext_len = 0, plen, vlen;
  int r;

  if (n < 9 || strncasecmp (v, "form-data", 9) != 0)
    return fail (p, why, "part is not form-data");
  s = v + 9;
  while ((r = next_param (&s, end, &pname, &plen, &val, &vlen)) > 0)
    {
      if (param_is (pname, plen, "name"))
        {
          if (p->name || memchr (val, '\0', vlen))
            r = -1;
          else
            p->name = val, val = NULL;
        }
      else if (param_is (pname, plen, "filename"))
        {
          if (fname_plain)
            r = -1;
          else
            fname_plain = val, fname_plain_len = vlen, val = NULL;
        }
      else if (param_is (pname, plen, "filename*"))
        r = fname_ext ? -1 : decode_ext_value (val, vlen, &fname_ext, &fname_ext_len);
      free (val);
      if (r < 0)
        break;
    }
  if (r < 0 || p->name == NULL)
    {
      free (fname_plain);
      free (fname_ext);
      return fail (p, why,
                   p->name ? "malformed Content-Disposition"
                           : "part without a name in Content-Disposition");
    }
  if (fname_ext)
    {
      free (fname_plain);
      p->filename = fname_ext;
      p->filename_len = fname_ext_len;
    }
  else
    {
      p->filename = fname_plain;
      p->filename_len = fname_plain_len;
    }
  return 0;
}

/* block[0..n) is the header lines, each ending in CRLF. */
static int
parse_headers (struct rc_mp_parser *p, const char *block, size_t n, const char **why)
{
  const char *s = block, *end = block + n;
  bool have_disp = false;

  while (s < end)
    {
      const char *eol = NULL, *colon, *v, *vend;
      for (const char *q = s; q + 1 < end; q++)
        if (q[0] == '\r' && q[1] == '\n')
          {
            eol = q;
            break;
          }
      if (eol == NULL)
        return fail (p, why, "malformed part headers");
      if (s[0] == ' ' || s[0] == '\t')
        return fail (p, why, "folded part headers are not accepted");
      if (memchr (s, '\r', (size_t)(eol - s)) || memchr (s, '\n', (size_t)(eol - s))
          || memchr (s, '\0', (size_t)(eol - s)))
        return fail (p, why, "malformed part headers");
      colon = memchr (s, ':', (size_t)(eol - s));
      if (colon == NULL || colon == s)
        return fail (p, why, "malformed part header line");
      for (const char *q = s; q < colon; q++)
        if (!is_tchar ((unsigned char)*q))
          return fail (p, why, "malformed part header name");
      v = colon + 1;
      while (v < eol && (*v == ' ' || *v == '\t'))
        v++;
      vend = eol;
      while (vend > v && (vend[-1] == ' ' || vend[-1] == '\t'))
        vend--;
      if (colon - s == 19 && strncasecmp (s, "Content-Disposition", 19) == 0)
        {
          if (have_disp)
            return fail (p, why, "duplicate Content-Disposition");
          have_disp = true;
          if (parse_disposition (p, v, (size_t)(vend - v), why) < 0)
            return -1;
        }
      else if (colon - s == 12 && strncasecmp (s, "Content-Type", 12) == 0)
        {
          if (p->ctype)
            return fail (p, why, "duplicate Content-Type");
          p->ctype = strndup (v, (size_t)(vend - v));
          if (p->ctype == NULL)
            return fail (p, why, "out of memory");
        }
      s = eol + 2;
    }
  if (!have_disp)
    return fail (p, why, "part without Content-Disposition");
  return 0;
}

static const char *
find (const char *hay, size_t hlen, const char *needle, size_t nlen)
{
  return memmem (hay, hlen, needle, nlen);
}

/* Consumes what it can of the window; 0 when it needs more input. */
static int
process (struct rc_mp_parser *p, const char **why)
{
  for (;;)
    switch (p->state)
      {
      case MP_PREAMBLE:
      case MP_BODY:
        {
          const char *at = find (p->buf, p->len, p->delim, p->dlen);
          size_t emit;
          if (at)
            {
              emit = (size_t)(at - p->buf);
              if (p->state == MP_BODY)
                {
                  const char *cwhy = NULL;
                  if (emit && p->cbs.part_data (p->ud, p->buf, emit, &cwhy) < 0)
                    return fail (p, why, cwhy ? cwhy : "part refused");
                  if (p->cbs.part_end (p->ud, &cwhy) < 0)
                    return fail (p, why, cwhy ? cwhy : "part refused");
                  part_reset (p);
                }
              consume (p, emit + p->dlen);
              p->state = MP_AFTER_DELIM;
              continue;
            }
          emit = p->len > p->dlen - 1 ? p->len - (p->dlen - 1) : 0;
          if (emit && p->state == MP_BODY)
            {
              const char *cwhy = NULL;
              if (p->cbs.part_data (p->ud, p->buf, emit, &cwhy) < 0)
                return fail (p, why, cwhy ? cwhy : "part refused");
            }
          if (emit)
            consume (p, emit);
          return 0;
        }
      case MP_AFTER_DELIM:
        if (p->len < 2)
          return 0;
        if (p->buf[0] == '-' && p->buf[1] == '-')
          {
            consume (p, 2);
            p->state = MP_EPILOGUE;
            continue;
          }
        if (p->buf[0] != '\r' || p->buf[1] != '\n')
          return fail (p, why, "malformed multipart delimiter");
        consume (p, 2);
        if (p->parts >= p->limits.max_parts)
          return fail (p, why, "too many multipart parts");
        p->state = MP_HEADERS;
        continue;
      case MP_HEADERS:
        {
          const char *at = find (p->buf, p->len, "\r\n\r\n", 4);
          const char *cwhy = NULL;
          struct rc_mp_part part;
          size_t hlen;
          if (p->len >= 2 && p->buf[0] == '\r' && p->buf[1] == '\n')
            return fail (p, why, "part without Content-Disposition");
          if (at == NULL)
            {
              if (p->len > p->limits.max_header_bytes)
                return fail (p, why, "multipart part headers too large");
              return 0;
            }
          hlen = (size_t)(at - p->buf) + 4;
          if (hlen > p->limits.max_header_bytes)
            return fail (p, why, "multipart part headers too large");
          if (parse_headers (p, p->buf, hlen - 2, why) < 0)
            return -1;
          consume (p, hlen);
          p->parts++;
          part.name = p->name;
          part.filename = p->filename;
          part.filename_len = p->filename_len;
          part.content_type = p->ctype;
          if (p->cbs.part_begin (p->ud, &part, &cwhy) < 0)
            return fail (p, why, cwhy ? cwhy : "part refused");
          p->state = MP_BODY;
          continue;
        }
      case MP_EPILOGUE:
        p->len = 0;
        return 0;
      case MP_FAILED:
      default:
        return fail (p, why, NULL);
      }
}

int
rc_mp_feed (struct rc_mp_parser *p, const char *data, size_t len, const char **why)
{
  if (p->state == MP_FAILED)
    {
      *why = "multipart parser already failed";
      return -1;
    }
  while (len > 0)
    {
      size_t n = p->cap - p->len;
      if (n == 0)
        return fail (p, why, "multipart part headers too large");
      if (n > len)
        n = len;
      if (p->state == MP_EPILOGUE)
        return 0; /* the epilogue is ignored (RFC 2046) */
      memcpy (p->buf + p->len, data, n);
      p->len += n;
      data += n;
      len -= n;
      if (process (p, why) < 0)
        return -1;
    }
  return 0;
}

int
rc_mp_finish (struct rc_mp_parser *p, const char **why)
{
  if (p->state == MP_FAILED)
    {
      *why = "multipart parser already failed";
      return -1;
    }
  if (p->state != MP_EPILOGUE)
    return fail (p, why, "multipart body ends before its closing delimiter");
  return 0;
}

int
rc_mp_parse (const char *content_type, const char *body, size_t len,
             const struct rc_mp_limits *limits, const struct rc_mp_callbacks *cbs, void *ud,
             const char **why)
{
  char boundary[RC_MP_BOUNDARY_MAX + 1];
  struct rc_mp_parser *p;
  int r;

  if (rc_mp_boundary (content_type, boundary, sizeof boundary) < 0)
    {
      *why = "expected multipart/form-data with a boundary";
      return -1;
    }
  p = rc_mp_new (boundary, limits, cbs, ud);
  if (p == NULL)
    {
      *why = "out of memory";
      return -1;
    }
  r = rc_mp_feed (p, body, len, why);
  if (r == 0)
    r = rc_mp_finish (p, why);
  rc_mp_free (p);
  return r;
}
