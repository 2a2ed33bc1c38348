/* sse.c - the streamed events' text; see sse.h. */
#include "config.h"

#include "fcgi/sse.h"
#include "common/json_out.h"
#include "fcgi/execute/step_render.h"

#include <inttypes.h>
#include <string.h>

int
rc_sse_format (struct rc_buf *b, uint64_t id, const char *event, const char *data, size_t len)
{
  if (id && rc_buf_printf (b, "id: %" PRIu64 "\n", id) < 0)
    return -1;
  if (rc_buf_printf (b, "event: %s\ndata: ", event) < 0 || rc_buf_append (b, data, len) < 0
      || rc_buf_append (b, "\n\n", 2) < 0)
    return -1;
  return 0;
}

/* How many bytes at the end of s[0..len) are the start of a UTF-8
 * sequence that the next chunk may complete (0..3). */
static size_t
incomplete_tail (const char *s, size_t len)
{
  for (size_t back = 1; back <= 3 && back <= len; back++)
    {
      unsigned char c = (unsigned char)s[len - back];
      size_t need;
      if ((c & 0xc0) == 0x80)
        continue; /* a continuation byte: its lead is further back */
      need = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 1;
      return need > back ? back : 0;
    }
  return 0;
}

static void
output_json (struct rc_buf *out, const char *a, size_t alen, const char *b, size_t blen,
             bool base64)
{
  rc_buf_reset (out);
  rc_buf_append_str (out, "{\"data\":");
  if (alen)
    {
      /* The held-back bytes and the chunk as one string. */
      struct rc_buf joined = { 0 };
      rc_buf_append (&joined, a, alen);
      rc_buf_append (&joined, b, blen);
      rc_v1_render_bytes (out, joined.data ? joined.data : "", joined.len, base64);
      rc_buf_free (&joined);
    }
  else
    rc_v1_render_bytes (out, b, blen, base64);
  rc_buf_append (out, "}", 1);
}

bool
rc_sse_output (struct rc_sse_text *t, int stream, const char *data, size_t len, bool base64,
               struct rc_buf *out)
{
  size_t held, keep;
  int s = stream == 2 ? 2 : 1;

  held = t->tail_len[s];
  if (held + len <= 3)
    {
      /* Too short to say: hold it all unless it cannot be a character's
       * start any more. */
      char tmp[4];
      memcpy (tmp, t->tail[s], held);
      memcpy (tmp + held, data, len);
      keep = incomplete_tail (tmp, held + len);
      if (keep == held + len)
        {
          memcpy (t->tail[s], tmp, keep);
          t->tail_len[s] = keep;
          return false;
        }
      output_json (out, tmp, held + len - keep, "", 0, base64);
      memcpy (t->tail[s], tmp + held + len - keep, keep);
      t->tail_len[s] = keep;
      return true;
    }
  keep = incomplete_tail (data, len);
  output_json (out, t->tail[s], held, data, len - keep, base64);
  memcpy (t->tail[s], data + len - keep, keep);
  t->tail_len[s] = keep;
  return true;
}

bool
rc_sse_output_flush (struct rc_sse_text *t, int stream, bool base64, struct rc_buf *out)
{
  int s = stream == 2 ? 2 : 1;
  if (t->tail_len[s] == 0)
    return false;
  output_json (out, t->tail[s], t->tail_len[s], "", 0, base64);
  t->tail_len[s] = 0;
  return true;
}

const char *
rc_sse_stream_name (int stream)
{
  return stream == 2 ? "stderr" : "stdout";
}

void
rc_sse_stage (struct rc_buf *out, const char *stage)
{
  rc_buf_reset (out);
  rc_buf_append_str (out, "{\"stage\":");
  rc_json_cstring (out, stage);
  rc_buf_append (out, "}", 1);
}
