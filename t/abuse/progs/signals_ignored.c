/* abuse: R18/T4 ignore and block every signal (SIGXCPU too), arm itimers, spin: still killed */
/* limits: cpuMs=1000 wallTimeMs=4000 */
/* expect: limit=cpu|wall timedOut */
#include <signal.h>
#include <string.h>
#include <sys/time.h>

int
main (void)
{
  sigset_t all;
  struct itimerval it;
  for (int s = 1; s < NSIG; s++)
    signal (s, SIG_IGN);
  sigfillset (&all);
  sigprocmask (SIG_BLOCK, &all, 0);
  memset (&it, 0, sizeof it);
  it.it_value.tv_usec = 100000;
  it.it_interval.tv_usec = 100000;
  setitimer (ITIMER_REAL, &it, 0);
  setitimer (ITIMER_PROF, &it, 0);
  for (volatile unsigned long n = 0;; n++)
    ;
}
