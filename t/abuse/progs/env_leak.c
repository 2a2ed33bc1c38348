/* abuse: I1/I2 print environ, /proc/self/environ, /proc/1/environ and cmdline, every readable /proc/<pid>/environ */
/* expect: exit=0 stdout~HOME=/sandbox stdout~env-only-allowlisted !stdout~(?m)^(HTTP_|RUN_|REQUEST_|SCRIPT_|CONTENT_|SERVER_|GATEWAY_|FCGI|RC_ABUSE|DOCUMENT_|QUERY_STRING) */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static void
dump (const char *path)
{
  char buf[65536];
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n;
  if (fd < 0)
    {
      printf ("%s: unreadable\n", path);
      return;
    }
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n < 0)
    n = 0;
  for (ssize_t i = 0; i < n; i++)
    if (buf[i] == 0)
      buf[i] = '\n';
  buf[n] = 0;
  printf ("--- %s\n%s\n", path, buf);
}

int
main (void)
{
  DIR *d;
  struct dirent *e;
  puts ("--- environ");
  for (char **p = environ; *p; p++)
    puts (*p);
  dump ("/proc/self/environ");
  dump ("/proc/1/environ");
  dump ("/proc/1/cmdline");
  dump ("/proc/self/cmdline");
  d = opendir ("/proc");
  while (d && (e = readdir (d)))
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
      {
        char path[300];
        snprintf (path, sizeof path, "/proc/%s/environ", e->d_name);
        dump (path);
      }
  if (d)
    closedir (d);
  puts ("env-only-allowlisted");
  return 0;
}
