/* abuse: N1/N5 TCP to 1.1.1.1:443 and the cloud metadata address, UDP to 8.8.8.8:53; interfaces other than lo */
/* expect: probe */
#include "probe.h"
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

static long
try_tcp (void *addr)
{
  const char *a = (const char *) addr;
  struct sockaddr_in sin;
  int s = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0)
    return -1;
  memset (&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_port = htons (strcmp (a, "169.254.169.254") == 0 ? 80 : 443);
  inet_pton (AF_INET, a, &sin.sin_addr);
  alarm (3);
  return connect (s, (struct sockaddr *) &sin, sizeof sin);
}

static long
try_udp (void *arg)
{
  struct sockaddr_in sin;
  int s = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  (void) arg;
  if (s < 0)
    return -1;
  memset (&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_port = htons (53);
  inet_pton (AF_INET, "8.8.8.8", &sin.sin_addr);
  return sendto (s, "x", 1, 0, (struct sockaddr *) &sin, sizeof sin);
}

static long
try_tcp6 (void *arg)
{
  struct sockaddr_in6 sin6;
  int s = socket (AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  (void) arg;
  if (s < 0)
    return -1;
  memset (&sin6, 0, sizeof sin6);
  sin6.sin6_family = AF_INET6;
  sin6.sin6_port = htons (443);
  inet_pton (AF_INET6, "2606:4700:4700::1111", &sin6.sin6_addr);
  alarm (3);
  return connect (s, (struct sockaddr *) &sin6, sizeof sin6);
}

int
main (void)
{
  struct ifaddrs *ifa, *i;
  probe ("tcp 1.1.1.1:443", try_tcp, (void *) "1.1.1.1");
  probe ("tcp 169.254.169.254:80", try_tcp, (void *) "169.254.169.254");
  probe ("udp 8.8.8.8:53", try_udp, 0);
  probe ("tcp6 [2606:4700:4700::1111]:443", try_tcp6, 0);
  if (getifaddrs (&ifa) == 0)
    {
      int others = 0;
      for (i = ifa; i; i = i->ifa_next)
        if (strcmp (i->ifa_name, "lo") != 0)
          {
            others++;
            printf ("interface %s\n", i->ifa_name);
          }
      probe_report ("only lo", others > 0, "%d other interface entries", others);
      freeifaddrs (ifa);
    }
  return probe_done ();
}
