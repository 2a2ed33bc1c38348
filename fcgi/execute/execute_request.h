/* execute_request.h - parsing and validating a POST /v1/execute body, and
 * the readers of the fields every /v1 body shares (/v1/execute, /v1/judge).
 *
 *   {"language": "python", "files": [{"name": "main.py", "content": "..."}],
 *    "stdin": "...", "args": ["..."],
 *    "limits": {"wallTimeMs", "idleMs", "cpuMs", "memoryMb", "pids", "outputKb"},
 *    "compileLimits": {the same fields}, "encoding": "utf-8" | "base64",
 *    "tty": false}
 *
 * The same body starts a process (/v1/processes), which alone may ask for
 * "tty": true.
 *
 * Every field that carries program data (a file's content, stdin, an
 * argument, a judged test's expected output) may be a string or
 * {"base64": "..."}.  An unknown field at any depth is a 400 naming it.
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

#include <stdbool.h>
#include <stddef.h>

struct json_object;

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
  struct rc_job_limits limits; /* resolved (common/limits.h), compileLimits included */
  bool base64_out;             /* "encoding": "base64": every output as {"base64": ...} */
  bool tty;                    /* a terminal for the program (processes only) */
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

/* The result of a /v1/execute job, as the unstreamed answer, the final
 * `result` event of a streamed one and a process's `exit` event and
 * status all carry it: the run step's fields at the top level, "stage",
 * and "compile" when the language compiles (api_execute.c). */
void rc_execute_render (struct rc_buf *b, const struct rc_job_result *jr, bool has_compile,
                        bool base64);
/* The request log's fields of that result. */
struct rc_http_response;
void rc_execute_log (struct rc_http_response *res, const struct rc_job_result *jr, size_t run_step,
                     bool has_compile);

/* The job of a parsed body: its files in an empty workspace, or, with a
 * session's directory (bind_dirfd >= 0), built as a session's /execute is
 * (the entry file is the code, the others are written into the session).
 * ej->files is the storage the job points into. */
struct rc_app;
struct rc_execute_job
{
  struct rc_job job;
  struct rc_file *files;
};
int rc_execute_job_build (struct rc_app *app, const struct rc_execute_request *ex, int bind_dirfd,
                          struct rc_execute_job *ej, rc_err_t *err);
void rc_execute_job_free (struct rc_execute_job *ej);

/* POST /v1/execute with Accept: text/event-stream (execute_stream.c):
 * claims a slot (429 as JSON when none), answers 200 text/event-stream at
 * once and runs the job, its stage, stdout and stderr events as they come,
 * then the result event.  A client that goes away ends the job. */
struct rc_http_response;
void rc_execute_stream (struct rc_app *app, struct rc_job *job, bool base64,
                        struct rc_http_response *res);

/* A relative path a job file may have: no "..", no ".", no empty
 * component, no leading '/', no NUL or control characters, bounded. */
bool rc_exec_path_is_safe (const char *name, size_t len);

/* ---- the fields of every /v1 body ----
 * Each reader names the field in its errors as `name` ("stdin",
 * "tests[3].stdin", "checker.files"), returns < 0 with a 400 (or a
 * status-less ENOMEM), and leaves nothing allocated on failure. */

/* Program data: a JSON string, or {"base64": "..."}; copied into a new
 * NUL-terminated buffer (*out, *len bytes). */
int rc_v1_bytes (struct json_object *v, const char *name, char **out, size_t *len, rc_err_t *err);
/* A language slug or alias the service can run (NULL or not a string:
 * 400 "<key> is required"; 400 unknown, 501 not installed here). */
int rc_v1_language (struct json_object *v, const char *key, const struct rc_lang_table *langs,
                    const struct rc_lang **out, rc_err_t *err);
/* A non-empty array of {"name", "content"}: safe distinct names, at most
 * RUN_MAX_FILES. */
int rc_v1_files (struct json_object *v, const char *name, const struct rc_config *cfg,
                 struct rc_exec_file **files, size_t *n, rc_err_t *err);
void rc_v1_files_free (struct rc_exec_file *files, size_t n);
/* An array of arguments (NULL or absent: none), each program data without
 * NUL; *args NULL-terminated. */
int rc_v1_args (struct json_object *v, const char *name, char ***args, rc_err_t *err);
/* A limits object (NULL: nothing asked) into asked, in bytes and ms;
 * over asked's earlier values (a judged test's over the request's). */
int rc_v1_limits (struct json_object *v, const char *name, const struct rc_config *cfg,
                  struct rc_limits *asked, rc_err_t *err);
/* "encoding": absent, null, "utf-8" or "base64". */
int rc_v1_encoding (struct json_object *v, bool *base64, rc_err_t *err);

#endif
