/* abuse: P17 socket(AF_VSOCK), AF_PACKET, SOCK_RAW, AF_NETLINK route writes (add an address to lo) */
/* expect: probe */
#include "probe.h"
#include <netinet/in.h>
#include <sys/socket.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

static long
t_sock (void *a)
{
  long *v = (long *) a;
  return socket ((int) v[0], (int) v[1] | SOCK_CLOEXEC, (int) v[2]);
}

int
main (void)
{
  static long vsock[3] = { AF_VSOCK, SOCK_STREAM, 0 };
  static long packet[3] = { AF_PACKET, SOCK_RAW, 0x0300 /* htons(ETH_P_ALL) */ };
  static long raw[3] = { AF_INET, SOCK_RAW, IPPROTO_RAW };
  static long icmp[3] = { AF_INET, SOCK_RAW, IPPROTO_ICMP };
  probe ("socket(AF_VSOCK)", t_sock, vsock);
  probe ("socket(AF_PACKET)", t_sock, packet);
  probe ("socket(AF_INET, SOCK_RAW)", t_sock, raw);
  probe ("socket(AF_INET, SOCK_RAW, ICMP)", t_sock, icmp);
  return probe_done ();
}
