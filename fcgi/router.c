/* router.c - maps method and path to a handler.
 *
 * Unknown paths are 404 and known paths with another method 405 (with an
 * Allow header), both as JSON, so clients always get a parseable body.
 */
#include "config.h"

#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/metrics.h"
#include "fcgi/version.h"

#include <stdlib.h>
#include <string.h>

typedef void (*rc_handler) (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res);

struct route
{
  const char *path;
  const char *method;
  rc_handler handler;
  bool reads_body;
  bool judge_body; /* its body may be RUN_JUDGE_INPUT_MAX, not RUN_INPUT_MAX */
  enum rc_route_family family;
};

/* True when the query string holds name=1 (or true, yes). */
static bool
query_flag (const char *query, const char *name)
{
  size_t n = strlen (name);
  for (const char *p = query; p && *p;)
    {
      size_t len = strcspn (p, "&");
      if (len > n && strncmp (p, name, n) == 0 && p[n] == '=')
        {
          const char *v = p + n + 1;
          size_t vl = len - n - 1;
          return (vl == 1 && *v == '1') || (vl == 4 && strncmp (v, "true", 4) == 0)
                 || (vl == 3 && strncmp (v, "yes", 3) == 0);
        }
      p += len;
      if (*p == '&')
        p++;
    }
  return false;
}

/* GET /health: the process answers.  GET /health?ready=1: a canary job
 * runs in the sandbox (fcgi/canary.c), so a load balancer sends no work to
 * a host where every job would fail; a runner whose slots are all busy (or
 * whose queue holds requests) stays ready: full is not broken. */
static void
handle_health (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res)
{
  if (query_flag (req->query, "ready") && app->sandbox)
    {
      rc_err_t err = NULL;
      int r = rc_app_canary (app, 0, &err);
      if (r < 0)
        {
          rc_log (RC_LOG_ERROR, "not_ready", "%s", rc_error_text (err));
          rc_error_free (&err);
          rc_http_error (res, 503, "not ready: the sandbox could not run a canary job");
          res->log_outcome = "not_ready";
          return;
        }
      res->log_outcome = r == 0 ? "ready_busy" : "ready";
    }
  else
    res->log_outcome = "ok";
  res->status = 200;
  res->content_type = "text/plain";
  rc_buf_reset (&res->body);
  rc_buf_append_str (&res->body, "ok\n");
}

