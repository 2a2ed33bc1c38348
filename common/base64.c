/* base64.c - RFC 4648 base64; see base64.h. */
#include <config.h>

#include "common/base64.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int
rc_base64_encode (struct rc_buf *b, const void *data, size_t len)
{
  const unsigned char *p = data;
  char quad[4];
  size_t i;

  for (i = 0; i + 3 <= len; i += 3)
    {
      uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
      quad[0] = alphabet[v >> 18];
      quad[1] = alphabet[(v >> 12) & 63];
      quad[2] = alphabet[(v >> 6) & 63];
      quad[3] = alphabet[v & 63];
      if (rc_buf_append (b, quad, 4) < 0)
        return -1;
    }
  if (i < len)
    {
      uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);
      quad[0] = alphabet[v >> 18];
      quad[1] = alphabet[(v >> 12) & 63];
      quad[2] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
      quad[3] = '=';
      if (rc_buf_append (b, quad, 4) < 0)
        return -1;
    }
  /* An empty encoding still leaves b a valid (empty) string. */
  return rc_buf_append (b, "", 0);
}

static int
value_of (unsigned char c)
{
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

int
rc_base64_decode (const char *text, size_t len, char **out, size_t *out_len)
{
  const unsigned char *t = (const unsigned char *)text;
  size_t pad = 0, n = 0;
  char *buf;

  *out = NULL;
  *out_len = 0;
  if (len % 4 != 0)
    goto bad;
  if (len > 0 && t[len - 1] == '=')
    pad = len > 1 && t[len - 2] == '=' ? 2 : 1;
  buf = malloc (len / 4 * 3 + 1);
  if (buf == NULL)
    return -1;
  for (size_t i = 0; i < len; i += 4)
    {
      int v[4];
      size_t data = i + 4 == len ? 4 - pad : 4;
      for (size_t k = 0; k < 4; k++)
        {
          v[k] = k < data ? value_of (t[i + k]) : 0;
          if (v[k] < 0)
            {
              free (buf);
              goto bad;
            }
        }
      uint32_t w
          = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
      /* The bits the padding leaves must be zero: one text, one value. */
      if ((data == 3 && (w & 0xff)) || (data == 2 && (w & 0xffff)))
        {
          free (buf);
          goto bad;
        }
      buf[n++] = (char)(w >> 16);
      if (data > 2)
        buf[n++] = (char)(w >> 8);
      if (data > 3)
        buf[n++] = (char)w;
    }
  buf[n] = '\0';
  *out = buf;
  *out_len = n;
  return 0;
bad:
  errno = EINVAL;
  return -1;
}
