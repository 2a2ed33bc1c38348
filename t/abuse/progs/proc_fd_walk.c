/* abuse: F8/F9 walk /proc/self/fd: only 0-2 (pipes or /dev/null); fd 0 is not the FastCGI listener; cwd inside */
/* expect: probe */
#include "probe.h"
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>

static long
try_accept (void *arg)
{
  (void) arg;
  return accept (0, 0, 0);
}

static long
try_parent (void *arg)
{
  /* openat(fd, "../../..") from each std fd must not reach outside */
  char buf[64], out[512];
  int fd;
  (void) arg;
  fd = openat (0, "../../..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  snprintf (buf, sizeof buf, "/proc/self/fd/%d", fd);
  return readlink (buf, out, sizeof out - 1);
}

int
main (void)
{
  DIR *d = opendir ("/proc/self/fd");
  struct dirent *e;
  char link[512], path[64], cwd[512];
  int extra = 0, listening = 0;
  socklen_t len = sizeof listening;
  while (d && (e = readdir (d)))
    {
      int fd = atoi (e->d_name);
      struct statfs sf;
      ssize_t n;
      if (e->d_name[0] == '.' || fd == dirfd (d))
        continue;
      snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
      n = readlink (path, link, sizeof link - 1);
      link[n > 0 ? n : 0] = 0;
      printf ("fd %d -> %s\n", fd, link);
      if (fd > 2)
        extra++;
      if (fstatfs (fd, &sf) == 0 && (sf.f_type == CGROUP_SUPER_MAGIC || sf.f_type == CGROUP2_SUPER_MAGIC))
        probe_report ("fd on cgroupfs", 1, "fd %d %s", fd, link);
    }
  if (d)
    closedir (d);
  probe_report ("only fds 0-2 inherited", extra > 0, "%d extra fds", extra);
  if (getsockopt (0, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0)
    probe_report ("fd 0 is not a socket", 1, "fd 0 is a socket, accepting=%d", listening);
  else
    probe_report ("fd 0 is not a socket", 0, "%s", probe_errname (errno));
  probe ("accept(0)", try_accept, 0);
  probe ("openat(0, ../../..)", try_parent, 0);
  if (getcwd (cwd, sizeof cwd) == 0)
    strcpy (cwd, "(unreachable)");
  probe_report ("cwd inside the sandbox", strncmp (cwd, "/sandbox", 8) != 0 && strncmp (cwd, "/tmp", 4) != 0,
                "%s", cwd);
  return probe_done ();
}
