/* abuse: R26 exhaust inotify and fanotify instances (per-uid kernel limits; the slot uid is reused): both are denied (ENOSYS), none is made */
/* expect: exit=0 stdout~instances=0.then.ENOSYS stdout~fanotify_init:.ENOSYS */
/* next: inotify_ok.c */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main (void)
{
  int n = 0, w = 0, fd = -1, err = 0;
  for (n = 0; n < 100000; n++)
    {
      int f = inotify_init1 (IN_CLOEXEC);
      if (f < 0)
        {
          err = errno;
          break;
        }
      fd = f;
    }
  printf ("instances=%d then %s\n", n, err ? strerrorname_np (err) : "none");
  {
    /* Unprivileged fanotify (5.13+, inode marks) would see other jobs'
     * opens of shared files as inotify does. */
    int f = (int)syscall (SYS_fanotify_init, 0x100u /* FAN_REPORT_FID */, 0);
    printf ("fanotify_init: %s\n", f < 0 ? strerrorname_np (errno) : "made");
  }
  if (fd >= 0)
    for (w = 0; w < 1000000; w++)
      {
        char d[32];
        snprintf (d, sizeof d, "/proc/self/fd/%d", w % 3);
        if (inotify_add_watch (fd, w % 2 ? "/tmp" : "/sandbox", IN_ALL_EVENTS | (w & 1 ? 0 : IN_MASK_ADD)) < 0)
          break;
        if (w > 10)
          break; /* one fd cannot add the same path twice; the instance count is the real test */
      }
  return 0;
}
