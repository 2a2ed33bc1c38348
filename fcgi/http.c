/* http.c - response helpers shared by every handler. */
#include "config.h"

#include "fcgi/http.h"
#include "common/json_out.h"
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

const char *
rc_http_reason (int status)
{
  switch (status)
    {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
    }
}

/* Writes {"error": msg} under status. */
static void
write_error (struct rc_http_response *res, int status, const char *msg)
{
  res->status = status;
  res->content_type = "application/json";
  rc_buf_reset (&res->body);
  rc_buf_append_str (&res->body, "{\"error\":");
  rc_json_cstring (&res->body, msg);
  rc_buf_append_str (&res->body, "}");
}

void
rc_http_error_from (struct rc_http_response *res, rc_err_t *err, const char *event)
{
  if (err != NULL && *err != NULL && (*err)->http_status != 0)
    write_error (res, (*err)->http_status, (*err)->msg ? (*err)->msg : "bad request");
  else
    {
      rc_log (RC_LOG_ERROR, event ? event : "internal", "%s",
              err != NULL && *err != NULL ? rc_error_text (*err) : "failed (no detail)");
      write_error (res, 500, "internal");
    }
  if (err != NULL)
    rc_error_free (err);
}

void
rc_http_error (struct rc_http_response *res, int status, const char *msg)
{
  rc_err_t err = NULL;
  rc_error_http (&err, status, "%s", msg);
  rc_http_error_from (res, &err, NULL);
}

void
rc_http_errorf (struct rc_http_response *res, int status, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  rc_http_error (res, status, msg);
}

void
rc_http_internal (struct rc_http_response *res, const char *event, const char *fmt, ...)
{
  rc_err_t err = NULL;
  char msg[512];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  rc_error_set (&err, 0, "%s", msg);
  rc_http_error_from (res, &err, event);
}

bool
rc_http_encoding_is_identity (const char *encoding)
{
  if (encoding == NULL)
    return true;
  while (*encoding == ' ' || *encoding == '\t')
    encoding++;
  return *encoding == '\0' || strcasecmp (encoding, "identity") == 0;
}
