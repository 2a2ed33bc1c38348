/* abuse: P12 io_uring_setup/enter/register (io_uring runs socket and open ops outside seccomp) */
/* expect: probe */
#include "probe.h"
#include <linux/io_uring.h>

static long
try_setup (void *arg)
{
  struct io_uring_params p;
  (void) arg;
  memset (&p, 0, sizeof p);
  return syscall (__NR_io_uring_setup, 8, &p);
}

static long
try_enter (void *arg)
{
  (void) arg;
  return syscall (__NR_io_uring_enter, 0, 0, 0, 0, 0, 0);
}

static long
try_register (void *arg)
{
  (void) arg;
  return syscall (__NR_io_uring_register, 0, 0, 0, 0);
}

int
main (void)
{
  probe ("io_uring_setup", try_setup, 0);
  /* fd 0 is not a ring: EBADF/EOPNOTSUPP would also be safe, but the call itself should be filtered */
  probe ("io_uring_enter", try_enter, 0);
  probe ("io_uring_register", try_register, 0);
  return probe_done ();
}
