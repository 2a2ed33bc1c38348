/* router_test.c - status codes decided before any job runs: 404, 405,
 * 415, 413, /health, /shutdown both ways, 400s of /run. */
#include <config.h>

#include "fcgi/app.h"
#include "t/unit/tap.h"

#include <string.h>

static int
route (struct rc_app *app, const char *method, const char *path, const char *body,
       const char *encoding, bool too_large, struct rc_http_response *res)
{
  struct rc_http_request req = { 0 };
  memset (res, 0, sizeof *res);
  req.method = method;
  req.path = path;
  req.query = "";
  req.body = body ? body : "";
  req.body_len = body ? strlen (body) : 0;
  req.content_encoding = encoding;
  req.body_too_large = too_large;
  rc_route (app, &req, res);
  return res->status;
}

static bool
body_has (const struct rc_http_response *res, const char *s)
{
  return res->body.data && strstr (res->body.data, s) != NULL;
}

int
main (void)
{
  struct rc_config cfg = { 0 };
  struct rc_lang_table langs = { NULL, 0 };
  struct rc_app app = { 0 };
  struct rc_http_response res;

  cfg.timeout_default_ms = 30000;
  cfg.timeout_max_ms = 600000;
  app.cfg = &cfg;
  app.langs = &langs;

  tap_ok (route (&app, "GET", "/health", NULL, NULL, false, &res) == 200
              && strcmp (res.body.data, "ok\n") == 0,
          "GET /health -> 200 ok");
  rc_buf_free (&res.body);
  tap_ok (route (&app, "GET", "/nope", NULL, NULL, false, &res) == 404
              && body_has (&res, "\"error\""),
          "unknown path -> 404 JSON");
  rc_buf_free (&res.body);
  tap_ok (route (&app, "GET", "/run", NULL, NULL, false, &res) == 405 && res.allow
              && strcmp (res.allow, "POST") == 0 && body_has (&res, "\"error\""),
          "GET /run -> 405 JSON with Allow: POST");
  rc_buf_free (&res.body);
  tap_ok (route (&app, "POST", "/run", "{}", "gzip", false, &res) == 415,
          "Content-Encoding gzip -> 415");
  rc_buf_free (&res.body);
  tap_ok (route (&app, "POST", "/run", "{}", "identity", true, &res) == 413
              && body_has (&res, "payload too large"),
          "body over RUN_INPUT_MAX -> 413 payload too large");
  rc_buf_free (&res.body);
  tap_ok (route (&app, "POST", "/run", "{oops", NULL, false, &res) == 400
              && body_has (&res, "invalid JSON"),
          "malformed JSON -> 400");
  rc_buf_free (&res.body);
  tap_ok (route (&app, "POST", "/run", "{\"solution_text\":\"x\",\"lang_slug\":\"nope\"}", NULL,
                 false, &res)
                  == 400
              && body_has (&res, "unsupported lang_slug"),
          "unknown lang_slug -> 400");
  rc_buf_free (&res.body);
  tap_ok (route (&app, "POST", "/shutdown", NULL, NULL, false, &res) == 404
              && !app.shutdown_requested,
          "POST /shutdown without ALLOW_SHUTDOWN -> 404");
  rc_buf_free (&res.body);
  {
    /* The router matches the path as sent: a segment is decoded before
     * it is compared, {path} is handed over raw. */
    struct rc_http_request req = { 0 };
    memset (&res, 0, sizeof res);
    req.method = "GET";
    req.path = "/sessions";
    req.raw_path = "/%73essions/nope/files/a%2F..%2Fb";
    req.query = "";
    req.body = "";
    rc_route (&app, &req, &res);
    tap_ok (res.status == 404 && body_has (&res, "session not found"),
            "an escaped literal segment still matches its route (%d)", res.status);
    rc_buf_free (&res.body);
    memset (&res, 0, sizeof res);
    req.raw_path = "/sessions/a%2Fb/execute";
    req.method = "POST";
    rc_route (&app, &req, &res);
    tap_ok (res.status == 404 && body_has (&res, "\"not found\""),
            "a decoded '/' inside a segment is no route (%d)", res.status);
    rc_buf_free (&res.body);
  }
  cfg.allow_shutdown = true;
  tap_ok (route (&app, "POST", "/shutdown", NULL, NULL, false, &res) == 200
              && app.shutdown_requested,
          "POST /shutdown with ALLOW_SHUTDOWN -> 200 and drain requested");
  rc_buf_free (&res.body);
  tap_ok (route (&app, "GET", "/shutdown", NULL, NULL, false, &res) == 405,
          "GET /shutdown with ALLOW_SHUTDOWN -> 405");
  rc_buf_free (&res.body);
  return tap_done ();
}
