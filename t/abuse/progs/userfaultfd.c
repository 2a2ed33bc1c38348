/* abuse: P13 userfaultfd(0) and userfaultfd(UFFD_USER_MODE_ONLY), /dev/userfaultfd */
/* expect: probe */
#include "probe.h"
#include <fcntl.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

static long
try_uffd (void *flags)
{
  return syscall (__NR_userfaultfd, (long) flags | O_CLOEXEC);
}

static long
try_dev (void *arg)
{
  (void) arg;
  return open ("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
}

int
main (void)
{
  probe ("userfaultfd(0)", try_uffd, (void *) 0L);
  probe ("userfaultfd(USER_MODE_ONLY)", try_uffd, (void *) (long) UFFD_USER_MODE_ONLY);
  probe ("open /dev/userfaultfd", try_dev, 0);
  return probe_done ();
}
