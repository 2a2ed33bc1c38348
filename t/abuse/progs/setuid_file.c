/* abuse: F17/F18/P2 chmod 4755 a copy of itself, setcap via xattr, exec setuid-root su: euid never changes */
/* expect: probe */
#include "probe.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <grp.h>
#include <sys/xattr.h>

static char self_copy[] = "/tmp/suid-copy";

static int
copy_self (void)
{
  char buf[65536];
  ssize_t n;
  int in = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  int out = open (self_copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  if (in < 0 || out < 0)
    return -1;
  while ((n = read (in, buf, sizeof buf)) > 0)
    if (write (out, buf, (size_t) n) != n)
      return -1;
  close (in);
  close (out);
  return chmod (self_copy, 04755 | 02000);
}

static long
try_setcap (void *arg)
{
  /* VFS_CAP_REVISION_2 granting everything */
  unsigned int cap[5] = { 0x02000001, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff };
  (void) arg;
  return setxattr (self_copy, "security.capability", cap, sizeof cap, 0);
}

static long
try_setuid0 (void *arg)
{
  (void) arg;
  if (setuid (0) == 0)
    return 0;
  if (setresuid (0, 0, 0) == 0)
    return 0;
  return -1;
}

static long
try_setgroups (void *arg)
{
  gid_t g = 0;
  (void) arg;
  return setgroups (1, &g);
}

/* exec a setuid binary with a mode flag; the child prints its euid, the
 * parent decides: any euid other than ours is an escape. */
static void
exec_check (const char *name, const char *path, char *const argv[])
{
  int pfd[2];
  pid_t pid;
  char buf[128] = { 0 };
  if (pipe (pfd) < 0)
    return;
  pid = fork ();
  if (pid == 0)
    {
      dup2 (pfd[1], 1);
      execv (path, argv);
      _exit (127);
    }
  close (pfd[1]);
  if (read (pfd[0], buf, sizeof buf - 1) < 0)
    buf[0] = 0;
  close (pfd[0]);
  waitpid (pid, 0, 0);
  {
    unsigned long e = strtoul (buf, 0, 10);
    int bad = buf[0] && e != (unsigned long) geteuid ();
    probe_report (name, bad, "euid printed %s (ours %u)", buf[0] ? buf : "nothing",
                  (unsigned) geteuid ());
  }
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--euid") == 0)
    {
      printf ("%u", (unsigned) geteuid ());
      return 0;
    }
  if (copy_self () < 0)
    probe_report ("make setuid copy", 0, "%s", probe_errname (errno));
  else
    {
      char *av[] = { self_copy, (char *) "--euid", 0 };
      exec_check ("exec own setuid copy", self_copy, av);
    }
  probe ("setxattr security.capability", try_setcap, 0);
  probe ("setuid(0)/setresuid(0)", try_setuid0, 0);
  probe ("setgroups([0])", try_setgroups, 0);
  {
    /* su -c runs a shell command as root if su's setuid bit were honoured;
     * with no_new_privs it runs as us and PAM refuses: either way, no root */
    char *av[] = { (char *) "su", (char *) "-c", (char *) "id -u", (char *) "root", 0 };
    exec_check ("exec setuid-root su", "/usr/bin/su", av);
  }
  return probe_done ();
}
