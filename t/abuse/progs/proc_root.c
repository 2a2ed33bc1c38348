/* abuse: F7/I2/I3 /proc/1/root, /proc/self/root/.., /proc/<pid>/cwd, list /proc: stay inside, see only the job */
/* expect: probe !stdout~CANARY-SECRET */
#include "probe.h"
#include <dirent.h>
#include <fcntl.h>

static long
try_read (void *path)
{
  char buf[256];
  int fd = open ((const char *) path, O_RDONLY | O_CLOEXEC);
  ssize_t n;
  if (fd < 0)
    return -1;
  n = read (fd, buf, sizeof buf - 1);
  if (n < 0)
    return -1;
  buf[n] = 0;
  printf ("read %s: %.60s\n", (const char *) path, buf);
  return 0;
}

int
main (void)
{
  DIR *d = opendir ("/proc");
  struct dirent *e;
  int others = 0;
  pid_t ancestors[16];
  int n_anc = 0;
  char buf[512];
  ssize_t n;

  probe ("read /proc/1/root/<canary secret>", try_read, (void *) "/proc/1/root@CANARY_DIR@/secret.txt");
  probe ("read /proc/1/root/etc/shadow", try_read, (void *) "/proc/1/root/etc/shadow");
  probe ("read /proc/1/environ", try_read, (void *) "/proc/1/environ");
  probe ("read /proc/1/cwd/..", try_read, (void *) "/proc/1/cwd/../etc/shadow");
  probe ("read /etc/shadow", try_read, (void *) "/etc/shadow");
  probe ("read canary secret directly", try_read, (void *) "@CANARY_DIR@/secret.txt");
  /* /proc/self/root/.. must be the sandbox's own / */
  n = readlink ("/proc/self/root", buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = 0;
  probe_report ("/proc/self/root is /", strcmp (buf, "/") != 0, "%s", buf);
  /* our ancestors inside the job (the language's sh -c wrapper) are the job's own */
  for (pid_t p = getppid (); p > 1 && n_anc < 16;)
    {
      char path[64], stat[512];
      int fd;
      ssize_t len;
      ancestors[n_anc++] = p;
      snprintf (path, sizeof path, "/proc/%d/stat", (int) p);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        break;
      len = read (fd, stat, sizeof stat - 1);
      close (fd);
      stat[len > 0 ? len : 0] = 0;
      {
        char *rp = strrchr (stat, ')');
        int pp = 0;
        if (rp == 0 || sscanf (rp + 1, " %*c %d", &pp) != 1)
          break;
        p = (pid_t) pp;
      }
    }
  /* processes: ours only (the init is root and hidden, or at most visible as pid 1) */
  while (d && (e = readdir (d)))
    {
      long pid = strtol (e->d_name, 0, 10);
      int mine = 0;
      for (int i = 0; i < n_anc; i++)
        mine |= ancestors[i] == pid;
      if (pid <= 0 || pid == getpid () || mine)
        continue;
      if (pid != 1)
        {
          char path[64], cmd[128] = { 0 };
          int fd;
          snprintf (path, sizeof path, "/proc/%ld/cmdline", pid);
          fd = open (path, O_RDONLY | O_CLOEXEC);
          if (fd >= 0)
            {
              if (read (fd, cmd, sizeof cmd - 1) < 0)
                cmd[0] = 0;
              close (fd);
            }
          printf ("visible pid %ld: %s\n", pid, cmd);
          others++;
        }
    }
  if (d)
    closedir (d);
  probe_report ("/proc lists only this job", others > 0, "%d other pids", others);
  probe_report ("pid namespace (own pid small)", getpid () > 100, "pid %d", (int) getpid ());
  return probe_done ();
}
