/* abuse: R15 busy loops on 4 threads: CPU time sums across threads */
/* limits: cpuMs=1500 wallTimeMs=20000 idleMs=20000 */
/* expect: limit=cpu timedOut cpuMs>=1400 */
#include <pthread.h>

static void *
spin (void *arg)
{
  volatile unsigned long n = 0;
  (void) arg;
  for (;;)
    n++;
  return 0;
}

int
main (void)
{
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    pthread_create (&t[i], 0, spin, 0);
  spin (0);
  return 0;
}
