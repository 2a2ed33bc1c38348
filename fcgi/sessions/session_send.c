/* session_send.c - files leave a session through a bounded stream; see
 * session_send.h. */
#include "config.h"

#include "fcgi/sessions/session_send.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int
rc_send_begin (struct rc_http_response *res, int status, const char *content_type, uint64_t length)
{
  if (res->stream == NULL)
    {
      res->status = status;
      res->content_type = content_type;
      rc_buf_reset (&res->body);
      return 0;
    }
  res->stream_length = length;
  /* Files may wait in nginx's buffers: the worker is free as soon as
   * nginx has the answer (or its temp file cap), not when the client has
   * read it. */
  res->stream_buffered = true;
  return rc_http_stream_begin (res, status, content_type);
}

int
rc_send (struct rc_http_response *res, const void *data, size_t len)
{
  if (len == 0)
    return 0;
  if (res->streamed)
    return rc_http_stream_write (res, data, len);
  return rc_buf_append (&res->body, data, len);
}

int
rc_send_fd (struct rc_http_response *res, int fd, uint64_t len)
{
  char *buf = malloc (RC_SEND_CHUNK);
  uint64_t off = 0;
  int ret = 0;
  if (buf == NULL)
    return -1;
  while (off < len)
    {
      size_t want = len - off < RC_SEND_CHUNK ? (size_t)(len - off) : RC_SEND_CHUNK;
      ssize_t n = pread (fd, buf, want, (off_t)off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          errno = n == 0 ? EIO : errno;
          ret = -1;
          break;
        }
      if (rc_send (res, buf, (size_t)n) < 0)
        {
          errno = EPIPE;
          ret = -1;
          break;
        }
      off += (uint64_t)n;
    }
  free (buf);
  return ret;
}
