/* abuse: follow-up: the next request on the same slot gets the same answer (ENOSYS, not a per-uid limit left by the one before) */
/* role: followup */
/* expect: exit=0 stdout~inotify_init1:.ENOSYS */
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
