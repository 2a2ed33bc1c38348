/* sup_clients.c - a supervisor's socket: the requests of the workers, the
 * numbered event log, and the subscribers it is written to.
 *
 * Every fd is non-blocking and one connection carries one request
 * (proc_proto.h), so a worker that stops reading (its client is slow)
 * never holds up the program or the other subscribers: a subscriber is
 * only a position in the log, written from when its socket takes more.
 * An event is written to the subscribers as soon as it is logged, not at
 * the next turn of the loop: that is the stdin-to-stdout latency.
 */
#include "config.h"

#include "common/log.h"
#include "fcgi/processes/supervisor.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- the event log ---------------------------------------------------- */

int
rc_sup_event (struct rc_sup *s, const char *event, const struct rc_buf *data)
{
  if (s->n_events == s->cap_events)
    {
      uint64_t cap = s->cap_events ? s->cap_events * 2 : 64;
      size_t *grown = realloc (s->ends, cap * sizeof *grown);
      if (grown == NULL)
        return -1;
      s->ends = grown;
      s->cap_events = cap;
    }
  if (rc_sse_format (&s->log, s->n_events + 1, event, data->data ? data->data : "", data->len) < 0)
    return -1;
  s->ends[s->n_events++] = s->log.len;
  rc_sup_clients_flush (s);
  return 0;
}

/* Where a subscriber that saw every event up to `after` starts. */
static size_t
log_after (const struct rc_sup *s, uint64_t after)
{
  if (after == 0)
    return 0;
  if (after >= s->n_events)
    return s->log.len;
  return s->ends[after - 1];
}

/* ---- one connection --------------------------------------------------- */

static void
client_close (struct rc_sup_client *c)
{
  if (c->fd >= 0)
    close (c->fd);
  rc_buf_free (&c->in);
  rc_buf_free (&c->out);
  memset (c, 0, sizeof *c);
  c->fd = -1;
}

static void
reply (struct rc_sup_client *c, int status, const char *body)
{
  struct rc_proc_reply r = { .status = status, .len = body ? (uint32_t)strlen (body) : 0 };
  rc_buf_append (&c->out, &r, sizeof r);
  if (r.len)
    rc_buf_append (&c->out, body, r.len);
}

static void
reply_status (struct rc_sup *s, struct rc_sup_client *c)
{
  struct rc_proc_reply r = { .status = 200 };
  const char *running
      = s->state == RC_SUP_COMPILING ? "{\"state\":\"compiling\"}" : "{\"state\":\"running\"}";
  const char *body = s->state == RC_SUP_EXITED ? s->status.data : running;
  r.len = (uint32_t)strlen (body);
  rc_buf_append (&c->out, &r, sizeof r);
  rc_buf_append (&c->out, body, r.len);
}

static void
dispatch (struct rc_sup *s, struct rc_sup_client *c)
{
  struct rc_proc_msg m;
  const char *data = c->in.data + sizeof m, *why = NULL;
  bool over = s->state == RC_SUP_EXITED || s->run == NULL;

  memcpy (&m, c->in.data, sizeof m);
  m.id[sizeof m.id - 1] = '\0';
  /* The socket is named after the id's own 128 bits: the whole id must
   * match (a session's process is not reached under another session). */
  if (strcmp (m.id, s->a->id) != 0)
    {
      reply (c, 404, "process not found");
      return;
    }
  switch (m.op)
    {
    case RC_PROC_STATUS:
      reply_status (s, c);
      break;
    case RC_PROC_SUBSCRIBE:
      reply (c, 200, NULL);
      c->subscribed = true;
      c->pos = log_after (s, m.after);
      break;
    case RC_PROC_STDIN:
      if (over)
        reply (c, 409, "process has exited");
      else if (rc_sup_stdin (s, data, m.len, (m.flags & RC_PROC_EOF) != 0, &why) < 0)
        reply (c, 409, why);
      else
        reply (c, 204, NULL);
      break;
    case RC_PROC_SIGNAL:
      if (over || rc_run_signal (s->run, m.value) < 0)
        reply (c, 409, "process has exited");
      else
        reply (c, 204, NULL);
      break;
    case RC_PROC_RESIZE:
      if (!s->a->tty)
        reply (c, 409, "process has no terminal (start it with \"tty\": true)");
      else if (over || rc_run_resize (s->run, m.rows, m.cols) < 0)
        reply (c, 409, "process has exited");
      else
        reply (c, 204, NULL);
      break;
    case RC_PROC_DELETE:
      /* A running program is killed (its exit event follows); an exited
       * one is forgotten now instead of after RUN_PROCESS_KEEP_S. */
      if (!over)
        rc_sup_stop (s);
      else
        s->leave = true;
      reply (c, 204, NULL);
      break;
    default:
      reply (c, 400, "unknown request");
      break;
    }
}

