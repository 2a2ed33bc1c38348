/* abuse: P47/F19/P206/P6 slot B looks for slot A's files and processes, runs A's setuid file, kill(-1, SIGKILL) */
/* role: pair */
/* limits: wallTimeMs=8000 */
/* expect: probe !stdout~RC-ABUSE-MARKER-OF-SLOT-A */
#include "probe.h"
#include <dirent.h>
#include <fcntl.h>

static long
t_read (void *p)
{
  char buf[128];
  ssize_t n;
  int fd = open ((const char *) p, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  n = read (fd, buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = 0;
  printf ("read %s: %s\n", (const char *) p, buf);
  return 0;
}

static long
t_exec (void *p)
{
  char *av[] = { (char *) p, (char *) "-c", (char *) "id -u", 0 };
  execv ((const char *) p, av);
  return -1;
}

int
main (void)
{
  static const char *paths[] = { "/tmp/marker-a", "/dev/shm/marker-a", "/sandbox/marker-a",
                                 "/proc/2/root/tmp/marker-a", "/proc/3/root/tmp/marker-a" };
  char name[300];
  int killed = 0;
  usleep (700000); /* let slot A start */
  for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++)
    {
      snprintf (name, sizeof name, "read %s", paths[i]);
      probe (name, t_read, (void *) paths[i]);
    }
  probe ("exec A's setuid /tmp/suid-a", t_exec, (void *) "/tmp/suid-a");
  /* host-wide pid scan with signal 0: other slot's processes are not in this pid namespace */
  for (pid_t p = 2; p < 65536; p++)
    if (p != getpid () && !probe_is_ancestor (p) && kill (p, 0) == 0)
      killed++;
  probe_report ("no foreign pids answer kill(pid,0)", killed > 0, "%d answered", killed);
  printf ("B uid=%d\n", (int) getuid ());
  fflush (stdout);
  probe_report ("kill(-1, SIGKILL) sent", 0, "%s", kill (-1, SIGKILL) == 0 ? "sent" : probe_errname (errno));
  return probe_done ();
}
