/* abuse: R23 open("/dev/null") until EMFILE: RLIMIT_NOFILE stops it, the service is unaffected */
/* expect: exit=0 stdout~EMFILE */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

int
main (void)
{
  long n;
  for (n = 0; n < 10000000; n++)
    if (open ("/dev/null", O_RDONLY) < 0)
      break;
  printf ("opened %ld fds, then %s\n", n, strerrorname_np (errno));
  return 0;
}
