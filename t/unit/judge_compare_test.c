/* judge_compare_test.c - the judge's comparison modes, presentation
 * errors, and the verdicts rendered from outcomes and checker exit codes
 * (fcgi/judge/compare.c, verdict.c). */
#include <config.h>

#include "fcgi/judge/compare.h"
#include "fcgi/judge/verdict.h"
#include "t/unit/tap.h"

#include <signal.h>
#include <string.h>

static enum rc_compare_result
cmp (enum rc_compare_mode mode, double eps, const char *out, const char *exp)
{
  struct rc_compare c = { mode, eps };
  return rc_compare (&c, out, strlen (out), exp, strlen (exp));
}

static struct rc_step_result
exited (int code)
{
  struct rc_step_result r = { 0 };
  r.ran = true;
  r.exited = true;
  r.exit_code = code;
  r.outcome = RC_OUTCOME_EXITED;
  return r;
}

static struct rc_step_result
ended (enum rc_outcome o, int sig)
{
  struct rc_step_result r = { 0 };
  r.ran = true;
  r.outcome = o;
  r.term_signal = sig;
  return r;
}

static void
modes (void)
{
  tap_ok (cmp (RC_COMPARE_EXACT, 0, "3\n", "3\n") == RC_COMPARE_EQUAL, "exact: equal bytes");
  tap_ok (cmp (RC_COMPARE_EXACT, 0, "3", "3\n") == RC_COMPARE_PRESENTATION,
          "exact: a missing newline is a presentation error");
  tap_ok (cmp (RC_COMPARE_EXACT, 0, "4\n", "3\n") == RC_COMPARE_DIFFERENT,
          "exact: another value is different");
  {
    struct rc_compare c = { RC_COMPARE_EXACT, 0 };
    tap_ok (!rc_compare_equal (&c, "a\0b", 3, "a\0c", 3)
                && rc_compare_equal (&c, "a\0b", 3, "a\0b", 3),
            "exact: NUL bytes compared as bytes");
  }

  tap_ok (cmp (RC_COMPARE_LINES, 0, "1 2  \n3\t\n\n\n", "1 2\n3\n") == RC_COMPARE_EQUAL,
          "lines: trailing spaces and blank lines ignored");
  tap_ok (cmp (RC_COMPARE_LINES, 0, "1 2\r\n3\r\n", "1 2\n3") == RC_COMPARE_EQUAL,
          "lines: CRLF and a missing last newline ignored");
  tap_ok (cmp (RC_COMPARE_LINES, 0, "1  2\n", "1 2\n") == RC_COMPARE_PRESENTATION,
          "lines: inner spacing is a presentation error");
  tap_ok (cmp (RC_COMPARE_LINES, 0, "1\n2\n", "1 2\n") == RC_COMPARE_PRESENTATION,
          "lines: another line break is a presentation error");
  tap_ok (cmp (RC_COMPARE_LINES, 0, " 1\n", "1\n") == RC_COMPARE_PRESENTATION,
          "lines: leading spaces count");
  tap_ok (cmp (RC_COMPARE_LINES, 0, "1\n\n2\n", "1\n2\n") == RC_COMPARE_PRESENTATION,
          "lines: an inner blank line counts");
  tap_ok (cmp (RC_COMPARE_LINES, 0, "1\n3\n", "1\n2\n") == RC_COMPARE_DIFFERENT,
          "lines: another token is wrong");
  tap_ok (cmp (RC_COMPARE_LINES, 0, "", "\n\n") == RC_COMPARE_EQUAL,
          "lines: empty against blank lines");
  tap_ok (cmp (RC_COMPARE_LINES, 0, "", "0\n") == RC_COMPARE_DIFFERENT,
          "lines: empty against a value");

  tap_ok (cmp (RC_COMPARE_TOKENS, 0, "  1\n\n2 3\t", "1 2 3\n") == RC_COMPARE_EQUAL,
          "tokens: any whitespace between tokens");
  tap_ok (cmp (RC_COMPARE_TOKENS, 0, "1 2", "1 2 3") == RC_COMPARE_DIFFERENT,
          "tokens: a missing token");
  tap_ok (cmp (RC_COMPARE_TOKENS, 0, "1.0", "1") == RC_COMPARE_DIFFERENT,
          "tokens: numbers compared as text");

  tap_ok (cmp (RC_COMPARE_FLOAT, 1e-6, "0.3333333\n", "0.333333333\n") == RC_COMPARE_EQUAL,
          "float: within 1e-6 absolute");
  tap_ok (cmp (RC_COMPARE_FLOAT, 1e-6, "0.3334\n", "0.333333333\n") == RC_COMPARE_DIFFERENT,
          "float: beyond it");
  tap_ok (cmp (RC_COMPARE_FLOAT, 1e-6, "1000000.5\n", "1000000\n") == RC_COMPARE_EQUAL,
          "float: within 1e-6 relative to the expected value");
  tap_ok (cmp (RC_COMPARE_FLOAT, 1e-6, "1e-3 x", "0.001 x") == RC_COMPARE_EQUAL,
          "float: exponent notation, and words equal as text");
  tap_ok (cmp (RC_COMPARE_FLOAT, 1e-6, "nan", "nan") == RC_COMPARE_EQUAL
              && cmp (RC_COMPARE_FLOAT, 1e9, "nan", "1") == RC_COMPARE_DIFFERENT,
          "float: nan is a word, never a number");
  tap_ok (cmp (RC_COMPARE_FLOAT, 1e-6, "0.1 0.2", "0.1") == RC_COMPARE_DIFFERENT,
          "float: a token more");
  tap_ok (cmp (RC_COMPARE_EXACT, 0, "0.3333333\n", "0.333333333\n") == RC_COMPARE_DIFFERENT
              && cmp (RC_COMPARE_LINES, 0, "0.3333333\n", "0.333333333\n") == RC_COMPARE_DIFFERENT,
          "exact and lines fail what float accepts");
}

