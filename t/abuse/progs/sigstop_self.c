/* abuse: R17 raise(SIGSTOP): a stopped job must still end at the wall limit and be removed */
/* limits: wallTimeMs=1500 idleMs=10000 */
/* expect: limit=wall timedOut stdout~stopping */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int
main (void)
{
  puts ("stopping");
  fflush (stdout);
  raise (SIGSTOP);
  puts ("resumed?");
  for (;;)
    pause ();
}
