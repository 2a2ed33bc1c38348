/* error.c - see error.h for the convention. */
#include <config.h>

#include "common/error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int
error_vset (rc_err_t *err, int status, const char *fmt, va_list ap)
{
  char *msg = NULL;
  if (err == NULL)
    return -1;
  if (vasprintf (&msg, fmt, ap) < 0)
    msg = NULL;
  rc_error_free (err);
  *err = calloc (1, sizeof (**err));
  if (*err == NULL)
    {
      free (msg);
      return -1;
    }
  (*err)->status = status;
  (*err)->msg = msg;
  return -1;
}

int
rc_error_set (rc_err_t *err, int status, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  error_vset (err, status, fmt, ap);
  va_end (ap);
  return -1;
}

int
rc_error_http (rc_err_t *err, int http_status, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  error_vset (err, 0, fmt, ap);
  va_end (ap);
  if (err != NULL && *err != NULL)
    (*err)->http_status = http_status;
  return -1;
}

int
rc_error_sys (rc_err_t *err, const char *fmt, ...)
{
  int saved = errno;
  va_list ap;
  va_start (ap, fmt);
  error_vset (err, saved, fmt, ap);
  va_end (ap);
  errno = saved;
  return -1;
}

int
rc_error_wrap (rc_err_t *err, const char *fmt, ...)
{
  char *ctx = NULL, *joined = NULL;
  va_list ap;
  if (err == NULL || *err == NULL)
    return -1;
  va_start (ap, fmt);
  if (vasprintf (&ctx, fmt, ap) < 0)
    ctx = NULL;
  va_end (ap);
  if (ctx != NULL && asprintf (&joined, "%s: %s", ctx, (*err)->msg ? (*err)->msg : "") >= 0)
    {
      free ((*err)->msg);
      (*err)->msg = joined;
    }
  free (ctx);
  return -1;
}

void
rc_error_free (rc_err_t *err)
{
  if (err == NULL || *err == NULL)
    return;
  free ((*err)->msg);
  free (*err);
  *err = NULL;
}

const char *
rc_error_text (rc_err_t err)
{
  static __thread char buf[1024];
  if (err == NULL)
    return "no error";
  if (err->status != 0)
    snprintf (buf, sizeof buf, "%s: %s", err->msg ? err->msg : "error", strerror (err->status));
  else
    snprintf (buf, sizeof buf, "%s", err->msg ? err->msg : "error");
  return buf;
}
