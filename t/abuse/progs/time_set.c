/* abuse: P19/T2 clock_settime, settimeofday, adjtimex(modes), sethostname, setdomainname */
/* expect: probe */
#include "probe.h"
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>

static long
t_clock (void *a)
{
  struct timespec ts;
  (void) a;
  clock_gettime (CLOCK_REALTIME, &ts);
  ts.tv_sec += 3600;
  return clock_settime (CLOCK_REALTIME, &ts);
}
static long
t_tod (void *a)
{
  struct timeval tv;
  (void) a;
  gettimeofday (&tv, 0);
  tv.tv_sec -= 3600;
  return settimeofday (&tv, 0);
}
static long
t_adj (void *a)
{
  struct timex tx;
  (void) a;
  memset (&tx, 0, sizeof tx);
  tx.modes = ADJ_OFFSET;
  tx.offset = 100000;
  return adjtimex (&tx);
}
static long
t_host (void *a)
{
  (void) a;
  return sethostname ("pwned", 5);
}
static long
t_domain (void *a)
{
  (void) a;
  return setdomainname ("pwned", 5);
}

int
main (void)
{
  probe ("clock_settime(REALTIME)", t_clock, 0);
  probe ("settimeofday", t_tod, 0);
  probe ("adjtimex(ADJ_OFFSET)", t_adj, 0);
  probe ("sethostname", t_host, 0);
  probe ("setdomainname", t_domain, 0);
  return probe_done ();
}
