/* canary_fuzz.c - a fuzz target that is wrong on purpose, so t/fuzz/run.sh
 * can show that it catches each kind of report it must fail on.
 *
 * FUZZ_CANARY picks the fault, hit by any input of one byte or more:
 * "overflow" (a heap overflow: AddressSanitizer), "leak" (LeakSanitizer),
 * "ub" (a signed overflow: UndefinedBehaviorSanitizer, which only stops
 * the run when built with -fno-sanitize-recover=undefined, as the
 * targets are), "invariant" (a target's own FUZZ_CHECK), "none" (clean:
 * the harness must pass it).
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"

static void *volatile kept;

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *mode = getenv ("FUZZ_CANARY");
  if (mode == NULL || size == 0)
    return 0;
  if (strcmp (mode, "overflow") == 0)
    {
      char *p = malloc (size);
      memcpy (p, data, size);
      kept = p;                       /* escapes: the compiler may not drop the buffer */
      ((volatile char *)p)[size] = 0; /* one past the end */
      kept = NULL;
      free (p);
    }
  else if (strcmp (mode, "leak") == 0)
    {
      kept = malloc (size + 1);
      kept = NULL; /* the only reference, dropped */
    }
  else if (strcmp (mode, "ub") == 0)
    {
      volatile int big = INT_MAX;
      volatile int sum = big + (int)size; /* signed overflow */
      (void)sum;
    }
  else if (strcmp (mode, "invariant") == 0)
    FUZZ_CHECK (size == 0, "the canary's invariant breaks on any byte");
  return 0;
}
