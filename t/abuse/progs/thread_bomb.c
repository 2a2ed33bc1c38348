/* abuse: R2 pthread_create with 16 KiB stacks until it fails: threads count toward pids.max */
/* limits: pids=32 */
/* expect: exit=0 stdout~threads-stopped-at=([12]?[0-9]|3[0-2])\s stdout~EAGAIN */
#define _GNU_SOURCE 1
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void *
park (void *arg)
{
  (void) arg;
  for (;;)
    pause ();
  return 0;
}

int
main (void)
{
  pthread_attr_t a;
  int n = 0, r = 0;
  pthread_attr_init (&a);
  pthread_attr_setstacksize (&a, 16384);
  for (n = 0; n < 100000; n++)
    {
      pthread_t t;
      r = pthread_create (&t, &a, park, 0);
      if (r != 0)
        break;
    }
  printf ("threads-stopped-at=%d %s\n", n, r ? strerrorname_np (r) : "never failed");
  fflush (stdout);
  _exit (0);
}
