/* abuse: R1 for(;;) fork(); every process forks until pids.max, then keeps trying */
/* limits: pids=32 cpuMs=2000 wallTimeMs=4000 */
/* expect: limit=cpu|wall timedOut stdout~EAGAIN */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

int
main (void)
{
  int said = 0;
  for (;;)
    if (fork () < 0 && !said)
      {
        said = 1;
        printf ("fork: %s\n", errno == EAGAIN ? "EAGAIN" : "other error");
        fflush (stdout);
      }
}
