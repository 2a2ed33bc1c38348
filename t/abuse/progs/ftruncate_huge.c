/* abuse: R9/R30 ftruncate and fallocate 1 TiB in /tmp, mmap 1 TiB PROT_NONE|MAP_NORESERVE: bounded by FSIZE/tmpfs size, no host disk */
/* limits: memoryMb=128 */
/* expect: exit=0 stdout~fallocate:\s(ENOSPC|EFBIG|EOPNOTSUPP|ENOMEM) */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int
main (void)
{
  off_t tib = (off_t) 1 << 40;
  int fd;
  void *p;
  signal (SIGXFSZ, SIG_IGN);
  fd = open ("/tmp/huge", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      printf ("open: %s\n", strerrorname_np (errno));
      return 0;
    }
  printf ("ftruncate: %s\n", ftruncate (fd, tib) == 0 ? "ok (sparse)" : strerrorname_np (errno));
  printf ("fallocate: %s\n", fallocate (fd, 0, 0, tib) == 0 ? "ok" : strerrorname_np (errno));
  p = mmap (0, (size_t) tib, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  printf ("mmap 1 TiB PROT_NONE: %s\n", p == MAP_FAILED ? strerrorname_np (errno) : "mapped");
  return 0;
}
