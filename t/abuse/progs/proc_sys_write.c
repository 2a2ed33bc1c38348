/* abuse: F20/P9 write /proc/sys/kernel/core_pattern, sysrq-trigger, /proc/sys/vm, /sys/kernel; raise RLIMIT_CORE then crash */
/* expect: probe */
#include "probe.h"
#include <fcntl.h>
#include <sys/resource.h>

static long
try_write (void *path)
{
  const char *p = (const char *) path;
  const char *data = strstr (p, "core_pattern") ? "|/tmp/pwn %p" : strstr (p, "oom_score") ? "-1000" : "0";
  int fd = open (p, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  return write (fd, data, strlen (data));
}

static long
try_core (void *arg)
{
  struct rlimit r = { RLIM_INFINITY, RLIM_INFINITY };
  (void) arg;
  return setrlimit (RLIMIT_CORE, &r);
}

int
main (void)
{
  static const char *paths[]
      = { "/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger", "/proc/sys/vm/drop_caches",
          "/proc/sys/kernel/hostname", "/proc/sys/kernel/modprobe", "/proc/sys/fs/file-max",
          "/sys/kernel/uevent_helper", "/sys/kernel/mm/transparent_hugepage/enabled",
          "/proc/sys/user/max_user_namespaces", "/proc/self/oom_score_adj" };
  for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++)
    {
      char name[128];
      snprintf (name, sizeof name, "write %s", paths[i]);
      /* oom_score_adj: raising it only hurts the job; lowering it to -1000 must fail */
      probe (name, try_write, (void *) paths[i]);
    }
  probe ("setrlimit(RLIMIT_CORE, inf)", try_core, 0);
  {
    /* X4: under host memory pressure the job must die before the service */
    FILE *f = fopen ("/proc/self/oom_score_adj", "r");
    int adj = 0;
    if (f && fscanf (f, "%d", &adj) == 1)
      probe_report ("job oom_score_adj raised above the service's (X4)", adj <= 0, "oom_score_adj=%d", adj);
    if (f)
      fclose (f);
  }
  return probe_done ();
}
