/* worker.c - the request loop of one pre-forked worker.
 *
 * A worker accepts one FastCGI request at a time, turns it into an
 * rc_http_request, routes it, writes the response and logs one JSON line.
 * It never exits because of a bad request.  SIGTERM only sets a flag: the
 * request in flight finishes, then the loop ends (FCGI_FAIL_ACCEPT_ON_INTR
 * makes a blocked accept return so an idle worker leaves at once).  It
 * runs in the workers' memory cgroup (RUN_WORKERS_MEMORY_MAX) and says on
 * the scoreboard whether it is idle or busy (fcgi/pool.h), asking the
 * master for more workers when too few are left idle.
 */
#include "config.h"

#include "fcgi/worker.h"
#include "common/json_out.h"
#include "common/clock.h"
#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/http.h"
#include "fcgi/metrics.h"
#include "fcgi/pool.h"

#include <errno.h>
#include <fcgiapp.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t worker_stop;

static void
on_term (int sig)
{
  (void)sig;
  worker_stop = 1;
}

static const char *
param (FCGX_Request *r, const char *name)
{
  return FCGX_GetParam (name, r->envp);
}

/* Reads the body, at most max bytes (the route's); more marks it too large.  nginx
 * buffers the whole body and declares its length, so the body is read
 * straight into one allocation of that size; without a length (another
 * front end) it grows in chunks. */
static int
read_body (FCGX_Request *r, uint64_t max, struct rc_buf *body, bool *too_large)
{
  const char *cl = param (r, "CONTENT_LENGTH");
  uint64_t declared = 0;
  char chunk[16384];
  *too_large = false;
  if (cl && *cl && rc_parse_u64 (cl, &declared) == 0 && declared > max)
    {
      *too_large = true;
      return 0;
    }
  /* FCGX_GetStr counts in int: larger bodies take the chunked path. */
  if (declared > 0 && declared < INT32_MAX - 2)
    {
      int n;
      /* One byte more than declared: a body longer than its length is
       * seen (and read on below), and the buffer stays NUL-terminated. */
      body->data = malloc ((size_t)declared + 2);
      if (body->data == NULL)
        return -1;
      body->cap = (size_t)declared + 2;
      n = FCGX_GetStr (body->data, (int)declared + 1, r->in);
      body->len = n > 0 ? (size_t)n : 0;
      body->data[body->len] = '\0';
      if (body->len <= declared)
        return 0;
    }
  for (;;)
    {
      int n = FCGX_GetStr (chunk, sizeof chunk, r->in);
      if (n <= 0)
        break;
      if (body->len + (size_t)n > max)
        {
          *too_large = true;
          return 0;
        }
      if (rc_buf_append (body, chunk, (size_t)n) < 0)
        return -1;
    }
  return 0;
}

static void
write_response (FCGX_Request *r, const struct rc_http_response *res)
{
  char h[1024];
  int n = rc_http_format_head (res, false, h, sizeof h);
  if (n < 0)
    {
      static const char fail[] = "Status: 500 Internal Server Error\r\nContent-Type: "
                                 "application/json\r\nContent-Length: 20\r\n\r\n"
                                 "{\"error\":\"internal\"}";
      FCGX_PutStr (fail, (int)sizeof fail - 1, r->out);
      return;
    }
  FCGX_PutStr (h, n, r->out);
  if (res->body.len)
    FCGX_PutStr (res->body.data, (int)res->body.len, r->out);
}

/* rc_http_stream's write: the bytes go out now (FCGX_FFlush sends the
 * FastCGI record). */
static int
stream_write (void *ctx, const char *data, size_t len)
{
  FCGX_Request *r = ctx;
  while (len > 0)
    {
      int chunk = len > (1u << 30) ? 1 << 30 : (int)len;
      if (FCGX_PutStr (data, chunk, r->out) != chunk)
        {
          errno = EPIPE;
          return -1;
        }
      data += chunk;
      len -= (size_t)chunk;
    }
  if (FCGX_FFlush (r->out) < 0 || FCGX_GetError (r->out) != 0)
    {
      errno = EPIPE;
      return -1;
    }
  return 0;
}

