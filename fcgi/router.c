/* router.c - maps method and path to a handler.
 *
 * Unknown paths are 404 and known paths with another method 405 (with an
 * Allow header), both as JSON, so clients always get a parseable body.
 */
#include "config.h"

#include "fcgi/app.h"
#include "fcgi/metrics.h"

#include <string.h>

typedef void (*rc_handler) (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res);

struct route
{
  const char *path;
  const char *method;
  rc_handler handler;
  bool reads_body;
};

static void
handle_health (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res)
{
  (void)app;
  (void)req;
  res->status = 200;
  res->content_type = "text/plain";
  rc_buf_reset (&res->body);
  rc_buf_append_str (&res->body, "ok\n");
  res->log_outcome = "ok";
}

static void
handle_shutdown (struct rc_app *app, const struct rc_http_request *req,
                 struct rc_http_response *res)
{
  (void)req;
  if (!app->cfg->allow_shutdown)
    {
      rc_http_error (res, 404, "not found");
      return;
    }
  app->shutdown_requested = 1;
  res->status = 200;
  rc_buf_reset (&res->body);
  rc_buf_append_str (&res->body, "{\"status\":\"shutting down\"}");
  res->log_outcome = "ok";
}

/* Metrics are for the operator: nginx allows only its own allowlist, and
 * the backend answers only requests nginx relayed from loopback. */
static void
handle_metrics (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res)
{
  (void)app;
  if (req->remote_addr == NULL
      || (strcmp (req->remote_addr, "127.0.0.1") != 0 && strcmp (req->remote_addr, "::1") != 0))
    {
      rc_http_error (res, 403, "forbidden");
      return;
    }
  res->status = 200;
  res->content_type = "text/plain; version=0.0.4";
  rc_buf_reset (&res->body);
  rc_metrics_render (&res->body, rc_slot_table_busy (), rc_slot_table_size ());
}

static const struct route routes[] = {
  { "/metrics", "GET", handle_metrics, false },
  { "/run", "POST", rc_api_run, true },
  { "/v1/execute", "POST", rc_api_execute, true },
  { "/v1/languages", "GET", rc_api_languages, false },
  { "/health", "GET", handle_health, false },
  { "/health", "HEAD", handle_health, false },
  { "/shutdown", "POST", handle_shutdown, false },
};

void
rc_route_list (void (*fn) (const struct rc_route_info *route, void *ud), void *ud)
{
  for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
    {
      struct rc_route_info r = { routes[i].method, routes[i].path };
      fn (&r, ud);
    }
  for (size_t i = 0; i < rc_api_sessions_n_routes; i++)
    fn (&rc_api_sessions_routes[i], ud);
}

void
rc_route (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res)
{
  bool path_known = false;
  const char *allow = NULL;
  size_t i;

  res->status = 200;
  res->content_type = "application/json";
  /* The sessions family (/sessions..., /execute) routes itself. */
  if (rc_api_sessions_route (app, req, res))
    return;
  for (i = 0; i < sizeof routes / sizeof routes[0]; i++)
    {
      if (strcmp (routes[i].path, req->path) != 0)
        continue;
      path_known = true;
      if (allow == NULL)
        allow = routes[i].method;
      if (strcmp (routes[i].method, req->method) != 0)
        continue;
      if (routes[i].reads_body)
        {
          if (!rc_http_encoding_is_identity (req->content_encoding))
            {
              rc_http_error (res, 415, "unsupported content-encoding");
              return;
            }
          if (req->body_too_large)
            {
              rc_http_error (res, 413, "payload too large");
              return;
            }
        }
      routes[i].handler (app, req, res);
      return;
    }
  if (path_known && strcmp (req->path, "/shutdown") == 0 && !app->cfg->allow_shutdown)
    {
      /* Without ALLOW_SHUTDOWN the endpoint does not exist at all. */
      rc_http_error (res, 404, "not found");
      return;
    }
  if (path_known)
    {
      res->allow = allow;
      rc_http_error (res, 405, "method not allowed");
      return;
    }
  rc_http_error (res, 404, "not found");
}
