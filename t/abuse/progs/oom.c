/* abuse: R3 malloc and touch twice the memory limit */
/* limits: memoryMb=64 */
/* expect: oomKilled limit=memory !timedOut memoryPeakKb>=50000 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main (void)
{
  size_t chunk = 1 << 20;
  for (int i = 0; i < 128; i++)
    {
      char *p = (char *) malloc (chunk);
      if (p == NULL)
        {
          printf ("malloc failed at %d MiB\n", i);
          return 3;
        }
      memset (p, i + 1, chunk); /* touch every page: RSS, not just address space */
    }
  puts ("allocated 128 MiB under a 64 MiB limit");
  return 0;
}
