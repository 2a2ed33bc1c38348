/* strv.c - see strv.h. */
#include <config.h>

#include "common/strv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t
rc_strv_len (char *const *v)
{
  size_t n = 0;
  while (v && v[n])
    n++;
  return n;
}

int
rc_strv_push (char ***v, char *s)
{
  size_t n = rc_strv_len (*v);
  char **grown;
  if (s == NULL)
    return -1;
  grown = realloc (*v, (n + 2) * sizeof **v);
  if (grown == NULL)
    {
      free (s);
      return -1;
    }
  grown[n] = s;
  grown[n + 1] = NULL;
  *v = grown;
  return 0;
}

int
rc_strv_pushn (char ***v, const char *s, size_t len)
{
  return rc_strv_push (v, strndup (s, len));
}

void
rc_strv_free (char **v)
{
  if (v == NULL)
    return;
  for (char **p = v; *p; p++)
    free (*p);
  free (v);
}

char *
rc_strdupf (const char *fmt, ...)
{
  va_list ap;
  char *s = NULL;
  int n;
  va_start (ap, fmt);
  n = vasprintf (&s, fmt, ap);
  va_end (ap);
  return n < 0 ? NULL : s;
}
