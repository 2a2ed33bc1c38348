/* abuse: follow-up: the next request on the same slot can still create inotify instances */
/* role: followup */
/* expect: exit=0 stdout~inotify-ok */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>

int
main (void)
{
  int fd = inotify_init1 (IN_CLOEXEC);
  if (fd < 0)
    printf ("inotify_init1: %s\n", strerrorname_np (errno));
  else
    puts ("inotify-ok");
  return 0;
}
