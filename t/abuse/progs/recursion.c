/* abuse: R29 infinite recursion: SIGSEGV at the stack limit, a runtime error, not a timeout */
/* limits: wallTimeMs=5000 memoryMb=256 */
/* expect: signal=SIGSEGV||exit!=0 !timedOut */
#include <stdio.h>

static unsigned long
down (unsigned long n)
{
  volatile char pad[256];
  pad[0] = (char) n;
  return down (n + 1) + pad[0];
}

int
main (int argc, char **argv)
{
  (void) argv;
  printf ("%lu\n", down ((unsigned long) argc));
  return 0;
}
