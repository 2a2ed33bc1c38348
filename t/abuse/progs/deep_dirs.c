/* abuse: R8 nest directories until the path is far past PATH_MAX: the host's cleanup stays bounded */
/* limits: wallTimeMs=10000 cpuMs=8000 */
/* expect: exit=0 stdout~depth= */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
main (void)
{
  int depth;
  if (chdir ("/tmp") < 0)
    return 1;
  for (depth = 0; depth < 20000; depth++)
    if (mkdir ("d", 0700) < 0 || chdir ("d") < 0)
      break;
  printf ("depth=%d (%s)\n", depth, depth < 20000 ? strerrorname_np (errno) : "limit of the test");
  /* the same in the workspace upper layer */
  if (chdir ("/sandbox") == 0)
    for (int i = 0; i < 5000; i++)
      if (mkdir ("w", 0700) < 0 || chdir ("w") < 0)
        break;
  return 0;
}
