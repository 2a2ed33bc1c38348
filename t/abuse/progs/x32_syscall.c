/* abuse: P10 denied calls issued through the x32 ABI (nr | 0x40000000): killed or ENOSYS */
/* expect: probe */
#include "probe.h"
#include <sched.h>

#define X32 0x40000000L

static long
try_x32 (void *nr)
{
  long n = (long) nr;
  if (n == __NR_unshare)
    return syscall (X32 | n, (long) CLONE_NEWUSER);
  if (n == __NR_keyctl)
    return syscall (X32 | n, 0L /* KEYCTL_GET_KEYRING_ID */, -4L /* user keyring */, 1L);
  if (n == __NR_mount)
    return syscall (X32 | n, "none", "/tmp", "tmpfs", 0L, 0L);
  return syscall (X32 | n);
}

int
main (void)
{
  probe ("x32 unshare(CLONE_NEWUSER)", try_x32, (void *) (long) __NR_unshare);
  probe ("x32 keyctl", try_x32, (void *) (long) __NR_keyctl);
  probe ("x32 mount", try_x32, (void *) (long) __NR_mount);
  return probe_done ();
}
