/* step_render.c - the /v1 renderer of a step; see step_render.h. */
#include "config.h"

#include "fcgi/execute/step_render.h"
#include "common/base64.h"
#include "common/json_out.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

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
  bool first = true;
  rc_buf_append (b, "{", 1);
  rc_v1_render_exit (b, &first, st);
  rc_json_key (b, &first, "stdout");
  rc_v1_render_bytes (b, st->out.data, st->out.len, base64);
  rc_json_key (b, &first, "stderr");
  rc_v1_render_bytes (b, st->err.data, st->err.len, base64);
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
