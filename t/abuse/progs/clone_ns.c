/* abuse: P4 raw clone(2) with each CLONE_NEW* flag (namespace creation without unshare) */
/* expect: probe */
#include "probe.h"
#include <sched.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static long
try_clone (void *flag)
{
  /* raw syscall: no glibc wrapper logic, child stack shared (it exits at once) */
  long r = syscall (SYS_clone, (unsigned long) (long) flag | SIGCHLD, 0, 0, 0, 0);
  if (r == 0)
    _exit (0);
  if (r > 0)
    {
      int st;
      waitpid ((pid_t) r, &st, 0);
      return 0;
    }
  return -1;
}

int
main (void)
{
  static const struct
  {
    const char *name;
    long flag;
  } f[] = { { "clone(CLONE_NEWUSER)", CLONE_NEWUSER }, { "clone(CLONE_NEWNS)", CLONE_NEWNS },
            { "clone(CLONE_NEWPID)", CLONE_NEWPID },   { "clone(CLONE_NEWNET)", CLONE_NEWNET },
            { "clone(CLONE_NEWUTS)", CLONE_NEWUTS },   { "clone(CLONE_NEWIPC)", CLONE_NEWIPC },
            { "clone(CLONE_NEWCGROUP)", CLONE_NEWCGROUP },
            { "clone(NEWUSER|high bits)", CLONE_NEWUSER | (1L << 32) } };
  for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++)
    probe (f[i].name, try_clone, (void *) f[i].flag);
  return probe_done ();
}
