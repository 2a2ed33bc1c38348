/* abuse: F21 raise its own limits: memory.max / memory.limit_in_bytes, pids.max, move to the parent's cgroup.procs */
/* expect: probe */
#include "probe.h"
#include <fcntl.h>

static long
t_write (void *p)
{
  char v[32];
  int fd = open ((const char *) p, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  if (strstr ((const char *) p, "procs"))
    snprintf (v, sizeof v, "%d", (int) getpid ());
  else
    strcpy (v, "max");
  return write (fd, v, strlen (v));
}

int
main (void)
{
  static const char *files[]
      = { "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/memory.swap.max",
          "/sys/fs/cgroup/../cgroup.procs",
          "/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/pids/pids.max",
          "/sys/fs/cgroup/memory/cgroup.procs", "/sys/fs/cgroup/unified/cgroup.procs",
          "/sys/fs/cgroup/cgroup.subtree_control", "/sys/fs/cgroup/release_agent",
          "/sys/fs/cgroup/memory/release_agent" };
  char name[300];
  for (unsigned i = 0; i < sizeof files / sizeof files[0]; i++)
    {
      snprintf (name, sizeof name, "write %s", files[i]);
      probe (name, t_write, (void *) files[i]);
    }
  return probe_done ();
}
