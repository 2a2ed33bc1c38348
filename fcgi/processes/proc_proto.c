/* proc_proto.c - the worker's side of the supervisor protocol, and the
 * names both sides share; see proc_proto.h. */
#include "config.h"

#include "fcgi/processes/proc_proto.h"
#include "common/clock.h"
#include "fcgi/processes/proc_table.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define REPLY_BODY_MAX (1u << 20)

bool
rc_proc_id_valid (const char *id)
{
  size_t n = strspn (id, "0123456789abcdef");
  return id[n] == '\0' && (n == 32 || n == 64);
}

int
rc_proc_dir (const struct rc_config *cfg, char *buf, size_t size)
{
  int n = snprintf (buf, size, "%s/proc", cfg->state_dir);
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

int
rc_proc_sock_path (const struct rc_config *cfg, const char *id, char *buf, size_t size)
{
  struct sockaddr_un sa;
  size_t len = strlen (id);
  int n = snprintf (buf, size, "%s/proc/%s", cfg->state_dir, len > 32 ? id + len - 32 : id);
  return n < 0 || (size_t)n >= size || (size_t)n >= sizeof sa.sun_path ? -1 : 0;
}

/* Everything, or -1 (a supervisor is local and answers at once: the
 * deadline only guards against one that hangs). */
static int
io_all (int fd, void *buf, size_t len, bool out, uint64_t deadline)
{
  char *p = buf;
  while (len > 0)
    {
      ssize_t k
          = out ? send (fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) : recv (fd, p, len, MSG_DONTWAIT);
      if (k > 0)
        {
          p += k;
          len -= (size_t)k;
          continue;
        }
      if (k == 0 && !out)
        {
          errno = EPIPE;
          return -1;
        }
      if (k < 0 && errno != EAGAIN && errno != EINTR)
        return -1;
      {
        struct pollfd pf = { .fd = fd, .events = out ? POLLOUT : POLLIN };
        uint64_t now = rc_now_ms ();
        if (now >= deadline)
          {
            errno = ETIMEDOUT;
            return -1;
          }
        (void)poll (&pf, 1, (int)(deadline - now));
      }
    }
  return 0;
}

int
rc_proc_call (const struct rc_config *cfg, const char *id, const struct rc_proc_msg *m,
              const void *data, struct rc_proc_reply *rep, struct rc_buf *body, int timeout_ms,
              rc_err_t *err)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  uint64_t deadline = rc_now_ms () + (uint64_t)timeout_ms;
  struct rc_proc_msg named = *m;
  int fd;

  m = &named;
  if (!rc_proc_id_valid (id) || rc_proc_sock_path (cfg, id, sa.sun_path, sizeof sa.sun_path) < 0)
    return rc_error_http (err, 404, "process not found");
  snprintf (named.id, sizeof named.id, "%s", id);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return rc_error_sys (err, "process socket");
  if (connect (fd, (struct sockaddr *)&sa, sizeof sa) < 0)
    {
      int e = errno;
      close (fd);
      /* No socket, or one whose supervisor is gone (it was killed before
       * it could remove it): no such process. */
      if (e == ENOENT || e == ECONNREFUSED)
        return rc_error_http (err, 404, "process not found");
      errno = e;
      return rc_error_sys (err, "connect to process %s", id);
    }
  if (io_all (fd, (void *)m, sizeof *m, true, deadline) < 0
      || (m->len && io_all (fd, (void *)data, m->len, true, deadline) < 0)
      || io_all (fd, rep, sizeof *rep, false, deadline) < 0)
    goto fail;
  if (m->op != RC_PROC_SUBSCRIBE && rep->len)
    {
      char chunk[4096];
      size_t left = rep->len;
      if (rep->len > REPLY_BODY_MAX)
        {
          errno = EPROTO;
          goto fail;
        }
      while (left > 0)
        {
          size_t n = left < sizeof chunk ? left : sizeof chunk;
          if (io_all (fd, chunk, n, false, deadline) < 0 || rc_buf_append (body, chunk, n) < 0)
            goto fail;
          left -= n;
        }
    }
  return fd;
fail:
  {
    int e = errno;
    close (fd);
    errno = e;
    return rc_error_sys (err, "process %s: supervisor did not answer", id);
  }
}
