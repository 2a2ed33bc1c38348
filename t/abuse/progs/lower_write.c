/* abuse: F11 write, truncate, chmod and rename files of the read-only lower (compiler, libc, template, canary) */
/* expect: probe */
#include "probe.h"
#include <fcntl.h>
#include <sys/stat.h>

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
  static const char *dirs[] = { "/usr/bin/rc-abuse-new", "@CANARY_DIR@/new", "/etc/rc-abuse-new",
                                "/var/tmp/rc-abuse-new", "/root/rc-abuse-new" };
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
  return probe_done ();
}