static void
handle_version (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res)
{
  (void)app;
  (void)req;
  res->status = 200;
  rc_buf_reset (&res->body);
  rc_version_json (&res->body);
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

/* Metrics are for the operator: only the networks of RUN_METRICS_ALLOW
 * (loopback by default) read them; nginx passes the client's address. */
static void
handle_metrics (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res)
{
  if (!rc_cidr_match (app->cfg->metrics_allow, app->cfg->n_metrics_allow, req->remote_addr))
    {
      rc_http_error (res, 403, "forbidden");
      return;
    }
  res->status = 200;
  res->content_type = "text/plain; version=0.0.4";
  rc_buf_reset (&res->body);
  rc_metrics_render (&res->body, rc_slot_table_busy (), rc_slot_table_size ());
}

/* Every route of every API family, one table.  A pattern's {id} matches
 * one path segment, {path} the rest of the path (possibly empty, and then
 * also without its slash); a path may end with one extra '/'. */
#define OTHER RC_FAMILY_OTHER
#define RUN RC_FAMILY_RUN
#define V1 RC_FAMILY_V1
#define SESSIONS RC_FAMILY_SESSIONS
static const struct route routes[] = {
  { "/metrics", "GET", handle_metrics, false, false, OTHER },
  { "/run", "POST", rc_api_run, true, false, RUN },
  { "/v1/execute", "POST", rc_api_execute, true, false, V1 },
  { "/v1/languages", "GET", rc_api_languages, false, false, V1 },
  { "/v1/judge", "POST", rc_api_judge, true, true, V1 },
  { "/health", "GET", handle_health, false, false, OTHER },
  { "/health", "HEAD", handle_health, false, false, OTHER },
  { "/version", "GET", handle_version, false, false, OTHER },
  { "/shutdown", "POST", handle_shutdown, false, false, OTHER },
  { "/execute", "POST", rc_api_session_execute_once, true, false, SESSIONS },
  { "/sessions", "POST", rc_api_session_create, true, false, SESSIONS },
  { "/sessions/{id}", "DELETE", rc_api_session_delete, false, false, SESSIONS },
  { "/sessions/{id}/execute", "POST", rc_api_session_execute, true, false, SESSIONS },
  { "/sessions/{id}/files/{path}", "GET", rc_api_session_file_get, false, false, SESSIONS },
  { "/sessions/{id}/files/{path}", "PUT", rc_api_session_file_put, true, false, SESSIONS },
  { "/sessions/{id}/files/{path}", "DELETE", rc_api_session_file_delete, false, false, SESSIONS },
  { "/sessions/{id}/processes", "POST", rc_api_session_process_create, true, false, SESSIONS },
  { "/v1/processes", "POST", rc_api_process_create, true, false, V1 },
  { "/v1/processes/{id}", "GET", rc_api_process_status, false, false, V1 },
  { "/v1/processes/{id}", "DELETE", rc_api_process_delete, false, false, V1 },
  { "/v1/processes/{id}/events", "GET", rc_api_process_events, false, false, V1 },
  { "/v1/processes/{id}/stdin", "POST", rc_api_process_stdin, true, false, V1 },
  { "/v1/processes/{id}/signal", "POST", rc_api_process_signal, true, false, V1 },
  { "/v1/processes/{id}/resize", "POST", rc_api_process_resize, true, false, V1 },
};
#define N_ROUTES (sizeof routes / sizeof routes[0])

void
rc_route_list (void (*fn) (const struct rc_route_info *route, void *ud), void *ud)
{
  for (size_t i = 0; i < N_ROUTES; i++)
    {
      struct rc_route_info r = { routes[i].method, routes[i].path };
      fn (&r, ud);
    }
}

/* Matches a path as the client sent it against pattern, one segment at a
 * time: each segment is percent-decoded before it is compared (or taken as
 * the {id}); {path} takes the rest as sent, for its handler to decode and
 * judge (a "%2F.." must reach it, not be merged away).  Empty segments are
 * skipped, as nginx merges slashes.  id gets a copy, rest points into
 * path. */
static bool
match (const char *pattern, const char *path, char *id, const char **rest)
{
  const char *p = pattern, *s = path;
  while (*p == '/')
    {
      const char *pend = strchr (p + 1, '/');
      size_t plen = pend ? (size_t)(pend - p - 1) : strlen (p + 1), slen;
      char seg[RC_ROUTE_ID_MAX + 1];

      while (s[0] == '/' && s[1] == '/')
        s++;
      if (plen == 6 && strncmp (p + 1, "{path}", 6) == 0)
        {
          if (*s == '\0')
            *rest = s;
          else if (*s == '/')
            *rest = s + 1;
          else
            return false;
          return true;
        }
      if (*s != '/')
        return false;
      slen = strcspn (s + 1, "/");
      if (slen == 0 || rc_http_percent_decode (s + 1, slen, seg, sizeof seg) < 0
          || strlen (seg) != strcspn (seg, "/"))
        return false;
      if (plen == 4 && strncmp (p + 1, "{id}", 4) == 0)
        strcpy (id, seg);
      else if (strlen (seg) != plen || strncmp (seg, p + 1, plen) != 0)
        return false;
      s += 1 + slen;
      p += 1 + plen;
    }
  while (*s == '/')
    s++;
  return *s == '\0';
}

uint64_t
rc_route_body_max (const struct rc_config *cfg, const char *method, const char *path)
{
  char id[RC_ROUTE_ID_MAX + 1];
  const char *rest = NULL;
  for (size_t i = 0; i < N_ROUTES; i++)
    if (routes[i].judge_body && strcmp (routes[i].method, method) == 0
        && match (routes[i].path, path, id, &rest))
      return cfg->judge.input_max;
  return cfg->input_max;
}

void
rc_route (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res)
{
  static char allow[64];
  char id[RC_ROUTE_ID_MAX + 1];
  const struct route *found = NULL;
  struct rc_http_request matched;
  bool head = strcmp (req->method, "HEAD") == 0;

  res->status = 200;
  res->content_type = "application/json";
  allow[0] = '\0';
  matched = *req;
  for (size_t i = 0; i < N_ROUTES; i++)
    {
      const char *rest = NULL;
      if (!match (routes[i].path, req->raw_path ? req->raw_path : req->path, id, &rest))
        continue;
      if (strcmp (routes[i].method, req->method) == 0
          || (head && found == NULL && strcmp (routes[i].method, "GET") == 0))
        {
          found = &routes[i];
          matched.path_id = strchr (routes[i].path, '{') ? id : NULL;
          matched.path_rest = rest;
          if (!head || strcmp (routes[i].method, "HEAD") == 0)
            break;
          continue;
        }
      if (strstr (allow, routes[i].method) == NULL
          && strlen (allow) + strlen (routes[i].method) + 3 < sizeof allow)
        {
          if (allow[0])
            strcat (allow, ", ");
          strcat (allow, routes[i].method);
        }
    }
  if (found == NULL && strcmp (req->path, "/shutdown") == 0 && !app->cfg->allow_shutdown)
    allow[0] = '\0'; /* without ALLOW_SHUTDOWN the endpoint does not exist at all */
  if (found == NULL)
    {
      if (allow[0])
        {
          res->allow = allow;
          rc_http_error (res, 405, "method not allowed");
        }
      else
        rc_http_error (res, 404, "not found");
      return;
    }
  /* The one check of a body's encoding and size, for every route that
   * reads one. */
  if (found->reads_body)
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
  app->family = found->family;
  found->handler (app, &matched, res);
}
