/* api_processes.c - the routes of /v1/processes, and what the master does
 * for them (processes.h).
 *
 *   POST   /v1/processes               start one (the /v1/execute body,
 *                                      plus "tty"): 201 {"id", "events"}
 *   POST   /sessions/{id}/processes    the same, in a session's directory
 *   GET    /v1/processes/{id}          its state; once exited, its result
 *   GET    /v1/processes/{id}/events   its events (SSE), Last-Event-ID
 *   POST   /v1/processes/{id}/stdin    bytes for its stdin: 204
 *   POST   /v1/processes/{id}/signal   a signal: 204
 *   POST   /v1/processes/{id}/resize   its terminal's size: 204
 *   DELETE /v1/processes/{id}          kill it (forget it, once exited)
 *
 * A worker starts a process and hands it to a supervisor of its own
 * (supervisor.c), which outlives the request; every later request is
 * passed to that supervisor over its socket (proc_proto.h), whichever
 * worker takes it.  Only a subscriber holds its worker: for as long as it
 * streams, relaying the supervisor's bytes as they come and ending at
 * once when its client leaves.  Nothing else waits on the program: stdin
 * is taken whole or refused (409 "stdin is full"), never blocked on.
 */
#include "config.h"

#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/processes/processes.h"
#include "fcgi/processes/proc_request.h"
#include "fcgi/processes/supervisor.h"
#include "sandbox/session_workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long a worker waits for a supervisor's answer. */
#define CALL_TIMEOUT_MS 5000

/* ---- the master's part -------------------------------------------------- */

int
rc_processes_setup (const struct rc_config *cfg, rc_err_t *err)
{
  char dir[256];
  DIR *d;
  struct dirent *e;

  if (rc_proc_table_create (cfg->max_processes) < 0)
    return rc_error_sys (err, "processes table");
  if (strlen (cfg->state_dir) > RC_PROC_STATE_DIR_MAX || rc_proc_dir (cfg, dir, sizeof dir) < 0)
    return rc_error_set (err, ENAMETOOLONG,
                         "RUN_STATE_DIR: at most %d characters (the processes' sockets are in it)",
                         RC_PROC_STATE_DIR_MAX);
  /* No state directory: the unsandboxed fallback, which has no processes
   * (501). */
  if (mkdir (dir, 0700) < 0 && errno != EEXIST)
    return errno == ENOENT ? 0 : rc_error_sys (err, "mkdir %s", dir);
  /* Sockets of an earlier run's supervisors (killed with it). */
  d = opendir (dir);
  while (d && (e = readdir (d)) != NULL)
    if (e->d_name[0] != '.')
      (void)unlinkat (dirfd (d), e->d_name, 0);
  if (d)
    closedir (d);
  return 0;
}

static void
socket_gone (const char *id, void *ud)
{
  char path[256];
  if (id[0] && rc_proc_sock_path (ud, id, path, sizeof path) == 0)
    (void)unlink (path);
}

bool
rc_processes_reaped (const struct rc_config *cfg, pid_t pid)
{
  return rc_proc_table_reaped (pid, socket_gone, (void *)cfg);
}

void
rc_processes_signal (int sig)
{
  rc_proc_table_signal (sig);
}

unsigned
rc_processes_count (void)
{
  return rc_proc_table_supervisors ();
}

/* ---- starting one ------------------------------------------------------- */

static void
hex_id (char *out, size_t bytes)
{
  static const char hex[] = "0123456789abcdef";
  unsigned char raw[32];
  if (getrandom (raw, bytes, 0) != (ssize_t)bytes)
    {
      /* Never a guessable id: the kernel's pool is there once booted. */
      rc_log (RC_LOG_ERROR, "getrandom", "%s", strerror (errno));
      abort ();
    }
  for (size_t i = 0; i < bytes; i++)
    {
      out[2 * i] = hex[raw[i] >> 4];
      out[2 * i + 1] = hex[raw[i] & 15];
    }
  out[2 * bytes] = '\0';
}

/* The new process's id: the request id nginx drew when it is 32 hex
 * digits and not in use (docs/scale-out.md: a front hashed on it routes
 * the creation to the host its later requests reach), else getrandom's.
 * A session's process is named after its session first, so that it is
 * routed as the session is. */
static void
new_id (const struct rc_config *cfg, const struct rc_http_request *req, const char *session,
        char id[RC_PROC_ID_MAX + 1])
{
  char path[256];
  struct stat st;
  const char *rid = req->request_id;
  if (session)
    {
      memcpy (id, session, 32);
      hex_id (id + 32, 16);
      return;
    }
  if (rid && strlen (rid) == 32 && strspn (rid, "0123456789abcdef") == 32
      && rc_proc_sock_path (cfg, rid, path, sizeof path) == 0 && lstat (path, &st) < 0)
    {
      memcpy (id, rid, 33);
      return;
    }
  hex_id (id, 16);
}

