/* probe.c - runs inside a sandbox for the isolation tests and prints what
 * it sees, one fact per line, so the Python tests can assert on it.
 *
 *   probe fds          every open fd: "fd N type target" (type from fstat)
 *   probe ids          "uid r e s", "gid r e s", "groups N"
 *   probe open PATH    tries open(O_WRONLY|O_CREAT) and prints "errno N" / "ok"
 *   probe kill-all     kill(-1, SIGKILL) from a child: prints how many it hit
 *                      ("ESRCH" when nothing was reachable)
 *   probe daemon FILE  setsid + double fork; the grandchild sleeps 30 s,
 *                      then appends to FILE (proof it survived)
 *   probe tty          open("/dev/tty") and TIOCSTI on fd 0: errno of each
 *
 * It needs nothing but libc, so it runs in any language template.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static const char *
fd_type (mode_t m)
{
  if (S_ISFIFO (m))
    return "fifo";
  if (S_ISSOCK (m))
    return "socket";
  if (S_ISCHR (m))
    return "chr";
  if (S_ISREG (m))
    return "reg";
  if (S_ISDIR (m))
    return "dir";
  return "other";
}

static int
probe_fds (void)
{
  /* Check every number directly: listing /proc/self/fd would open an fd
   * of its own. */
  int fd;
  for (fd = 0; fd < 1024; fd++)
    {
      struct stat st;
      char link[64], target[256];
      ssize_t k;
      if (fstat (fd, &st) < 0)
        continue;
      snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
      k = readlink (link, target, sizeof target - 1);
      target[k > 0 ? k : 0] = '\0';
      printf ("fd %d %s %s\n", fd, fd_type (st.st_mode), target);
    }
  return 0;
}

static int
probe_ids (void)
{
  uid_t r, e, s;
  gid_t gr, ge, gs;
  if (getresuid (&r, &e, &s) < 0 || getresgid (&gr, &ge, &gs) < 0)
    return 1;
  printf ("uid %u %u %u\n", r, e, s);
  printf ("gid %u %u %u\n", gr, ge, gs);
  printf ("groups %d\n", getgroups (0, NULL));
  return 0;
}

static int
probe_open (const char *path)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    printf ("errno %d\n", errno);
  else
    {
      printf ("ok\n");
      close (fd);
    }
  return 0;
}

static int
probe_kill_all (void)
{
  /* kill(-1) skips the caller, so it also counts whether anyone else was
   * reachable: 0 means it signalled somebody. */
  int r = kill (-1, SIGKILL);
  printf ("%s\n", r == 0 ? "signalled" : errno == ESRCH ? "ESRCH" : strerror (errno));
  return 0;
}

static int
probe_daemon (const char *file)
{
  pid_t p = fork ();
  if (p < 0)
    return 1;
  if (p > 0)
    {
      waitpid (p, NULL, 0);
      printf ("parent done\n");
      return 0;
    }
  setsid ();
  p = fork ();
  if (p != 0)
    _exit (0);
  /* The grandchild: no pipes held, orphaned, its own session. */
  close (0);
  close (1);
  close (2);
  sleep (30);
  {
    int fd = open (file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0)
      {
        if (write (fd, "survived\n", 9) < 0)
          _exit (1);
        close (fd);
      }
  }
  _exit (0);
}

static int
probe_tty (void)
{
  char c = 'x';
  int fd = open ("/dev/tty", O_RDWR | O_CLOEXEC);
  printf ("devtty %d\n", fd < 0 ? errno : 0);
  if (fd >= 0)
    close (fd);
  printf ("tiocsti %d\n", ioctl (0, TIOCSTI, &c) < 0 ? errno : 0);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "fds") == 0)
    return probe_fds ();
  if (argc >= 2 && strcmp (argv[1], "ids") == 0)
    return probe_ids ();
  if (argc >= 3 && strcmp (argv[1], "open") == 0)
    return probe_open (argv[2]);
  if (argc >= 2 && strcmp (argv[1], "kill-all") == 0)
    return probe_kill_all ();
  if (argc >= 3 && strcmp (argv[1], "daemon") == 0)
    return probe_daemon (argv[2]);
  if (argc >= 2 && strcmp (argv[1], "tty") == 0)
    return probe_tty ();
  fprintf (stderr, "usage: probe fds|ids|open PATH|kill-all|daemon FILE|tty\n");
  return 2;
}
