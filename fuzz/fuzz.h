/* fuzz.h - what every libFuzzer target of runcell shares.
 *
 * A target is one file, fuzz/<name>_fuzz.c, that defines
 * LLVMFuzzerTestOneInput and checks the parser's promises with FUZZ_CHECK:
 * a broken promise prints which one and aborts, so libFuzzer records the
 * input as a crash exactly as it does a sanitizer report.  "Does not
 * crash" is the least a target asserts; each one also checks what an
 * accepted input means (it re-validates, round-trips, stays inside its
 * bounds) and that a refusal is the client's 4xx with a message.
 */
#ifndef RUNCELL_FUZZ_FUZZ_H
#define RUNCELL_FUZZ_FUZZ_H

#include "common/error.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, what)                                                                     \
  do                                                                                               \
    {                                                                                              \
      if (!(cond))                                                                                 \
        {                                                                                          \
          fprintf (stderr, "%s:%d: broken invariant: %s (%s)\n", __FILE__, __LINE__, (what),       \
                   #cond);                                                                         \
          abort ();                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)

/* A refused request: an error that names a status the client is answered
 * with (one of the allowed ones, given as a 0-terminated list) and says
 * something.  An error without a status would be a 500 "internal": only
 * allowed for ENOMEM, which no fuzz input reaches. Frees *err. */
static inline void
fuzz_check_refusal (rc_err_t *err, const int *allowed)
{
  int ok = 0;
  FUZZ_CHECK (*err != NULL, "a refusal fills the error");
  FUZZ_CHECK ((*err)->msg != NULL && (*err)->msg[0] != '\0', "a refusal says why");
  for (const int *s = allowed; *s; s++)
    ok |= (*err)->http_status == *s;
  if (!ok)
    fprintf (stderr, "refused with status %d: %s\n", (*err)->http_status, (*err)->msg);
  FUZZ_CHECK (ok, "a refusal is answered with one of the endpoint's client statuses");
  rc_error_free (err);
}

#endif
