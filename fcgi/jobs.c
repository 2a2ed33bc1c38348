/* jobs.c - rc_app_run_job: a job that never waits for a slot (429 at
 * once when all are busy); the life cycle is in jobs_wait.c. */
#include "config.h"

#include "fcgi/app.h"
#include "fcgi/session_exec.h"

int
rc_app_run_job (struct rc_app *app, struct rc_job_spec *spec, struct rc_job_result *result,
                struct rc_http_response *res)
{
  return rc_app_run_job_wait (app, spec, result, res, 0, NULL, NULL);
}
