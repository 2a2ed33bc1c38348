/* verdict.c - a judged test's verdict from the outcomes; see verdict.h. */
#include "config.h"

#include "fcgi/judge/verdict.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

const char *
rc_verdict_name (enum rc_verdict v)
{
  static const char *const names[] = {
    [RC_VERDICT_ACCEPTED] = "accepted",
    [RC_VERDICT_WRONG_ANSWER] = "wrong_answer",
    [RC_VERDICT_PRESENTATION_ERROR] = "presentation_error",
    [RC_VERDICT_PARTIAL] = "partial",
    [RC_VERDICT_TIME_LIMIT] = "time_limit",
    [RC_VERDICT_IDLE_LIMIT] = "idle_limit",
    [RC_VERDICT_MEMORY_LIMIT] = "memory_limit",
    [RC_VERDICT_OUTPUT_LIMIT] = "output_limit",
    [RC_VERDICT_RUNTIME_ERROR] = "runtime_error",
    [RC_VERDICT_CHECKER_ERROR] = "checker_error",
    [RC_VERDICT_SKIPPED] = "skipped",
    [RC_VERDICT_COMPILE_ERROR] = "compile_error",
  };
  return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "checker_error";
}

/* The verdict of a limit that ended a step, or -1 when none did. */
static int
limit_verdict (enum rc_outcome o)
{
  switch (o)
    {
    case RC_OUTCOME_WALL:
    case RC_OUTCOME_CPU:
      return RC_VERDICT_TIME_LIMIT;
    case RC_OUTCOME_IDLE:
      return RC_VERDICT_IDLE_LIMIT;
    case RC_OUTCOME_MEMORY:
      return RC_VERDICT_MEMORY_LIMIT;
    case RC_OUTCOME_OUTPUT:
      return RC_VERDICT_OUTPUT_LIMIT;
    case RC_OUTCOME_NONE:
    case RC_OUTCOME_EXITED:
    case RC_OUTCOME_SIGNALLED:
    case RC_OUTCOME_SANDBOX:
    default:
      return -1;
    }
}

enum rc_verdict
rc_verdict_of_program (const struct rc_step_result *st)
{
  int limit = limit_verdict (st->outcome);
  if (!st->ran || st->outcome == RC_OUTCOME_NONE)
    return RC_VERDICT_SKIPPED;
  if (limit >= 0)
    return (enum rc_verdict)limit;
  if (st->outcome == RC_OUTCOME_EXITED && st->exit_code == 0)
    return RC_VERDICT_ACCEPTED;
  return RC_VERDICT_RUNTIME_ERROR;
}

bool
rc_verdict_points (const char *text, size_t len, double *points)
{
  static const char key[] = "points ";
  const char *p = text, *end = text + len;
  while (p && p < end)
    {
      /* At the start of a line only: a message may quote the word. */
      if ((size_t)(end - p) > sizeof key - 1 && memcmp (p, key, sizeof key - 1) == 0)
        {
          char buf[64], *e;
          size_t n = 0;
          const char *q = p + sizeof key - 1;
          while (q < end && n < sizeof buf - 1 && strchr ("0123456789.eE+-", *q))
            buf[n++] = *q++;
          buf[n] = '\0';
          double x = strtod (buf, &e);
          if (n > 0 && *e == '\0' && isfinite (x) && x >= 0 && x <= 1)
            {
              *points = x;
              return true;
            }
          return false;
        }
      p = memchr (p, '\n', (size_t)(end - p));
      if (p)
        p++;
    }
  return false;
}

enum rc_verdict
rc_verdict_of_checker (const struct rc_step_result *st, double *points)
{
  *points = 0;
  if (!st->ran || st->outcome != RC_OUTCOME_EXITED)
    return RC_VERDICT_CHECKER_ERROR;
  switch (st->exit_code)
    {
    case 0:
      *points = 1;
      return RC_VERDICT_ACCEPTED;
    case 1:
      return RC_VERDICT_WRONG_ANSWER;
    case 2:
      return RC_VERDICT_PRESENTATION_ERROR;
    case 7:
      if (rc_verdict_points (st->err.data, st->err.len, points)
          || rc_verdict_points (st->out.data, st->out.len, points))
        return RC_VERDICT_PARTIAL;
      *points = 0;
      return RC_VERDICT_CHECKER_ERROR; /* partial without its points */
    default:
      return RC_VERDICT_CHECKER_ERROR; /* 3: it failed; any other: not testlib's */
    }
}

enum rc_verdict
rc_verdict_of_interaction (const struct rc_step_result *program,
                           const struct rc_step_result *interactor, double *points)
{
  enum rc_verdict p = rc_verdict_of_program (program);
  enum rc_verdict i = rc_verdict_of_checker (interactor, points);

  if (p != RC_VERDICT_ACCEPTED && p != RC_VERDICT_RUNTIME_ERROR)
    {
      *points = 0;
      return p; /* a limit of the program's, or it never ran */
    }
  if (interactor->ran && interactor->outcome == RC_OUTCOME_SIGNALLED
      && interactor->term_signal == SIGPIPE)
    {
      /* It wrote to a program that had gone: the program ended before the
       * interaction did. */
      *points = 0;
      return p == RC_VERDICT_RUNTIME_ERROR ? p : RC_VERDICT_WRONG_ANSWER;
    }
  if (i == RC_VERDICT_CHECKER_ERROR || i == RC_VERDICT_WRONG_ANSWER
      || i == RC_VERDICT_PRESENTATION_ERROR)
    return i;
  if (p == RC_VERDICT_RUNTIME_ERROR)
    {
      *points = 0;
      return p;
    }
  return i;
}
