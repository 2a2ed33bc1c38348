/* abuse: R21 double fork + setsid + ignore SIGHUP + close fds + sleep forever (DMOJ #318) */
/* limits: wallTimeMs=3000 */
/* expect: exit=0 stdout~daemonized */
/* next: clean_check.py */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int
main (void)
{
  pid_t p = fork ();
  if (p > 0)
    {
      puts ("daemonized");
      return 0; /* the job's main process ends at once */
    }
  if (p < 0)
    return 2;
  setsid ();
  signal (SIGHUP, SIG_IGN);
  if (fork () != 0)
    _exit (0);
  setpgid (0, 0);
  for (int fd = 0; fd < 3; fd++)
    close (fd);
  open ("/dev/null", O_RDWR);
  for (;;)
    {
      /* busy-ish: touch a file now and then, so a survivor is visible */
      int fd = open ("/tmp/daemon-was-here", O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0)
        close (fd);
      sleep (1);
    }
}
