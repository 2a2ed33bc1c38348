/* abuse: R16 pause() forever: only the wall clock can end it, with CPU time near 0 */
/* limits: wallTimeMs=1500 idleMs=10000 cpuMs=5000 */
/* expect: limit=wall timedOut !idleTimedOut cpuMs<500 wallMs>=1400 wallMs<5000 */
#include <unistd.h>

int
main (void)
{
  for (;;)
    pause ();
}
