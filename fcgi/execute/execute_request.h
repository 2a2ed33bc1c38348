/* execute_request.h - parsing and validating a POST /v1/execute body.
 *
 *   {"language": "python", "files": [{"name": "main.py", "content": "..."}],
 *    "stdin": "...", "args": ["..."],
 *    "limits": {"wallTimeMs", "idleMs", "cpuMs", "memoryMb", "pids", "outputKb"}}
 *
 * The limits the request asks go through rc_limits_resolve: the language's
 * defaults field by field, and a value above the operator's ceiling is a
 * 400 naming the field (never a silent clamp).  Zero, negative or
 * non-integer values are 400 too.
 */
#ifndef RUNCELL_FCGI_EXECUTE_REQUEST_H
#define RUNCELL_FCGI_EXECUTE_REQUEST_H

#include "common/config.h"
#include "common/job_build.h" /* rc_exec_run_command_is_simple */
#include "common/lang.h"

#include <stddef.h>

struct rc_exec_file
{
  char *name;
  char *content;
  size_t len;
};

struct rc_execute_request
{
  const struct rc_lang *lang;
  struct rc_exec_file *files;
  size_t n_files;
  char *stdin_data; /* NULL when absent */
  size_t stdin_len;
  char **args;                 /* NULL-terminated, never NULL after a successful parse */
  struct rc_job_limits limits; /* resolved (common/limits.h) */
};

/* Longest accepted file path and path component. */
#define RC_EXEC_PATH_MAX 1024
#define RC_EXEC_NAME_MAX 255
#define RC_EXEC_ARGS_MAX 256

/* Returns < 0 with *err set on error: the request's fault with its HTTP
 * status (400, 413, 501; the message may name the field), or an error
 * without HTTP status (out of memory). */
int rc_execute_request_parse (const char *body, size_t len, const struct rc_config *cfg,
                              const struct rc_lang_table *langs, struct rc_execute_request *out,
                              rc_err_t *err);
void rc_execute_request_free (struct rc_execute_request *req);

/* A relative path a job file may have: no "..", no ".", no empty
 * component, no leading '/', no NUL or control characters, bounded. */
bool rc_exec_path_is_safe (const char *name, size_t len);

#endif
