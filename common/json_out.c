/* json_out.c - JSON writer with UTF-8 repair; see json_out.h. */
#include <config.h>

#include "common/json_out.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Returns the length of the valid UTF-8 sequence at s (1-4), or 0 when the
 * bytes there are not one (overlongs, surrogates and > U+10FFFF included). */
static size_t
utf8_seq_len (const unsigned char *s, size_t avail)
{
  unsigned char c = s[0];
  if (c < 0x80)
    return 1;
  if (c >= 0xc2 && c <= 0xdf)
    return avail >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef)
    {
      if (avail < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
        return 0;
      if (c == 0xe0 && s[1] < 0xa0)
        return 0; /* overlong */
      if (c == 0xed && s[1] > 0x9f)
        return 0; /* surrogate */
      return 3;
    }
  if (c >= 0xf0 && c <= 0xf4)
    {
      if (avail < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
        return 0;
      if (c == 0xf0 && s[1] < 0x90)
        return 0;
      if (c == 0xf4 && s[1] > 0x8f)
        return 0;
      return 4;
    }
  return 0;
}

size_t
rc_utf8_valid_prefix (const char *s, size_t len)
{
  size_t i = 0;
  while (i < len)
    {
      size_t n = utf8_seq_len ((const unsigned char *)s + i, len - i);
      if (n == 0)
        break;
      i += n;
    }
  return i;
}

int
rc_json_string (struct rc_buf *b, const char *s, size_t len)
{
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0, run = 0;
  int r;

  if ((r = rc_buf_append (b, "\"", 1)) < 0)
    return r;
  while (i < len)
    {
      unsigned char c = p[i];
      size_t n;
      const char *esc = NULL;
      char ubuf[6];

      if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80)
        {
          i++;
          run++;
          continue;
        }
      /* Flush the plain run before handling a special byte. */
      if (run && (r = rc_buf_append (b, s + i - run, run)) < 0)
        return r;
      run = 0;
      if (c >= 0x80)
        {
          n = utf8_seq_len (p + i, len - i);
          if (n == 0)
            {
              esc = "\xef\xbf\xbd"; /* U+FFFD */
              n = 1;
            }
          if ((r = rc_buf_append (b, esc ? esc : s + i, esc ? 3 : n)) < 0)
            return r;
          i += n;
          continue;
        }
      switch (c)
        {
        case '"':
          esc = "\\\"";
          break;
        case '\\':
          esc = "\\\\";
          break;
        case '\n':
          esc = "\\n";
          break;
        case '\r':
          esc = "\\r";
          break;
        case '\t':
          esc = "\\t";
          break;
        case '\b':
          esc = "\\b";
          break;
        case '\f':
          esc = "\\f";
          break;
        default:
          memcpy (ubuf, "\\u00", 4);
          ubuf[4] = hex[c >> 4];
          ubuf[5] = hex[c & 15];
          break;
        }
      if ((r = esc ? rc_buf_append_str (b, esc) : rc_buf_append (b, ubuf, 6)) < 0)
        return r;
      i++;
    }
  if (run && (r = rc_buf_append (b, s + i - run, run)) < 0)
    return r;
  return rc_buf_append (b, "\"", 1);
}

int
rc_json_cstring (struct rc_buf *b, const char *s)
{
  return rc_json_string (b, s, strlen (s));
}

int
rc_json_key (struct rc_buf *b, bool *first, const char *key)
{
  int r;
  if (!*first && (r = rc_buf_append (b, ",", 1)) < 0)
    return r;
  *first = false;
  if ((r = rc_json_cstring (b, key)) < 0)
    return r;
  return rc_buf_append (b, ":", 1);
}

int
rc_json_u64 (struct rc_buf *b, uint64_t v)
{
  return rc_buf_printf (b, "%" PRIu64, v);
}

int
rc_json_i64 (struct rc_buf *b, int64_t v)
{
  return rc_buf_printf (b, "%" PRId64, v);
}

int
rc_json_bool (struct rc_buf *b, bool v)
{
  return rc_buf_append_str (b, v ? "true" : "false");
}

int
rc_json_null (struct rc_buf *b)
{
  return rc_buf_append_str (b, "null");
}
