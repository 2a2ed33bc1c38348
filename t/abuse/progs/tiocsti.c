/* abuse: P15 TIOCSTI on fds 0-2 (plain and with bit 32 set), TIOCLINUX, open("/dev/tty") */
/* expect: probe */
#include "probe.h"
#include <fcntl.h>
#include <sys/ioctl.h>

static long
try_sti (void *req)
{
  char c = 'x';
  long r = -1;
  int saved = EBADF;
  for (int fd = 0; fd < 3; fd++)
    {
      r = syscall (__NR_ioctl, fd, (unsigned long) req, &c);
      if (r >= 0)
        return r;
      saved = errno;
    }
  errno = saved;
  return -1;
}

static long
try_linux (void *arg)
{
  char sub[2] = { 2 /* TIOCL_SETSEL */, 0 };
  (void) arg;
  return syscall (__NR_ioctl, 0, 0x541CUL /* TIOCLINUX */, sub);
}

static long
try_tty (void *arg)
{
  (void) arg;
  return open ("/dev/tty", O_RDWR | O_CLOEXEC);
}

static long
try_sid_tty (void *arg)
{
  /* a controlling tty is the precondition of every injection */
  (void) arg;
  return syscall (__NR_ioctl, 0, (unsigned long) TIOCSCTTY, 1L);
}

int
main (void)
{
  probe ("ioctl(TIOCSTI)", try_sti, (void *) (unsigned long) TIOCSTI);
  probe ("ioctl(TIOCSTI|1<<32)", try_sti, (void *) ((unsigned long) TIOCSTI | (1UL << 32)));
  probe ("ioctl(TIOCLINUX)", try_linux, 0);
  probe ("open(/dev/tty)", try_tty, 0);
  probe ("ioctl(TIOCSCTTY)", try_sid_tty, 0);
  return probe_done ();
}
