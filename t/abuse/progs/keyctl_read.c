/* abuse: P18 run N+1 on the same slot looks for the key run N tried to leave */
/* role: followup */
/* expect: probe !stdout~persisted-across-requests */
#include "probe.h"

static long
try_search (void *ring)
{
  char buf[256];
  long id = syscall (__NR_keyctl, 10 /* KEYCTL_SEARCH */, (long) ring, "user", "rc-abuse-key", 0L);
  long n;
  if (id < 0)
    return -1;
  n = syscall (__NR_keyctl, 11 /* KEYCTL_READ */, id, buf, sizeof buf - 1);
  if (n >= 0)
    {
      buf[n < (long) sizeof buf - 1 ? n : (long) sizeof buf - 1] = 0;
      printf ("found key: %s\n", buf);
    }
  return 0;
}

static long
try_request (void *arg)
{
  (void) arg;
  return syscall (__NR_request_key, "user", "rc-abuse-key", 0L, 0L);
}

int
main (void)
{
  FILE *f = fopen ("/proc/keys", "r");
  char line[512];
  probe ("keyctl(SEARCH user keyring)", try_search, (void *) -4L);
  probe ("request_key", try_request, 0);
  /* /proc/keys lists the keys this uid can see */
  if (f)
    {
      int n = 0;
      while (fgets (line, sizeof line, f))
        if (strstr (line, "rc-abuse-key"))
          n++;
      fclose (f);
      probe_report ("/proc/keys shows no rc-abuse-key", n > 0, "%d matching lines", n);
    }
  return probe_done ();
}
