/* api_sessions.c - placeholder until the sessions API lands: no path
 * belongs to it yet. */
#include "config.h"

#include "fcgi/app.h"

bool
rc_api_sessions_route (struct rc_app *app, const struct rc_http_request *req,
                       struct rc_http_response *res)
{
  (void) app;
  (void) req;
  (void) res;
  return false;
}

void
rc_sessions_sweep (const struct rc_config *cfg)
{
  (void) cfg;
}
