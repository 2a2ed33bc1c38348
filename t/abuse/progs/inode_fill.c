/* abuse: R7 create empty files in /tmp until it refuses: ENOSPC at nr_inodes, bounded cleanup */
/* limits: wallTimeMs=15000 idleMs=15000 cpuMs=12000 memoryMb=256 */
/* expect: exit=0 stdout~ENOSPC|EDQUOT */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
main (void)
{
  char name[64];
  long n;
  int err = 0;
  if (mkdir ("/tmp/i", 0700) < 0)
    {
      printf ("mkdir: %s\n", strerrorname_np (errno));
      return 0;
    }
  for (n = 0; n < 20000000; n++)
    {
      int fd;
      snprintf (name, sizeof name, "/tmp/i/%ld", n);
      fd = open (name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd < 0)
        {
          err = errno;
          break;
        }
      close (fd);
    }
  printf ("created %ld files, then %s\n", n, err ? strerrorname_np (err) : "no error");
  return 0;
}
