/* compare.h - how a judged program's output is held against the expected
 * output, without a checker.
 *
 *   exact    the bytes are equal
 *   lines    (the default) line by line, each line's trailing whitespace
 *            and the trailing blank lines ignored ("\r\n" ends a line too)
 *   tokens   the whitespace-separated tokens are equal
 *   float    tokens equal, and where both are numbers, within eps of each
 *            other, absolutely or relative to the expected one
 *
 * An output that fails its mode but has the expected tokens is a
 * presentation error (spaces, line breaks): only exact and lines can give
 * one.
 */
#ifndef RUNCELL_FCGI_JUDGE_COMPARE_H
#define RUNCELL_FCGI_JUDGE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

enum rc_compare_mode
{
  RC_COMPARE_LINES = 0,
  RC_COMPARE_EXACT,
  RC_COMPARE_TOKENS,
  RC_COMPARE_FLOAT,
};

struct rc_compare
{
  enum rc_compare_mode mode;
  double eps; /* RC_COMPARE_FLOAT */
};

enum rc_compare_result
{
  RC_COMPARE_EQUAL = 0,
  RC_COMPARE_DIFFERENT,
  RC_COMPARE_PRESENTATION, /* different under the mode, equal as tokens */
};

enum rc_compare_result rc_compare (const struct rc_compare *c, const char *out, size_t out_len,
                                   const char *expected, size_t expected_len);

/* Under one mode only (no presentation check). */
bool rc_compare_equal (const struct rc_compare *c, const char *out, size_t out_len,
                       const char *expected, size_t expected_len);

#endif
