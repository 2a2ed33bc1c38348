/* abuse: F1/F2/F4/F5/J1 plant symlinks, a FIFO, a socket and hardlinks where runcell writes or reads (workspace, /tmp, the binary) */
/* expect: exit=0 stdout~planted */
/* next: hello_after_plant.c */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

static const char *targets[] = { "@CANARY_DIR@/public.txt", "@CANARY_DIR@/secret.txt", "/etc/shadow",
                                 "/proc/1/root@CANARY_DIR@/public.txt", "/proc/self/fd/1" };
static const char *names[] = { "main.c", "main.cpp", "main.py", "main", "a.out", "solution.py",
                               "output.txt", "result.json", "run_script", "stdout", "stderr",
                               "core", "Makefile", "asserts.json", "checker.py", "probe.h" };

int
main (int argc, char **argv)
{
  static const char *dirs[] = { ".", "/tmp", "/dev/shm", "check" };
  char path[512];
  int planted = 0;
  (void) argc;
  for (unsigned d = 0; d < sizeof dirs / sizeof dirs[0]; d++)
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
      {
        snprintf (path, sizeof path, "%s/%s", dirs[d], names[i]);
        unlink (path);
        if (symlink (targets[(d + i) % 5], path) == 0)
          planted++;
      }
  /* our own binary replaced by a symlink to the canary (runcell must not read or chown it) */
  if (unlink (argv[0]) == 0 && symlink ("@CANARY_DIR@/public.txt", argv[0]) == 0)
    planted++;
  /* special files the host must never open or block on */
  if (mkfifo ("./fifo", 0666) == 0)
    planted++;
  if (mkfifo ("/tmp/fifo", 0666) == 0)
    planted++;
  {
    struct sockaddr_un sun;
    int s = socket (AF_UNIX, SOCK_STREAM, 0);
    memset (&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    strcpy (sun.sun_path, "./sock");
    if (s >= 0 && bind (s, (struct sockaddr *) &sun, sizeof sun) == 0)
      planted++;
  }
  /* hardlinks to files outside the workspace: EXDEV/EPERM expected */
  printf ("hardlink canary: %s\n", link ("@CANARY_DIR@/public.txt", "./hl") == 0 ? "made" : "refused");
  printf ("hardlink /etc/passwd: %s\n", link ("/etc/passwd", "/tmp/hl") == 0 ? "made" : "refused");
  printf ("mknod sda: %s\n", mknod ("./sda", S_IFBLK | 0666, makedev (8, 0)) == 0 ? "made" : "refused");
  printf ("planted %d\n", planted);
  return 0;
}
