/* abuse: silent wait: one line of output, then nothing: the idle clock fires, output kept */
/* limits: idleMs=1000 wallTimeMs=8000 */
/* expect: limit=idle idleTimedOut !timedOut stdout~hello-before-silence wallMs<5000 */
#include <stdio.h>
#include <unistd.h>

int
main (void)
{
  puts ("hello-before-silence");
  fflush (stdout);
  for (;;)
    pause ();
}
