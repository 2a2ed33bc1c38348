/* judge_request.h - parsing and validating a POST /v1/judge body.
 *
 *   {"language", "files", "compileLimits", "limits",       as /v1/execute
 *    "compare": "exact" | "lines" | "tokens" | {"float": 1e-6},
 *    "checker": null | {"language", "files", "limits", "compileLimits"},
 *    "interactor": null | {the same},
 *    "stopOnFailure": false, "encoding": "utf-8" | "base64",
 *    "tests": [{"name", "stdin", "expected", "args", "limits"}]}
 *
 * The fields it shares with /v1/execute are read by the same readers
 * (execute_request.h: strict fields, base64, files, args, limits), and
 * every limit is resolved by rc_limits_resolve_ask: a test's limits are
 * the request's with the test's own fields over them.
 */
#ifndef RUNCELL_FCGI_JUDGE_JUDGE_REQUEST_H
#define RUNCELL_FCGI_JUDGE_JUDGE_REQUEST_H

#include "common/config.h"
#include "common/lang.h"
#include "common/limits.h"
#include "fcgi/execute/execute_request.h"
#include "fcgi/judge/compare.h"

#include <stdbool.h>
#include <stddef.h>

/* A program of the request: the submission, its checker, its interactor. */
struct rc_judge_program
{
  const struct rc_lang *lang;
  struct rc_exec_file *files;
  size_t n_files;
  struct rc_job_limits limits; /* resolved; a test's run limits are its own */
};

struct rc_judge_test
{
  char *name;
  char *stdin_data; /* NULL: none */
  size_t stdin_len;
  char *expected; /* NULL: no expected output (only the exit status, or the checker) */
  size_t expected_len;
  char **args;          /* NULL-terminated */
  struct rc_limits run; /* the program's limits for this test, resolved */
};

struct rc_judge_request
{
  struct rc_judge_program program;
  struct rc_judge_program checker;    /* lang NULL: none */
  struct rc_judge_program interactor; /* lang NULL: none */
  struct rc_compare compare;
  bool stop_on_failure;
  bool base64_out;
  struct rc_judge_test *tests;
  size_t n_tests;
};

/* The names a checker's or an interactor's working directory gives its
 * files (argv "input output answer"): none of their own files may take
 * one. */
#define RC_JUDGE_INPUT "input"
#define RC_JUDGE_OUTPUT "output"
#define RC_JUDGE_ANSWER "answer"

/* Returns < 0 with *err set: the request's fault with its HTTP status
 * (400, 501; naming the field), or without one (out of memory). */
int rc_judge_request_parse (const char *body, size_t len, const struct rc_config *cfg,
                            const struct rc_lang_table *langs, struct rc_judge_request *out,
                            rc_err_t *err);
void rc_judge_request_free (struct rc_judge_request *req);

#endif