static void
verdicts (void)
{
  struct rc_step_result r;
  double points;

  r = exited (0);
  tap_ok (rc_verdict_of_program (&r) == RC_VERDICT_ACCEPTED, "exit 0: accepted (then compared)");
  r = exited (3);
  tap_ok (rc_verdict_of_program (&r) == RC_VERDICT_RUNTIME_ERROR, "exit 3: runtime error");
  r = ended (RC_OUTCOME_SIGNALLED, SIGSEGV);
  tap_ok (rc_verdict_of_program (&r) == RC_VERDICT_RUNTIME_ERROR, "SIGSEGV: runtime error");
  r = ended (RC_OUTCOME_WALL, SIGKILL);
  tap_ok (rc_verdict_of_program (&r) == RC_VERDICT_TIME_LIMIT, "wall: time limit");
  r = ended (RC_OUTCOME_CPU, SIGKILL);
  tap_ok (rc_verdict_of_program (&r) == RC_VERDICT_TIME_LIMIT, "cpu: time limit");
  r = ended (RC_OUTCOME_IDLE, SIGKILL);
  tap_ok (rc_verdict_of_program (&r) == RC_VERDICT_IDLE_LIMIT, "idle: idle limit");
  r = ended (RC_OUTCOME_MEMORY, SIGKILL);
  tap_ok (rc_verdict_of_program (&r) == RC_VERDICT_MEMORY_LIMIT, "memory: memory limit");
  r = ended (RC_OUTCOME_OUTPUT, SIGKILL);
  tap_ok (rc_verdict_of_program (&r) == RC_VERDICT_OUTPUT_LIMIT, "output: output limit");
  memset (&r, 0, sizeof r);
  tap_ok (rc_verdict_of_program (&r) == RC_VERDICT_SKIPPED, "did not run: skipped");

  r = exited (0);
  tap_ok (rc_verdict_of_checker (&r, &points) == RC_VERDICT_ACCEPTED && points == 1,
          "checker 0: accepted, 1 point");
  r = exited (1);
  tap_ok (rc_verdict_of_checker (&r, &points) == RC_VERDICT_WRONG_ANSWER && points == 0,
          "checker 1: wrong answer");
  r = exited (2);
  tap_ok (rc_verdict_of_checker (&r, &points) == RC_VERDICT_PRESENTATION_ERROR,
          "checker 2: presentation error");
  r = exited (3);
  tap_ok (rc_verdict_of_checker (&r, &points) == RC_VERDICT_CHECKER_ERROR,
          "checker 3: its failure");
  r = exited (7);
  rc_buf_append_str (&r.err, "ok so far\npoints 0.25 of 1\n");
  tap_ok (rc_verdict_of_checker (&r, &points) == RC_VERDICT_PARTIAL && points == 0.25,
          "checker 7 with points 0.25 on stderr: partial");
  rc_buf_free (&r.err);
  r = exited (7);
  rc_buf_append_str (&r.out, "points 0.5\n");
  tap_ok (rc_verdict_of_checker (&r, &points) == RC_VERDICT_PARTIAL && points == 0.5,
          "checker 7 with points on stdout");
  rc_buf_free (&r.out);
  r = exited (7);
  rc_buf_append_str (&r.err, "points 1.5\n");
  tap_ok (rc_verdict_of_checker (&r, &points) == RC_VERDICT_CHECKER_ERROR,
          "checker 7 with points above 1: checker error");
  rc_buf_free (&r.err);
  r = exited (7);
  tap_ok (rc_verdict_of_checker (&r, &points) == RC_VERDICT_CHECKER_ERROR,
          "checker 7 without points: checker error");
  r = exited (42);
  tap_ok (rc_verdict_of_checker (&r, &points) == RC_VERDICT_CHECKER_ERROR,
          "checker 42: not testlib's, checker error");
  r = ended (RC_OUTCOME_SIGNALLED, SIGSEGV);
  tap_ok (rc_verdict_of_checker (&r, &points) == RC_VERDICT_CHECKER_ERROR, "checker crash");
  r = ended (RC_OUTCOME_CPU, SIGKILL);
  tap_ok (rc_verdict_of_checker (&r, &points) == RC_VERDICT_CHECKER_ERROR,
          "checker out of time: checker error, never the program's time limit");
}

