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
  char *asserts;      /* NULL when absent or JSON null */
  size_t asserts_len;
  uint64_t timeout_ms;
};


/* Parses the body.  On error returns < 0 with *err set: a 400 that says
 * what is wrong, or an error without HTTP status (out of memory). */
int rc_run_request_parse (const char *body, size_t len, uint64_t default_timeout_ms,
                          uint64_t max_timeout_ms, struct rc_run_request *out, rc_err_t *err);
/* Checks the request against the language table: unknown slug (400),
 * toolchain not installed (501), checker required (400). */
int rc_run_request_check_lang (const struct rc_run_request *req, const struct rc_lang_table *langs,
                               const struct rc_lang **lang, rc_err_t *err);
void rc_run_request_free (struct rc_run_request *req);

#endif
