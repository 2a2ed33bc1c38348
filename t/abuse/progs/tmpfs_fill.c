/* abuse: R6 one huge file in /tmp: ENOSPC at the tmpfs size (or EFBIG, or a memory kill) */
/* limits: memoryMb=256 wallTimeMs=8000 */
/* expect: exit=0&&stdout~ENOSPC|EFBIG||oomKilled */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main (void)
{
  static char buf[1 << 20];
  long mib = 0;
  int fd;
  signal (SIGXFSZ, SIG_IGN); /* RLIMIT_FSIZE then shows as EFBIG */
  fd = open ("/tmp/fill", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      printf ("open: %s\n", strerrorname_np (errno));
      return 0;
    }
  memset (buf, 'T', sizeof buf);
  for (mib = 0; mib < 100000; mib++)
    if (write (fd, buf, sizeof buf) != (ssize_t) sizeof buf)
      break;
  printf ("stopped after %ld MiB: %s\n", mib, strerrorname_np (errno));
  return 0;
}
