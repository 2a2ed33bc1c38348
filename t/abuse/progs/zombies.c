/* abuse: R20 fork 1000 children that exit unreaped while the parent sleeps */
/* limits: pids=64 wallTimeMs=2000 */
/* expect: limit=wall stdout~zombies= stdout~EAGAIN */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main (void)
{
  int n, err = 0;
  for (n = 0; n < 1000; n++)
    {
      pid_t p = fork ();
      if (p == 0)
        _exit (0);
      if (p < 0)
        {
          err = errno;
          break;
        }
    }
  printf ("zombies=%d then %s\n", n, err ? strerrorname_np (err) : "no error");
  fflush (stdout);
  for (;;)
    pause ();
}
