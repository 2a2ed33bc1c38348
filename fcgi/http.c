/* http.c - response helpers shared by every handler. */
#include "config.h"

#include "fcgi/http.h"
#include "common/json_out.h"
#include "common/log.h"
#include "fcgi/sse.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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

int
rc_http_format_head (const struct rc_http_response *res, bool streamed, char *buf, size_t size)
{
  /* Formatted with the C library into the caller's buffer (no allocation
   * per request): libfcgi's FCGX_FPrintF does not know the z length
   * modifier.  The variable parts are bounded (a status, a reason, our own
   * content types and Allow lists, a request id), so 1 KiB holds them. */
  char length[48] = "", retry[40] = "", rid[96] = "";
  int n;
  if (!streamed)
    snprintf (length, sizeof length, "Content-Length: %zu\r\n", res->body.len);
  else if (res->stream_length)
    snprintf (length, sizeof length, "Content-Length: %" PRIu64 "\r\n", res->stream_length);
  if (res->retry_after_s > 0 || res->status == 429)
    snprintf (retry, sizeof retry, "Retry-After: %d\r\n",
              res->retry_after_s > 0 ? res->retry_after_s : 1);
  if (res->request_id && strlen (res->request_id) < 64 && strpbrk (res->request_id, "\r\n") == NULL)
    snprintf (rid, sizeof rid, "X-Request-Id: %s\r\n", res->request_id);
  n = snprintf (buf, size,
                "Status: %d %s\r\nContent-Type: %s\r\n%s%s%s%s%s%s"
                "Cache-Control: no-store\r\n\r\n",
                res->status, rc_http_reason (res->status),
                res->content_type ? res->content_type : "application/json", length,
                res->allow ? "Allow: " : "", res->allow ? res->allow : "", res->allow ? "\r\n" : "",
                retry, rid);
  if (streamed && !res->stream_length && !res->stream_buffered && n > 0 && (size_t)n < size)
    {
      /* nginx passes a FastCGI stream on as it comes only when told. */
      static const char accel[] = "X-Accel-Buffering: no\r\n\r\n";
      if ((size_t)n - 2 + sizeof accel > size)
        return -1;
      memcpy (buf + n - 2, accel, sizeof accel);
      n += (int)sizeof accel - 3;
    }
  return n < 0 || (size_t)n >= size ? -1 : n;
}

int
rc_http_stream_begin (struct rc_http_response *res, int status, const char *content_type)
{
  char head[1024];
  int n;
  if (res->stream == NULL)
    {
      errno = ENOTSUP;
      return -1;
    }
  res->status = status;
  res->content_type = content_type;
  n = rc_http_format_head (res, true, head, sizeof head);
  if (n < 0)
    {
      errno = EOVERFLOW;
      return -1;
    }
  res->streamed = true;
  return res->stream->write (res->stream->ctx, head, (size_t)n);
}

int
rc_http_stream_write (struct rc_http_response *res, const void *data, size_t len)
{
  if (res->stream == NULL || !res->streamed)
    {
      errno = ENOTSUP;
      return -1;
    }
  res->stream_bytes += len;
  return res->stream->write (res->stream->ctx, data, len);
}

int
rc_http_sse (struct rc_http_response *res, uint64_t id, const char *event, const char *data,
             size_t len)
{
  struct rc_buf b = { 0 };
  int r = -1;
  if (rc_sse_format (&b, id, event, data, len) == 0)
    r = rc_http_stream_write (res, b.data, b.len);
  rc_buf_free (&b);
  return r;
}

bool
rc_http_stream_gone (const struct rc_http_response *res)
{
  struct pollfd p;
  if (res->stream == NULL || res->stream->fd < 0)
    return false;
  p.fd = res->stream->fd;
  p.events = POLLIN;
  p.revents = 0;
  /* The web server sends nothing more on a request's connection once it
   * has the body: anything readable is its end (FCGI_ABORT_REQUEST, or
   * the close). */
  return poll (&p, 1, 0) > 0;
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

int
rc_http_percent_decode (const char *in, size_t len, char *out, size_t size)
{
  size_t o = 0;
  for (size_t i = 0; i < len; i++)
    {
      char c = in[i];
      if (c == '%')
        {
          int hi = i + 2 < len ? hex_value (in[i + 1]) : -1;
          int lo = i + 2 < len ? hex_value (in[i + 2]) : -1;
          if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
            return -1;
          c = (char)(hi * 16 + lo);
          i += 2;
        }
      if (o + 1 >= size)
        return -1;
      out[o++] = c;
    }
  out[o] = '\0';
  return 0;
}

bool
rc_http_accepts (const char *accept, const char *type)
{
  size_t n = strlen (type);
  const char *p = accept;
  /* A list of media ranges, each with optional parameters: the type must
   * be one of them (";q=0" refusing it is not honoured). */
  while (p && *p)
    {
      while (*p == ' ' || *p == '\t' || *p == ',')
        p++;
      if (strncasecmp (p, type, n) == 0 && strchr (" \t;,", p[n] ? p[n] : ',') != NULL)
        return true;
      p = strchr (p, ',');
    }
  return false;
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
