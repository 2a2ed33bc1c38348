/* abuse: N2/N3/N4 reach the API: 127.0.0.1:<nginx port>, ::1, the FastCGI unix socket, /run sockets, abstract sockets */
/* expect: probe */
#include "probe.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

static long
try_tcp (void *portp)
{
  struct sockaddr_in sin;
  int s = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0)
    return -1;
  memset (&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_port = htons ((unsigned short) (long) portp);
  sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  alarm (3);
  return connect (s, (struct sockaddr *) &sin, sizeof sin);
}

static long
try_tcp6 (void *portp)
{
  struct sockaddr_in6 sin6;
  int s = socket (AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0)
    return -1;
  memset (&sin6, 0, sizeof sin6);
  sin6.sin6_family = AF_INET6;
  sin6.sin6_port = htons ((unsigned short) (long) portp);
  sin6.sin6_addr = in6addr_loopback;
  alarm (3);
  return connect (s, (struct sockaddr *) &sin6, sizeof sin6);
}

static long
try_unix (void *path)
{
  struct sockaddr_un sun;
  const char *p = (const char *) path;
  int s = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  socklen_t len;
  if (s < 0)
    return -1;
  memset (&sun, 0, sizeof sun);
  sun.sun_family = AF_UNIX;
  strncpy (sun.sun_path, p, sizeof sun.sun_path - 1);
  len = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + strlen (p));
  if (p[0] == '@')
    sun.sun_path[0] = 0; /* abstract */
  alarm (3);
  return connect (s, (struct sockaddr *) &sun, len);
}

int
main (void)
{
  static const char *paths[]
      = { "@API_SOCKET@", "/run/dbus/system_bus_socket", "/var/run/docker.sock",
          "/run/systemd/private", "/run/systemd/notify", "/run/containerd/containerd.sock",
          "/dev/log" };
  static const long ports[] = { @API_PORT@, 80, 4040, 22, 5432, 6379, 9000 };
  char name[300], line[512];
  FILE *f;
  for (unsigned i = 0; i < sizeof ports / sizeof ports[0]; i++)
    {
      snprintf (name, sizeof name, "tcp 127.0.0.1:%ld", ports[i]);
      probe (name, try_tcp, (void *) ports[i]);
    }
  probe ("tcp [::1]:api", try_tcp6, (void *) (long) @API_PORT@);
  for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++)
    {
      snprintf (name, sizeof name, "unix %s", paths[i]);
      probe (name, try_unix, (void *) paths[i]);
    }
  /* every abstract socket the job can see in its network namespace */
  f = fopen ("/proc/net/unix", "r");
  if (f)
    {
      while (fgets (line, sizeof line, f))
        {
          char *at = strchr (line, '@');
          if (at)
            {
              at[strcspn (at, "\n")] = 0;
              snprintf (name, sizeof name, "abstract %s", at);
              probe (name, try_unix, (void *) at);
            }
        }
      fclose (f);
    }
  return probe_done ();
}
