/* abuse: P4 raw syscall(SYS_clone3) with CLONE_NEWUSER (BPF cannot read its flags): must be ENOSYS */
/* expect: probe stdout~clone3.*ENOSYS */
#include "probe.h"
#include <linux/sched.h>
#include <stdint.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

static long
try_clone3 (void *flags)
{
  struct clone_args a;
  long r;
  memset (&a, 0, sizeof a);
  a.flags = (uint64_t) (uintptr_t) flags;
  a.exit_signal = SIGCHLD;
  r = syscall (SYS_clone3, &a, sizeof a);
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
  probe ("clone3(CLONE_NEWUSER)", try_clone3, (void *) (uintptr_t) CLONE_NEWUSER);
  probe ("clone3(CLONE_NEWNS|CLONE_NEWPID)", try_clone3,
         (void *) (uintptr_t) (CLONE_NEWNS | CLONE_NEWPID));
  probe ("clone3(plain)", try_clone3, (void *) 0); /* ENOSYS for all: glibc falls back */
  return probe_done ();
}
