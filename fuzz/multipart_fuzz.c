/* multipart_fuzz.c - libFuzzer target for the multipart/form-data parser
 * (fcgi/sessions/multipart.c).
 *
 * Input layout: byte 0 picks the chunk size the body is fed in (1..256),
 * byte 1 the header limit; up to the first '\n' after that is a
 * Content-Type (so rc_mp_boundary is fuzzed too), the rest is the body.
 * The callbacks check the parser's promises: data only inside a part,
 * parts bounded by the limit, filename_len consistent.  Any breach aborts.
 */
#include "config.h"

#include "fcgi/sessions/multipart.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct state
{
  int in_part;
  size_t parts, max_parts;
};

static int
begin (void *ud, const struct rc_mp_part *p, const char **why)
{
  struct state *s = ud;
  (void)why;
  if (s->in_part || p->name == NULL || (p->filename == NULL && p->filename_len != 0))
    abort ();
  if (++s->parts > s->max_parts)
    abort ();
  s->in_part = 1;
  return 0;
}

static int
data (void *ud, const char *d, size_t n, const char **why)
{
  struct state *s = ud;
  (void)why;
  if (!s->in_part || (n > 0 && d == NULL))
    abort ();
  return 0;
}

static int
end (void *ud, const char **why)
{
  struct state *s = ud;
  (void)why;
  if (!s->in_part)
    abort ();
  s->in_part = 0;
  return 0;
}

int LLVMFuzzerTestOneInput (const uint8_t *buf, size_t len);

int
LLVMFuzzerTestOneInput (const uint8_t *buf, size_t len)
{
  static const struct rc_mp_callbacks cbs = { begin, data, end };
  struct rc_mp_limits limits;
  char ct[512], boundary[RC_MP_BOUNDARY_MAX + 1];
  const uint8_t *nl;
  size_t chunk, ctlen;
  struct rc_mp_parser *p;
  struct state st = { 0, 0, 0 };
  const char *why = NULL;
  int r = 0;

  if (len < 3)
    return 0;
  chunk = (size_t)buf[0] + 1;
  limits.max_parts = 16;
  limits.max_header_bytes = 64 + (size_t)buf[1] * 8;
  st.max_parts = limits.max_parts;
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
  if (strlen (boundary) == 0 || strlen (boundary) > RC_MP_BOUNDARY_MAX)
    abort ();
  p = rc_mp_new (boundary, &limits, &cbs, &st);
  if (p == NULL)
    return 0;
  for (size_t off = 0; r == 0 && off < len; off += chunk)
    r = rc_mp_feed (p, (const char *)buf + off, len - off < chunk ? len - off : chunk, &why);
  if (r == 0)
    r = rc_mp_finish (p, &why);
  if (r < 0 && why == NULL)
    abort (); /* every refusal says why */
  if (r == 0 && st.in_part)
    abort (); /* a finished body has no open part */
  rc_mp_free (p);
  return 0;
}
