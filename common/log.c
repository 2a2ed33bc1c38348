/* log.c - JSON log lines on stderr; see log.h. */
#include <config.h>

#include "common/log.h"
#include "common/json_out.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int debug_on;

void
rc_log_set_debug (int on)
{
  debug_on = on;
}

int
rc_log_debug_enabled (void)
{
  return debug_on;
}

static const char *
level_name (enum rc_log_level level)
{
  switch (level)
    {
    case RC_LOG_DEBUG:
      return "debug";
    case RC_LOG_INFO:
      return "info";
    case RC_LOG_WARN:
      return "warn";
    case RC_LOG_ERROR:
      return "error";
    }
  return "info";
}

static void
log_emit (enum rc_log_level level, const char *event, const char *msg, const struct rc_buf *fields)
{
  struct rc_buf b = { 0 };
  struct timespec ts;
  struct tm tm;
  char stamp[40];
  ssize_t w;
  size_t off = 0;

  if (level == RC_LOG_DEBUG && !debug_on)
    return;
  clock_gettime (CLOCK_REALTIME, &ts);
  gmtime_r (&ts.tv_sec, &tm);
  strftime (stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  rc_buf_printf (&b, "{\"ts\":\"%s.%03ldZ\",\"level\":\"%s\",\"pid\":%ld,\"event\":", stamp,
                 ts.tv_nsec / 1000000, level_name (level), (long)getpid ());
  rc_json_cstring (&b, event);
  if (msg != NULL)
    {
      rc_buf_append_str (&b, ",\"msg\":");
      rc_json_cstring (&b, msg);
    }
  if (fields != NULL && fields->len > 0)
    {
      rc_buf_append (&b, ",", 1);
      rc_buf_append (&b, fields->data, fields->len);
    }
  rc_buf_append (&b, "}\n", 2);
  while (b.data && off < b.len)
    {
      w = write (STDERR_FILENO, b.data + off, b.len - off);
      if (w <= 0)
        break;
      off += (size_t)w;
    }
  rc_buf_free (&b);
}

void
rc_log (enum rc_log_level level, const char *event, const char *fmt, ...)
{
  char msg[2048];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  log_emit (level, event, msg, NULL);
}

void
rc_log_fields (enum rc_log_level level, const char *event, const struct rc_buf *fields)
{
  log_emit (level, event, NULL, fields);
}