static void
interaction (void)
{
  struct rc_step_result p, i;
  double points;

  p = exited (0), i = exited (0);
  tap_ok (rc_verdict_of_interaction (&p, &i, &points) == RC_VERDICT_ACCEPTED,
          "both exit 0: accepted");
  p = ended (RC_OUTCOME_SIGNALLED, SIGPIPE), i = exited (1);
  tap_ok (rc_verdict_of_interaction (&p, &i, &points) == RC_VERDICT_WRONG_ANSWER,
          "interactor says wrong answer, the program died of the closed pipe: wrong answer");
  p = exited (0), i = ended (RC_OUTCOME_SIGNALLED, SIGPIPE);
  tap_ok (rc_verdict_of_interaction (&p, &i, &points) == RC_VERDICT_WRONG_ANSWER,
          "the program left before the interactor was done: wrong answer");
  p = ended (RC_OUTCOME_IDLE, SIGKILL), i = ended (RC_OUTCOME_IDLE, SIGKILL);
  tap_ok (rc_verdict_of_interaction (&p, &i, &points) == RC_VERDICT_IDLE_LIMIT,
          "both idle: the program's idle limit");
  p = ended (RC_OUTCOME_WALL, SIGKILL), i = exited (1);
  tap_ok (rc_verdict_of_interaction (&p, &i, &points) == RC_VERDICT_TIME_LIMIT,
          "the program's own limit first");
  p = exited (0), i = exited (3);
  tap_ok (rc_verdict_of_interaction (&p, &i, &points) == RC_VERDICT_CHECKER_ERROR,
          "interactor failure: checker error");
  p = exited (2), i = exited (0);
  tap_ok (rc_verdict_of_interaction (&p, &i, &points) == RC_VERDICT_RUNTIME_ERROR,
          "program exit 2 with the interactor content: runtime error");
  p = exited (0), i = exited (7);
  rc_buf_append_str (&i.err, "points 0.75\n");
  tap_ok (rc_verdict_of_interaction (&p, &i, &points) == RC_VERDICT_PARTIAL && points == 0.75,
          "interactor partial");
  rc_buf_free (&i.err);
}

int
main (void)
{
  modes ();
  verdicts ();
  interaction ();
  tap_ok (strcmp (rc_verdict_name (RC_VERDICT_PRESENTATION_ERROR), "presentation_error") == 0
              && strcmp (rc_verdict_name (RC_VERDICT_TIME_LIMIT), "time_limit") == 0,
          "verdict names as the API spells them");
  return tap_done ();
}
