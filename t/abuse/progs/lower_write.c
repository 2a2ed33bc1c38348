/* abuse: F11 write, truncate, chmod and rename files of the read-only lower (compiler, libc, template, canary) */
/* expect: probe */
/* /var/tmp is not a lower: in the job's own root it is a link to the job's
 * /tmp (writable by design, inside the tmpfs budget, discarded with the
 * job), so a file created there must land in that private tmpfs: the
 * same inode as /tmp/<name>, never the host's /var/tmp (the host side of
 * the suite checks the host is unchanged). */
#include "probe.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static long
t_open_w (void *p)
{
  return open ((const char *) p, O_WRONLY | O_APPEND | O_CLOEXEC);
}
static long
t_trunc (void *p)
{
  return truncate ((const char *) p, 0);
}
static long
t_chmod (void *p)
{
  return chmod ((const char *) p, 0777);
}
static long
t_utime (void *p)
{
  return utimensat (AT_FDCWD, (const char *) p, 0, 0);
}
static long
t_create (void *p)
{
  return open ((const char *) p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

int
main (void)
{
  static const char *files[]
      = { "/usr/bin/gcc", "/usr/bin/python3", "/lib/x86_64-linux-gnu/libc.so.6", "/etc/passwd",
          "@CANARY_DIR@/public.txt", "@CANARY_DIR@/secret.txt", "@TEMPLATE_FILE@" };
  static const char *dirs[]
      = { "/usr/bin/rc-abuse-new", "@CANARY_DIR@/new", "/etc/rc-abuse-new", "/root/rc-abuse-new" };
  struct stat via_var, via_tmp;
  int fd;
  char name[512];
  for (unsigned i = 0; i < sizeof files / sizeof files[0]; i++)
    {
      snprintf (name, sizeof name, "open(O_WRONLY) %s", files[i]);
      probe (name, t_open_w, (void *) files[i]);
      snprintf (name, sizeof name, "truncate %s", files[i]);
      probe (name, t_trunc, (void *) files[i]);
      snprintf (name, sizeof name, "chmod %s", files[i]);
      probe (name, t_chmod, (void *) files[i]);
      snprintf (name, sizeof name, "utimensat %s", files[i]);
      probe (name, t_utime, (void *) files[i]);
    }
  for (unsigned i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
    {
      snprintf (name, sizeof name, "create %s", dirs[i]);
      probe (name, t_create, (void *) dirs[i]);
    }
  fd = open ("/var/tmp/rc-abuse-new", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    probe_report ("create /var/tmp/rc-abuse-new", 0, "%s (no /var/tmp at all)",
                  probe_errname (errno));
  else
    {
      int same = fstat (fd, &via_var) == 0 && stat ("/tmp/rc-abuse-new", &via_tmp) == 0
                 && via_var.st_dev == via_tmp.st_dev && via_var.st_ino == via_tmp.st_ino;
      close (fd);
      probe_report ("create /var/tmp/rc-abuse-new", !same,
                    same ? "landed in the job's private /tmp" : "not the job's /tmp");
    }
  return probe_done ();
}
