/* abuse: P11 denied calls through int $0x80 with i386 numbers (unshare 310, keyctl 288, mount 21) */
/* expect: probe */
#include "probe.h"

static long
int80 (long nr, long a, long b, long c)
{
  long r;
  __asm__ volatile ("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
  if (r < 0 && r > -4096)
    {
      errno = (int) -r;
      return -1;
    }
  return r;
}

static long
try_unshare (void *arg)
{
  (void) arg;
  return int80 (310, 0x10000000 /* CLONE_NEWUSER */, 0, 0);
}

static long
try_keyctl (void *arg)
{
  (void) arg;
  return int80 (288, 0 /* KEYCTL_GET_KEYRING_ID */, -4 /* user keyring */, 1);
}

static long
try_getpid (void *arg)
{
  /* even a harmless call: the i386 ABI as a whole is refused */
  (void) arg;
  return int80 (20, 0, 0, 0);
}

int
main (void)
{
  probe ("int80 unshare", try_unshare, 0);
  probe ("int80 keyctl", try_keyctl, 0);
  probe ("int80 getpid", try_getpid, 0);
  return probe_done ();
}
