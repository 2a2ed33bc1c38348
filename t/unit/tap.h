/* tap.h - a minimal TAP producer for the C unit tests. */
#ifndef RUNCELL_T_TAP_H
#define RUNCELL_T_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count, tap_failed;

static inline void __attribute__ ((format (printf, 2, 3)))
tap_ok (int cond, const char *fmt, ...)
{
  va_list ap;
  tap_count++;
  if (!cond)
    tap_failed++;
  printf ("%s %d - ", cond ? "ok" : "not ok", tap_count);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
  fflush (stdout);
}

static inline void __attribute__ ((format (printf, 1, 2)))
tap_diag (const char *fmt, ...)
{
  va_list ap;
  printf ("# ");
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
}

static inline int
tap_done (void)
{
  printf ("1..%d\n", tap_count);
  return tap_failed ? 1 : 0;
}

#endif
