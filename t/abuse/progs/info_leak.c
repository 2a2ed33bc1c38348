/* abuse: I5-I7 dmesg/syslog(2), /dev/kmsg, kallsyms addresses, /proc/kcore, /sys/kernel/debug, /sys/class/dmi */
/* expect: probe */
#include "probe.h"
#include <fcntl.h>
#include <sys/klog.h>

static long
t_syslog (void *a)
{
  char buf[256];
  (void) a;
  return klogctl (3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof buf);
}

static long
t_read (void *p)
{
  char buf[64];
  int fd = open ((const char *) p, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  return read (fd, buf, sizeof buf) > 0 ? 0 : -1;
}

int
main (void)
{
  FILE *f;
  char line[256];
  int nonzero = 0, lines = 0;
  probe ("syslog(READ_ALL)", t_syslog, 0);
  probe ("read /dev/kmsg", t_read, (void *) "/dev/kmsg");
  probe ("read /proc/kcore", t_read, (void *) "/proc/kcore");
  probe ("read /sys/kernel/debug", t_read, (void *) "/sys/kernel/debug/sched/debug");
  probe ("read /sys/class/dmi/id/product_uuid", t_read, (void *) "/sys/class/dmi/id/product_uuid");
  probe ("read /dev/mem", t_read, (void *) "/dev/mem");
  probe ("read /dev/sda", t_read, (void *) "/dev/sda");
  probe ("read /dev/vda", t_read, (void *) "/dev/vda");
  f = fopen ("/proc/kallsyms", "r");
  while (f && lines < 2000 && fgets (line, sizeof line, f))
    {
      lines++;
      if (strncmp (line, "0000000000000000", 16) != 0)
        nonzero++;
    }
  if (f)
    fclose (f);
  probe_report ("kallsyms addresses hidden", nonzero > 0, "%d of %d lines show an address", nonzero, lines);
  return probe_done ();
}