/* Reads what came; dispatches a complete request.  false: close it. */
static bool
client_read (struct rc_sup *s, struct rc_sup_client *c)
{
  char buf[65536];
  ssize_t k = recv (c->fd, buf, sizeof buf, MSG_DONTWAIT);
  struct rc_proc_msg m;

  if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
    return false; /* the worker is gone (its client left) */
  if (k < 0 || c->subscribed || c->out.len)
    return true; /* nothing, or more than one request: ignored */
  if (rc_buf_append (&c->in, buf, (size_t)k) < 0)
    return false;
  if (c->in.len < sizeof m)
    return true;
  memcpy (&m, c->in.data, sizeof m);
  if (m.len > s->a->app->cfg->input_max)
    return false;
  if (c->in.len < sizeof m + m.len)
    return true;
  dispatch (s, c);
  return true;
}

/* Writes the reply, then (a subscriber) the log from its position.
 * false: close it (done, or gone). */
static bool
client_write (struct rc_sup *s, struct rc_sup_client *c)
{
  while (c->out_off < c->out.len)
    {
      ssize_t k = send (c->fd, c->out.data + c->out_off, c->out.len - c->out_off,
                        MSG_DONTWAIT | MSG_NOSIGNAL);
      if (k < 0)
        return errno == EAGAIN || errno == EINTR;
      c->out_off += (size_t)k;
    }
  if (!c->subscribed)
    return c->out.len == 0; /* a reply written whole: done */
  while (c->pos < s->log.len)
    {
      ssize_t k
          = send (c->fd, s->log.data + c->pos, s->log.len - c->pos, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (k < 0)
        return errno == EAGAIN || errno == EINTR;
      c->pos += (size_t)k;
    }
  /* The last event is out: the stream ends (the worker ends its response). */
  return s->state != RC_SUP_EXITED;
}

void
rc_sup_clients_flush (struct rc_sup *s)
{
  for (int i = 0; i < RC_SUP_CLIENTS; i++)
    {
      struct rc_sup_client *c = &s->clients[i];
      if (c->fd >= 0 && (c->subscribed || c->out.len) && !client_write (s, c))
        client_close (c);
    }
}

static void
client_accept (struct rc_sup *s)
{
  for (;;)
    {
      struct ucred cred;
      socklen_t len = sizeof cred;
      int fd = accept4 (s->listen, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), i;
      if (fd < 0)
        return;
      /* The socket is in a root-only directory; the peer is checked all
       * the same. */
      if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != 0)
        {
          close (fd);
          continue;
        }
      for (i = 0; i < RC_SUP_CLIENTS && s->clients[i].fd >= 0; i++)
        ;
      if (i == RC_SUP_CLIENTS)
        {
          rc_log (RC_LOG_WARN, "process_clients", "process %s: %d connections already", s->a->id,
                  RC_SUP_CLIENTS);
          close (fd);
          continue;
        }
      s->clients[i].fd = fd;
    }
}

size_t
rc_sup_clients_pollfds (struct rc_sup *s, struct pollfd *pfd, size_t n)
{
  pfd[n++] = (struct pollfd){ .fd = s->listen, .events = POLLIN };
  for (int i = 0; i < RC_SUP_CLIENTS; i++)
    {
      struct rc_sup_client *c = &s->clients[i];
      short ev = POLLIN;
      if (c->fd < 0)
        continue;
      if (c->out_off < c->out.len || (c->subscribed && c->pos < s->log.len))
        ev |= POLLOUT;
      pfd[n++] = (struct pollfd){ .fd = c->fd, .events = ev };
    }
  return n;
}

void
rc_sup_clients_handle (struct rc_sup *s, const struct pollfd *pfd, size_t from, size_t n)
{
  /* By fd, not by position: a client may have been closed since the poll
   * (a flush after an event of the run). */
  for (size_t j = from + 1; j < n; j++)
    {
      struct rc_sup_client *c = NULL;
      for (int i = 0; i < RC_SUP_CLIENTS && c == NULL; i++)
        if (s->clients[i].fd == pfd[j].fd)
          c = &s->clients[i];
      if (c == NULL || pfd[j].revents == 0)
        continue;
      if ((pfd[j].revents & (POLLIN | POLLHUP | POLLERR)) && !client_read (s, c))
        client_close (c);
      else if ((c->subscribed || c->out.len) && !client_write (s, c))
        client_close (c);
    }
  if (pfd[from].revents)
    client_accept (s);
}

bool
rc_sup_clients_busy (const struct rc_sup *s)
{
  for (int i = 0; i < RC_SUP_CLIENTS; i++)
    if (s->clients[i].fd >= 0)
      return true;
  return false;
}

void
rc_sup_clients_close (struct rc_sup *s)
{
  for (int i = 0; i < RC_SUP_CLIENTS; i++)
    client_close (&s->clients[i]);
}
