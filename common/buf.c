/* buf.c - growable byte buffers and small job helpers. */
#include <config.h>

#include "common/job.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int
buf_reserve (struct rc_buf *b, size_t extra)
{
  size_t need, cap;
  char *p;
  if (extra > SIZE_MAX - b->len - 1)
    return -ENOMEM;
  need = b->len + extra + 1;
  if (need <= b->cap)
    return 0;
  cap = b->cap ? b->cap : 256;
  while (cap < need)
    cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  p = realloc (b->data, cap);
  if (p == NULL)
    return -ENOMEM;
  b->data = p;
  b->cap = cap;
  return 0;
}

int
rc_buf_append (struct rc_buf *b, const void *data, size_t len)
{
  int r = buf_reserve (b, len);
  if (r < 0)
    return r;
  if (len)
    memcpy (b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
  return 0;
}

int
rc_buf_append_str (struct rc_buf *b, const char *s)
{
  return rc_buf_append (b, s, strlen (s));
}

int
rc_buf_printf (struct rc_buf *b, const char *fmt, ...)
{
  va_list ap;
  int n, r;
  va_start (ap, fmt);
  n = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  if (n < 0)
    return -EINVAL;
  r = buf_reserve (b, (size_t)n);
  if (r < 0)
    return r;
  va_start (ap, fmt);
  vsnprintf (b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end (ap);
  b->len += (size_t)n;
  return 0;
}

void
rc_buf_reset (struct rc_buf *b)
{
  b->len = 0;
  if (b->data)
    b->data[0] = '\0';
}

void
rc_buf_free (struct rc_buf *b)
{
  free (b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

const char *
rc_outcome_name (enum rc_outcome o)
{
  static const char *const names[RC_OUTCOME_COUNT] = { NULL,     "exited", "signalled",
                                                       "wall",   "idle",   "cpu",
                                                       "memory", "output", "sandbox_failure" };
  return (unsigned)o < RC_OUTCOME_COUNT ? names[o] : NULL;
}

const char *
rc_outcome_limit (enum rc_outcome o)
{
  return o >= RC_OUTCOME_WALL && o <= RC_OUTCOME_OUTPUT ? rc_outcome_name (o) : NULL;
}

void
rc_job_result_free (struct rc_job_result *res)
{
  size_t i;
  for (i = 0; i < res->n_steps; i++)
    {
      rc_buf_free (&res->steps[i].out);
      rc_buf_free (&res->steps[i].err);
    }
  free (res->steps);
  res->steps = NULL;
  res->n_steps = 0;
}

void
rc_step_result_explain (struct rc_step_result *r, const struct rc_limits *limits)
{
  if (r->outcome != RC_OUTCOME_MEMORY)
    return;
  rc_buf_printf (&r->err, "runner: killed: memory limit (%llum) exceeded\n",
                 (unsigned long long)(limits->memory_bytes / (1024 * 1024)));
  if (r->thrashed)
    rc_buf_printf (&r->err,
                   "runner: it thrashed at the limit: its own pages were read back at %llu MiB/s"
                   " for %u s\n",
                   (unsigned long long)(r->thrash_rate / (1024 * 1024)), RC_THRASH_SPAN_MS / 1000);
}