static void
log_request (FCGX_Request *r, const struct rc_http_request *req, const struct rc_http_response *res,
             uint64_t started_us)
{
  struct rc_buf f = { 0 };
  bool first = true;

  rc_json_key (&f, &first, "request_id");
  rc_json_cstring (&f, req->request_id ? req->request_id : "");
  rc_json_key (&f, &first, "method");
  rc_json_cstring (&f, req->method);
  rc_json_key (&f, &first, "path");
  rc_json_cstring (&f, req->path);
  rc_json_key (&f, &first, "status");
  rc_json_i64 (&f, res->status);
  if (res->log_lang)
    {
      rc_json_key (&f, &first, "lang");
      rc_json_cstring (&f, res->log_lang);
    }
  if (res->log_outcome)
    {
      rc_json_key (&f, &first, "outcome");
      rc_json_cstring (&f, res->log_outcome);
    }
  if (res->log_has_exit || res->log_exit_code)
    {
      rc_json_key (&f, &first, "exit_code");
      rc_json_i64 (&f, res->log_exit_code);
    }
  if (res->log_job)
    rc_buf_printf (&f, ",\"slot\":%d,\"setup_us\":%llu", res->log_slot,
                   (unsigned long long)res->log_setup_us);
  if (res->log_compiles)
    rc_buf_printf (&f, ",\"compiles\":%u", res->log_compiles);
  rc_buf_printf (&f,
                 ",\"wall_ms\":%llu,\"cpu_ms\":%llu,\"memory_peak_kb\":%llu,\"bytes_in\":%zu,"
                 "\"bytes_out\":%zu,\"duration_ms\":%.3f",
                 (unsigned long long)res->log_wall_ms, (unsigned long long)res->log_cpu_ms,
                 (unsigned long long)res->log_mem_kb, req->body_len,
                 res->streamed ? (size_t)res->stream_bytes : res->body.len,
                 (double)(rc_now_us () - started_us) / 1000.0);
  if (rc_log_debug_enabled ())
    {
      /* DEBUG: the request headers, as FastCGI passes them (HTTP_*). */
      bool hfirst = true;
      rc_buf_append_str (&f, ",\"headers\":{");
      for (char **e = r->envp; e && *e; e++)
        if (strncmp (*e, "HTTP_", 5) == 0)
          {
            const char *eq = strchr (*e, '=');
            if (eq == NULL)
              continue;
            if (!hfirst)
              rc_buf_append (&f, ",", 1);
            hfirst = false;
            rc_json_string (&f, *e + 5, (size_t)(eq - *e - 5));
            rc_buf_append (&f, ":", 1);
            rc_json_cstring (&f, eq + 1);
          }
      rc_buf_append (&f, "}", 1);
    }
  rc_log_fields (RC_LOG_INFO, "request", &f);
  rc_buf_free (&f);
}

static void
serve_one (struct rc_app *app, FCGX_Request *r)
{
  struct rc_http_request req = { 0 };
  struct rc_http_response res = { 0 };
  struct rc_http_stream stream = { stream_write, r, r->ipcFd };
  struct rc_buf body = { 0 };
  uint64_t started = rc_now_us ();
  char path[4096], raw_path[4096 * 3];
  const char *uri, *q;
  size_t path_len;
  char rid[40];

  req.method = param (r, "REQUEST_METHOD");
  if (req.method == NULL)
    req.method = "GET";
  /* DOCUMENT_URI is the decoded path nginx matched (a '?' in it is part of
   * a file name); REQUEST_URI is the fallback for other front ends, where
   * the query must be cut off. */
  uri = param (r, "DOCUMENT_URI");
  q = NULL;
  if (uri == NULL || *uri == '\0')
    {
      uri = param (r, "REQUEST_URI");
      q = uri ? strchr (uri, '?') : NULL;
    }
  if (uri == NULL || *uri == '\0')
    uri = "/";
  path_len = q ? (size_t)(q - uri) : strlen (uri);
  if (path_len >= sizeof path)
    {
      /* Never act on a silently shortened path. */
      res.request_id = param (r, "REQUEST_ID");
      rc_http_error (&res, 414, "request path too long");
      write_response (r, &res);
      rc_buf_free (&res.body);
      return;
    }
  memcpy (path, uri, path_len);
  path[path_len] = '\0';
  req.path = path;
  /* The path as the client sent it, for the router (http.h). */
  uri = param (r, "REQUEST_URI");
  if (uri && *uri == '/')
    {
      size_t raw_len = strcspn (uri, "?");
      if (raw_len < sizeof raw_path)
        {
          memcpy (raw_path, uri, raw_len);
          raw_path[raw_len] = '\0';
          req.raw_path = raw_path;
        }
    }
  q = param (r, "QUERY_STRING");
  req.query = q ? q : "";
  req.content_type = param (r, "CONTENT_TYPE");
  req.content_encoding = param (r, "HTTP_CONTENT_ENCODING");
  req.accept = param (r, "HTTP_ACCEPT");
  req.remote_addr = param (r, "REMOTE_ADDR");
  /* The client as nginx keys its per-client limits (RUNCELL_CLIENT: the
   * address, or an authenticating proxy's header); the address without. */
  req.client = param (r, "RUNCELL_CLIENT");
  if (req.client == NULL || *req.client == '\0')
    req.client = req.remote_addr;
  req.last_event_id = param (r, "HTTP_LAST_EVENT_ID");
  req.request_id = param (r, "REQUEST_ID");
  if (req.request_id == NULL)
    {
      snprintf (rid, sizeof rid, "%ld-%llu", (long)getpid (), (unsigned long long)started);
      req.request_id = rid;
    }
  res.request_id = req.request_id;
  res.stream = &stream;
  if (strcmp (req.method, "POST") == 0 || strcmp (req.method, "PUT") == 0)
    {
      /* The route's own cap: /v1/judge takes RUN_JUDGE_INPUT_MAX. */
      uint64_t max
          = rc_route_body_max (app->cfg, req.method, req.raw_path ? req.raw_path : req.path);
      if (read_body (r, max, &body, &req.body_too_large) < 0)
        req.body_too_large = true;
    }
  req.body = body.data ? body.data : "";
  req.body_len = body.len;

  rc_route (app, &req, &res);
  if (!res.streamed)
    write_response (r, &res);
  if (res.log_job)
    rc_metrics_record_request (res.log_lang, res.log_outcome, res.log_setup_us,
                               res.log_wall_ms * 1000, rc_now_us () - started);
  log_request (r, &req, &res, started);
  rc_buf_free (&res.body);
  rc_buf_free (&body);
}

