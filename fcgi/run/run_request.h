/* run_request.h - parsing and validating a POST /run body.
 *
 * The contract is Codebattle's runner (../shared/reference/000_*.txt and
 * codebattle-client.md): {timeout, solution_text, lang_slug, asserts,
 * checker_text}; unknown fields are ignored.  Pure functions over a byte
 * string, so unit tests and the fuzzer drive them without a server.
 */
#ifndef RUNCELL_FCGI_RUN_REQUEST_H
#define RUNCELL_FCGI_RUN_REQUEST_H

#include "common/json_in.h"
#include "common/lang.h"
#include "common/limits.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rc_run_request
{
  char *solution_text;
  size_t solution_len;
  char *lang_slug;
  char *checker_text; /* NULL when absent or JSON null */
  size_t checker_len;
  char *asserts; /* NULL when absent or JSON null */
  size_t asserts_len;
  uint64_t timeout_ms; /* 0 when absent */
};

/* Parses the body.  On error returns < 0 with *err set: a 400 that says
 * what is wrong, or an error without HTTP status (out of memory). */
int rc_run_request_parse (const char *body, size_t len, struct rc_run_request *out, rc_err_t *err);
/* Checks the request against the language table (rc_lang_lookup: unknown
 * slug 400, toolchain not installed 501; a checker the language requires
 * 400) and resolves its limits (a timeout above RUN_TIMEOUT_MAX is 400). */
int rc_run_request_check (const struct rc_run_request *req, const struct rc_config *cfg,
                          const struct rc_lang_table *langs, const struct rc_lang **lang,
                          struct rc_job_limits *limits, rc_err_t *err);
void rc_run_request_free (struct rc_run_request *req);

#endif
