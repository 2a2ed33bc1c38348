/* step_render.c - the /v1 renderer of a step; see step_render.h. */
#include "config.h"

#include "fcgi/execute/step_render.h"
#include "common/base64.h"
#include "common/json_out.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

/* The length of text without the character a cut split: its valid UTF-8
 * prefix when all that follows is the start of one sequence. */
static size_t
uncut_length (const char *data, size_t len)
{
  size_t n = rc_utf8_valid_prefix (data, len), need;
  unsigned char c = n < len ? (unsigned char)data[n] : 0;
  if (n == len || len - n > 3)
    return n;
  need = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
  if (need <= len - n)
    return n; /* a whole sequence that is invalid: not a cut */
  for (size_t i = n + 1; i < len; i++)
    if (((unsigned char)data[i] & 0xc0) != 0x80)
      return n;
  return len;
}

int
rc_v1_render_output (struct rc_buf *b, const char *data, size_t len, bool base64, bool cut)
{
  size_t n;
  if (data == NULL)
    data = "";
  n = rc_utf8_valid_prefix (data, len);
  /* Text cut in the middle of a character (an output budget, a cap) is
   * still text: the piece of the character is dropped with the rest. */
  if (!base64 && n < len && cut && uncut_length (data, len) == len)
    return rc_json_string (b, data, n);
  return rc_v1_render_bytes (b, data, len, base64);
}

int
rc_v1_render_bytes (struct rc_buf *b, const char *data, size_t len, bool base64)
{
  if (data == NULL)
    data = "";
  if (!base64 && rc_utf8_valid_prefix (data, len) == len)
    return rc_json_string (b, data, len);
  if (rc_buf_append_str (b, "{\"base64\":\"") < 0 || rc_base64_encode (b, data, len) < 0)
    return -1;
  return rc_buf_append_str (b, "\"}");
}

void
rc_v1_render_exit (struct rc_buf *b, bool *first, const struct rc_step_result *st)
{
  rc_json_key (b, first, "exitCode");
  if (st->ran && st->exited)
    rc_json_i64 (b, st->exit_code);
  else
    rc_json_null (b);
  rc_json_key (b, first, "signal");
  if (st->ran && !st->exited && st->term_signal > 0)
    {
      const char *abbrev = sigabbrev_np (st->term_signal);
      char name[32];
      snprintf (name, sizeof name, "SIG%s", abbrev ? abbrev : "UNKNOWN");
      rc_json_cstring (b, name);
    }
  else
    rc_json_null (b);
}

void
rc_v1_render_usage (struct rc_buf *b, bool *first, const struct rc_step_result *st)
{
  const char *limit = rc_outcome_limit (st->outcome);
  rc_json_key (b, first, "limit");
  if (limit)
    rc_json_cstring (b, limit);
  else
    rc_json_null (b);
  rc_json_key (b, first, "wallMs");
  rc_json_u64 (b, st->wall_ms);
  rc_json_key (b, first, "cpuMs");
  rc_json_u64 (b, st->cpu_ms);
  rc_json_key (b, first, "memoryPeakKb");
  rc_json_u64 (b, st->memory_peak_kb);
}

void
rc_v1_render_step (struct rc_buf *b, const struct rc_step_result *st, bool base64)
{
  bool first = true, cut = st->truncated || st->outcome == RC_OUTCOME_OUTPUT;
  rc_buf_append (b, "{", 1);
  rc_v1_render_exit (b, &first, st);
  rc_json_key (b, &first, "stdout");
  rc_v1_render_output (b, st->out.data, st->out.len, base64, cut);
  rc_json_key (b, &first, "stderr");
  rc_v1_render_output (b, st->err.data, st->err.len, base64, cut);
  /* Every flag below is derived from the one verdict. */
  rc_json_key (b, &first, "timedOut");
  rc_json_bool (b, st->outcome == RC_OUTCOME_WALL || st->outcome == RC_OUTCOME_CPU);
  rc_json_key (b, &first, "idleTimedOut");
  rc_json_bool (b, st->outcome == RC_OUTCOME_IDLE);
  rc_json_key (b, &first, "truncated");
  rc_json_bool (b, st->truncated);
  rc_json_key (b, &first, "oomKilled");
  rc_json_bool (b, st->outcome == RC_OUTCOME_MEMORY);
  rc_v1_render_usage (b, &first, st);
  rc_buf_append (b, "}", 1);
}
