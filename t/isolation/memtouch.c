/* memtouch.c - touches N MiB of memory one way, for t/isolation/memory.py.
 *
 *   memtouch private N   N MiB of anonymous private memory
 *   memtouch fork N      the same, then a forked child reads every page
 *                        (copy-on-write, shared: counted once)
 *   memtouch sysv N      a SysV shared segment of N MiB, written
 *   memtouch posix N     a POSIX shm object (/dev/shm) of N MiB, written
 *
 * N may be 0: the empty program (posix still creates an empty object).  It holds the memory
 * until the end, so the peak sees all of it at once.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

static void
touch (volatile char *p, size_t len)
{
  for (size_t i = 0; i < len; i += 4096)
    p[i] = 1;
}

int
main (int argc, char **argv)
{
  size_t len;
  char *p = NULL;
  volatile unsigned sum = 0;
  if (argc != 3)
    return 2;
  len = (size_t)strtoul (argv[2], NULL, 10) << 20;
  if (strcmp (argv[1], "private") == 0 || strcmp (argv[1], "fork") == 0)
    {
      if (len)
        {
          p = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
          if (p == MAP_FAILED)
            return 3;
          touch (p, len);
        }
      if (argv[1][0] == 'f')
        {
          pid_t pid = fork ();
          if (pid < 0)
            return 4;
          if (pid == 0)
            {
              for (size_t i = 0; i < len; i += 4096)
                sum += (unsigned char)p[i];
              _exit (0);
            }
          waitpid (pid, NULL, 0);
        }
    }
  else if (strcmp (argv[1], "sysv") == 0)
    {
      if (len)
        {
          int id = shmget (IPC_PRIVATE, len, IPC_CREAT | 0600);
          if (id < 0)
            return 5;
          p = shmat (id, NULL, 0);
          shmctl (id, IPC_RMID, NULL);
          if (p == (void *)-1)
            return 6;
          touch (p, len);
        }
    }
  else if (strcmp (argv[1], "posix") == 0)
    {
      /* N = 0 still creates the (empty) object: the baseline pays the
       * same inode and dentry. */
      int fd = shm_open ("/memtouch", O_RDWR | O_CREAT | O_EXCL, 0600);
      if (fd < 0 || ftruncate (fd, (off_t)len) < 0)
        return 7;
      shm_unlink ("/memtouch");
      if (len)
        {
          p = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
          if (p == MAP_FAILED)
            return 8;
          touch (p, len);
        }
    }
  else
    return 2;
  printf ("ok %s %s\n", argv[1], argv[2]);
  return (int)(sum & 0);
}