/* The worker's copies of a session's lock and directory, closed without
 * unlocking: the lock is the open file's, which the supervisor holds. */
static void
session_leave (struct rc_session *s)
{
  close (s->lockfd);
  close (s->dirfd);
  free (s->data_path);
  memset (s, 0, sizeof *s);
  s->lockfd = s->dirfd = -1;
}

static void
create (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res,
        const char *session_id)
{
  struct rc_execute_request ex;
  struct rc_execute_job ej = { 0 };
  struct rc_session s = { .lockfd = -1, .dirfd = -1 };
  struct rc_sup_args a = { .app = app, .ej = &ej, .entry = -1 };
  bool have_session = false, claimed = false;
  int bind_fd = -1;
  rc_err_t err = NULL;

  if (app->sandbox == NULL || rc_sandbox_mode_of (app->sandbox) != RC_SANDBOX_ISOLATED)
    {
      rc_http_error (res, 501, "processes need the sandbox (runcell runs without it here)");
      return;
    }
  if (rc_execute_request_parse (req->body, req->body_len, app->cfg, app->langs, &ex, &err) < 0)
    {
      rc_http_error_from (res, &err, "process_request");
      res->log_outcome = "bad_request";
      return;
    }
  res->log_lang = a.lang = ex.lang->slug;
  a.tty = ex.tty;
  a.base64 = ex.base64_out;
  if (session_id)
    {
      if (!rc_session_id_valid (session_id, strlen (session_id))
          || !rc_session_exists (app->cfg, session_id))
        {
          rc_http_error (res, 404, "session not found");
          goto out;
        }
      if (rc_session_open (app->cfg, session_id, &s, &err) < 0)
        {
          rc_http_error_from (res, &err, "session_open");
          goto out;
        }
      have_session = true;
      a.session = &s;
      bind_fd = openat (s.dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (bind_fd < 0)
        {
          rc_http_internal (res, "process_session", "open the session: %s", strerror (errno));
          goto out;
        }
    }
  if (rc_execute_job_build (app, &ex, bind_fd, &ej, &err) < 0)
    {
      rc_http_error_from (res, &err, "job_build");
      goto out;
    }
  new_id (app->cfg, req, session_id, a.id);
  a.entry = rc_proc_table_reserve (getpid (), a.id);
  if (a.entry < 0)
    {
      rc_http_error (res, 429, "too many processes (RUN_MAX_PROCESSES)");
      res->log_outcome = "busy";
      goto out;
    }
  if (rc_app_claim (app, res, &a.claim) < 0)
    goto out;
  claimed = true;
  ej.job.spec.slot = a.claim.slot;
  res->log_slot = a.claim.slot;
  if (have_session)
    {
      /* A job writes only what its slot's uid owns (session_exec.c). */
      uid_t uid = rc_slot_uid (app->cfg, a.claim.slot);
      if (rc_session_ws_chown_tree (s.dirfd, uid, (gid_t)uid, 128) < 0)
        rc_log (RC_LOG_WARN, "session_chown", "some entries keep their owner: %s",
                strerror (errno));
    }
  if (rc_sup_spawn (&a, res) < 0)
    {
      /* The supervisor gave back what it held, or never took it. */
      claimed = false;
      a.entry = -1;
      goto out;
    }
  claimed = false;
  a.entry = -1;
  if (have_session)
    {
      session_leave (&s);
      have_session = false;
    }
  res->status = 201;
  rc_buf_reset (&res->body);
  rc_buf_printf (&res->body, "{\"id\":\"%s\",\"events\":\"/v1/processes/%s/events\"}", a.id, a.id);
  res->log_outcome = "started";
out:
  if (claimed)
    rc_sandbox_release (app->sandbox, a.claim.slot, a.claim.seq);
  if (a.entry >= 0)
    rc_proc_table_release (a.entry, getpid ());
  if (have_session)
    rc_session_release (&s);
  if (bind_fd >= 0)
    close (bind_fd);
  rc_execute_job_free (&ej);
  rc_execute_request_free (&ex);
}

void
rc_api_process_create (struct rc_app *app, const struct rc_http_request *req,
                       struct rc_http_response *res)
{
  create (app, req, res, NULL);
}

void
rc_api_session_process_create (struct rc_app *app, const struct rc_http_request *req,
                               struct rc_http_response *res)
{
  create (app, req, res, req->path_id);
}

/* ---- a running one ------------------------------------------------------ */

/* One request to the process's supervisor; its answer becomes res (an
 * error as JSON, 204 empty, 200 with its body).  -1 when the call itself
 * failed (res answered). */
static int
call (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res,
      const struct rc_proc_msg *m, const void *data)
{
  struct rc_proc_reply rep = { 0 };
  struct rc_buf body = { 0 };
  rc_err_t err = NULL;
  int fd = rc_proc_call (app->cfg, req->path_id, m, data, &rep, &body, CALL_TIMEOUT_MS, &err);
  if (fd < 0)
    {
      rc_http_error_from (res, &err, "process_call");
      return -1;
    }
  close (fd);
  if (rep.status >= 400)
    rc_http_error (res, rep.status, body.data ? body.data : "error");
  else
    {
      res->status = rep.status;
      rc_buf_reset (&res->body);
      if (body.len)
        rc_buf_append (&res->body, body.data, body.len);
    }
  rc_buf_free (&body);
  return 0;
}

void
rc_api_process_status (struct rc_app *app, const struct rc_http_request *req,
                       struct rc_http_response *res)
{
  struct rc_proc_msg m = { .op = RC_PROC_STATUS };
  (void)call (app, req, res, &m, NULL);
}

void
rc_api_process_delete (struct rc_app *app, const struct rc_http_request *req,
                       struct rc_http_response *res)
{
  struct rc_proc_msg m = { .op = RC_PROC_DELETE };
  (void)call (app, req, res, &m, NULL);
}

void
rc_api_process_stdin (struct rc_app *app, const struct rc_http_request *req,
                      struct rc_http_response *res)
{
  struct rc_proc_msg m = { .op = RC_PROC_STDIN };
  struct rc_buf data = { 0 };
  bool eof = false;
  rc_err_t err = NULL;

  if (rc_proc_stdin_parse (req->content_type, req->body, req->body_len, &data, &eof, &err) < 0)
    rc_http_error_from (res, &err, "process_stdin");
  else
    {
      m.len = (uint32_t)data.len;
      m.flags = eof ? RC_PROC_EOF : 0;
      (void)call (app, req, res, &m, data.data);
    }
  rc_buf_free (&data);
}

void
rc_api_process_signal (struct rc_app *app, const struct rc_http_request *req,
                       struct rc_http_response *res)
{
  struct rc_proc_msg m = { .op = RC_PROC_SIGNAL };
  rc_err_t err = NULL;
  if (rc_proc_signal_parse (req->body, req->body_len, &m.value, &err) < 0)
    rc_http_error_from (res, &err, "process_signal");
  else
    (void)call (app, req, res, &m, NULL);
}

void
rc_api_process_resize (struct rc_app *app, const struct rc_http_request *req,
                       struct rc_http_response *res)
{
  struct rc_proc_msg m = { .op = RC_PROC_RESIZE };
  rc_err_t err = NULL;
  if (rc_proc_resize_parse (req->body, req->body_len, &m.rows, &m.cols, &err) < 0)
    rc_http_error_from (res, &err, "process_resize");
  else
    (void)call (app, req, res, &m, NULL);
}

/* The supervisor's stream to the client as it comes, until the process's
 * last event (the supervisor closes) or the client leaves. */
static void
relay (int fd, struct rc_http_response *res)
{
  char buf[65536];
  for (;;)
    {
      struct pollfd pfd[2]
          = { { .fd = fd, .events = POLLIN }, { .fd = res->stream->fd, .events = POLLIN } };
      ssize_t k;
      nfds_t n = res->stream->fd >= 0 ? 2 : 1;
      if (poll (pfd, n, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return;
        }
      /* Anything from the web server is the end of the request. */
      if (n == 2 && pfd[1].revents)
        {
          res->log_outcome = "client_gone";
          return;
        }
      k = read (fd, buf, sizeof buf);
      if (k < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (k <= 0)
        return;
      if (rc_http_stream_write (res, buf, (size_t)k) < 0)
        {
          res->log_outcome = "client_gone";
          return;
        }
    }
}

void
rc_api_process_events (struct rc_app *app, const struct rc_http_request *req,
                       struct rc_http_response *res)
{
  struct rc_proc_msg m = { .op = RC_PROC_SUBSCRIBE };
  struct rc_proc_reply rep = { 0 };
  rc_err_t err = NULL;
  int fd;

  m.after = rc_proc_last_event_id (req->last_event_id);
  fd = rc_proc_call (app->cfg, req->path_id, &m, NULL, &rep, NULL, CALL_TIMEOUT_MS, &err);
  if (fd < 0)
    {
      rc_http_error_from (res, &err, "process_events");
      return;
    }
  if (rep.status != 200)
    rc_http_errorf (res, rep.status >= 400 ? rep.status : 500, "process events");
  else if (rc_http_stream_begin (res, 200, "text/event-stream") == 0)
    relay (fd, res);
  close (fd);
}
