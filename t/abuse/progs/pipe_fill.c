/* abuse: R24/R25 many pipes grown with F_SETPIPE_SZ and filled; SCM_RIGHTS fd-in-flight cycles */
/* limits: memoryMb=128 wallTimeMs=8000 */
/* expect: exit=0&&stdout~pipes=||oomKilled */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void
send_fd (int sock, int fd)
{
  char c = 'x';
  struct iovec iov = { &c, 1 };
  char ctrl[CMSG_SPACE (sizeof (int))];
  struct msghdr m;
  struct cmsghdr *cm;
  memset (&m, 0, sizeof m);
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = ctrl;
  m.msg_controllen = sizeof ctrl;
  cm = CMSG_FIRSTHDR (&m);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (cm), &fd, sizeof fd);
  sendmsg (sock, &m, MSG_DONTWAIT);
}

int
main (void)
{
  static char buf[65536];
  long bytes = 0;
  int n, cycles = 0;
  memset (buf, 'p', sizeof buf);
  for (n = 0; n < 100; n++)
    {
      int p[2];
      if (pipe2 (p, O_NONBLOCK) < 0)
        break;
      fcntl (p[1], F_SETPIPE_SZ, 1 << 20);
      for (;;)
        {
          ssize_t w = write (p[1], buf, sizeof buf);
          if (w <= 0)
            break;
          bytes += w;
        }
    }
  /* unix sockets that carry each other in flight, then closed: garbage for the kernel's unix GC */
  for (cycles = 0; cycles < 50; cycles++)
    {
      int s[2];
      if (socketpair (AF_UNIX, SOCK_DGRAM, 0, s) < 0)
        break;
      send_fd (s[0], s[1]);
      send_fd (s[1], s[0]);
      close (s[0]);
      close (s[1]);
    }
  printf ("pipes=%d bytes=%ld cycles=%d\n", n, bytes, cycles);
  return 0;
}