void
rc_worker_main (const struct rc_worker_ctx *ctx)
{
  struct sigaction sa;
  struct rc_app app = { 0 };
  FCGX_Request request;
  rc_err_t err = NULL;
  sigset_t all, term;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_term; /* no SA_RESTART: a blocked accept must return */
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  sa.sa_handler = SIG_IGN;
  sigaction (SIGPIPE, &sa, NULL);
  sa.sa_handler = SIG_DFL;
  sigaction (SIGCHLD, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
  sigaction (SIGUSR1, &sa, NULL);
  sigemptyset (&all);
  sigprocmask (SIG_SETMASK, &all, NULL);
  sigemptyset (&term);
  sigaddset (&term, SIGTERM);
  sigaddset (&term, SIGINT);
  /* A worker never outlives its master. */
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  if (getppid () != ctx->master)
    _exit (0);

  app.cfg = ctx->cfg;
  app.langs = ctx->langs;
  if (rc_sandbox_workers_enter (&err) < 0
      || rc_sandbox_open (&app.sandbox, ctx->cfg, ctx->mode, &err) < 0
      || rc_sandbox_drop_bounding (app.sandbox, &err) < 0)
    {
      rc_log (RC_LOG_ERROR, "worker_failed", "worker %u: %s", ctx->index, rc_error_text (err));
      _exit (70);
    }
  if (FCGX_Init () != 0
      || FCGX_InitRequest (&request, ctx->listen_fd, FCGI_FAIL_ACCEPT_ON_INTR) != 0)
    {
      rc_log (RC_LOG_ERROR, "worker_failed", "worker %u: libfcgi initialisation failed",
              ctx->index);
      _exit (70);
    }
  rc_log (RC_LOG_DEBUG, "worker_ready", "worker %u ready", ctx->index);
  while (!worker_stop)
    {
      int rc;
      rc_pool_set (ctx->index, RC_WORKER_IDLE);
      rc = FCGX_Accept_r (&request);
      if (rc < 0)
        {
          if (worker_stop)
            break;
          if (rc == -EAGAIN)
            continue; /* another worker took that connection */
          if (errno != EINTR)
            {
              rc_log (RC_LOG_WARN, "accept_failed",
                      "worker %u: FCGX_Accept_r returned %d (errno %d)", ctx->index, rc, errno);
              usleep (10000);
            }
          continue;
        }
      /* A request in flight is never interrupted: SIGTERM stays pending
       * until it is answered, then ends the loop. */
      sigprocmask (SIG_BLOCK, &term, NULL);
      if (rc_pool_state (ctx->index) != RC_WORKER_LEAVING)
        rc_pool_set (ctx->index, RC_WORKER_BUSY);
      if (rc_pool_want_more (ctx->cfg->spare_workers))
        kill (ctx->master, SIGUSR1);
      serve_one (&app, &request);
      FCGX_Finish_r (&request);
      /* The client has its answer: the job's claim ends now, and its
       * slot's init clears it away beside our next request (fcgi/jobs.c). */
      rc_app_after_reply (&app);
      sigprocmask (SIG_UNBLOCK, &term, NULL);
      if (app.shutdown_requested)
        {
          rc_log (RC_LOG_INFO, "shutdown_requested", "POST /shutdown: draining");
          kill (ctx->master, SIGTERM);
        }
    }
  rc_app_after_reply (&app);
  rc_sandbox_close (app.sandbox);
  if (rc_pool_state (ctx->index) != RC_WORKER_LEAVING)
    rc_pool_set (ctx->index, RC_WORKER_LEAVING);
  _exit (0);
}
