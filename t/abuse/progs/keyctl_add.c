/* abuse: P18 add_key to the user keyring in run N (keyrings are per uid and slot uids are reused) */
/* expect: probe */
/* next: keyctl_read.c */
#include "probe.h"

static long
try_add (void *ring)
{
  const char payload[] = "persisted-across-requests";
  return syscall (__NR_add_key, "user", "rc-abuse-key", payload, sizeof payload - 1, (long) ring);
}

int
main (void)
{
  probe ("add_key(user keyring)", try_add, (void *) -4L /* KEY_SPEC_USER_KEYRING */);
  probe ("add_key(user session keyring)", try_add, (void *) -5L);
  probe ("add_key(session keyring)", try_add, (void *) -3L);
  return probe_done ();
}
