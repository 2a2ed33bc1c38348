/* abuse: P4 unshare() each CLONE_NEW* flag, and setns on its own namespaces */
/* expect: probe */
#include "probe.h"
#include <fcntl.h>
#include <sched.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static long
try_unshare (void *flag)
{
  return unshare ((int) (long) flag);
}

static long
try_setns (void *path)
{
  int fd = open ((const char *) path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  return setns (fd, 0);
}

int
main (void)
{
  static const struct
  {
    const char *name;
    long flag;
  } f[] = { { "unshare(CLONE_NEWUSER)", CLONE_NEWUSER }, { "unshare(CLONE_NEWNS)", CLONE_NEWNS },
            { "unshare(CLONE_NEWPID)", CLONE_NEWPID },   { "unshare(CLONE_NEWNET)", CLONE_NEWNET },
            { "unshare(CLONE_NEWUTS)", CLONE_NEWUTS },   { "unshare(CLONE_NEWIPC)", CLONE_NEWIPC },
            { "unshare(CLONE_NEWCGROUP)", CLONE_NEWCGROUP },
            { "unshare(CLONE_NEWTIME)", CLONE_NEWTIME },
            { "unshare(USER|NS)", CLONE_NEWUSER | CLONE_NEWNS } };
  for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++)
    probe (f[i].name, try_unshare, (void *) f[i].flag);
  probe ("setns(/proc/self/ns/mnt)", try_setns, (void *) "/proc/self/ns/mnt");
  probe ("setns(/proc/self/ns/user)", try_setns, (void *) "/proc/self/ns/user");
  return probe_done ();
}
