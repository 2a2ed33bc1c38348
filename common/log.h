/* log.h - one JSON line per event on stderr (journald keeps it as is).
 *
 *   {"ts":"2026-11-30T08:00:00.123Z","level":"info","pid":123,"event":"start","msg":"..."}
 *
 * rc_log_fields lets a caller add pre-rendered JSON fields (the request log
 * line); everything else goes through rc_log.  Writes are one write(2) each
 * so lines from the master and workers never interleave.
 */
#ifndef RUNCELL_COMMON_LOG_H
#define RUNCELL_COMMON_LOG_H

#include "common/job.h"

enum rc_log_level
{
  RC_LOG_DEBUG = 0,
  RC_LOG_INFO,
  RC_LOG_WARN,
  RC_LOG_ERROR,
};

void rc_log_set_debug (int on);
int rc_log_debug_enabled (void);
void rc_log (enum rc_log_level level, const char *event, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* fields: a rendered `"k":v,"k2":v2` list (no braces), may be NULL. */
void rc_log_fields (enum rc_log_level level, const char *event, const struct rc_buf *fields);

#endif
