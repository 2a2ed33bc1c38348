/* verdict.h - a judged test's verdict, rendered from the sandbox's one
 * outcome (rc_outcome: how the program's step ended) and, once it exited
 * cleanly, from the comparison or the checker's exit code.  Nothing is
 * decided twice: a limit that ended the program is its verdict, whatever
 * it printed.
 *
 * A checker (and an interactor) speaks testlib's exit codes: 0 accepted,
 * 1 wrong answer, 2 presentation error, 3 its own failure, 7 partial
 * points with "points X" (0 <= X <= 1) on its stderr or stdout.  Anything
 * else of it (a crash, a limit, another code) is checker_error, never the
 * submission's.
 */
#ifndef RUNCELL_FCGI_JUDGE_VERDICT_H
#define RUNCELL_FCGI_JUDGE_VERDICT_H

#include "common/job.h"

#include <stdbool.h>

enum rc_verdict
{
  RC_VERDICT_ACCEPTED = 0,
  RC_VERDICT_WRONG_ANSWER,
  RC_VERDICT_PRESENTATION_ERROR,
  RC_VERDICT_PARTIAL,
  RC_VERDICT_TIME_LIMIT, /* wall or CPU: "limit" says which */
  RC_VERDICT_IDLE_LIMIT,
  RC_VERDICT_MEMORY_LIMIT,
  RC_VERDICT_OUTPUT_LIMIT,
  RC_VERDICT_RUNTIME_ERROR, /* a non-zero exit or a signal */
  RC_VERDICT_CHECKER_ERROR,
  RC_VERDICT_SKIPPED,
  RC_VERDICT_COMPILE_ERROR, /* the submission's only */
};
/* "accepted", "wrong_answer", ... as the API names them. */
const char *rc_verdict_name (enum rc_verdict v);

/* The program's step: accepted when it exited 0 (the output is then
 * compared or checked), else its limit or runtime_error; skipped when it
 * did not run.  Never called with RC_OUTCOME_SANDBOX (a failure of the
 * service, not a verdict). */
enum rc_verdict rc_verdict_of_program (const struct rc_step_result *st);

/* A checker's step (or an interactor's): its verdict, and for partial the
 * points in *points (accepted 1, anything else 0). */
enum rc_verdict rc_verdict_of_checker (const struct rc_step_result *st, double *points);

/* An interactive test: the program's and the interactor's steps together.
 * The program's own limit first (its clocks caught it), then the
 * interactor's failure (checker_error), its wrong or presentation answer
 * (a program killed by the broken pipe after it is not a runtime error),
 * then the program's runtime error, then the interactor's accepted or
 * partial.  An interactor killed by SIGPIPE wrote to a program that had
 * already gone: wrong_answer (runtime_error when the program failed). */
enum rc_verdict rc_verdict_of_interaction (const struct rc_step_result *program,
                                           const struct rc_step_result *interactor, double *points);

/* "points X" in text (the first such line's number), 0 <= X <= 1. */
bool rc_verdict_points (const char *text, size_t len, double *points);

#endif
