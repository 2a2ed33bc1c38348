/* memthrash.c - fills most of the memory limit, then reads a disk file, for
 * t/isolation/thrash.py.
 *
 *   memthrash ANON_MIB FILE PASSES   ANON_MIB of anonymous memory held,
 *                                    then PASSES reads of FILE end to end
 *   memthrash ANON_MIB - SECONDS     the memory held, then a sleep
 *
 * FILE is dropped from the page cache first (POSIX_FADV_DONTNEED), so its
 * pages are read from disk and charged to this job's cgroup, not to
 * whoever wrote the file.  When ANON_MIB plus the file exceed the limit,
 * every pass after the first evicts the pages it is about to read again:
 * each read is a refault, the thrashing the sandbox must stop.  One pass,
 * or a file that fits, has none.  Prints "ok PASSES" on success.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  static char buf[1 << 20];
  size_t anon;
  long passes;
  char *mem;

  if (argc != 4)
    {
      fprintf (stderr, "usage: memthrash ANON_MIB FILE|- PASSES|SECONDS\n");
      return 2;
    }
  anon = (size_t)strtoul (argv[1], NULL, 10) << 20;
  passes = strtol (argv[3], NULL, 10);
  mem = mmap (NULL, anon ? anon : 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    {
      perror ("mmap");
      return 1;
    }
  for (size_t i = 0; i < anon; i += 4096)
    mem[i] = 1;

  if (strcmp (argv[2], "-") == 0)
    {
      sleep ((unsigned)passes);
      printf ("ok %ld\n", passes);
      return 0;
    }
  for (long p = 0; p < passes; p++)
    {
      int fd = open (argv[2], O_RDONLY);
      ssize_t n;
      if (fd < 0)
        {
          perror (argv[2]);
          return 1;
        }
      if (p == 0)
        posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
      while ((n = read (fd, buf, sizeof buf)) > 0)
        ;
      if (n < 0)
        {
          perror ("read");
          return 1;
        }
      close (fd);
    }
  printf ("ok %ld\n", passes);
  return 0;
}
