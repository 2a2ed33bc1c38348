/* fds.c - see fds.h. */
#include "config.h"

#include "common/fds.h"

#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The system call, not glibc's wrapper: the same on every libc. */
static void
close_from_to (unsigned first, unsigned last)
{
  (void)syscall (SYS_close_range, first, last, 0);
}

static int
cmp_int (const void *x, const void *y)
{
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

void
rc_close_fds_except (int *keep, size_t n)
{
  unsigned from = 3;
  qsort (keep, n, sizeof keep[0], cmp_int);
  for (size_t i = 0; i < n; i++)
    {
      if (keep[i] < 3 || (unsigned)keep[i] < from)
        continue;
      if ((unsigned)keep[i] > from)
        close_from_to (from, (unsigned)keep[i] - 1);
      from = (unsigned)keep[i] + 1;
    }
  close_from_to (from, ~0U);
}
