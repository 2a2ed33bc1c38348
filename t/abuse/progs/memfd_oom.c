/* abuse: R5 memfd_create then write past the memory limit (shmem is charged to the memcg) */
/* limits: memoryMb=64 */
/* expect: oomKilled||stdout~ENOSPC|ENOMEM|EFBIG !stdout~wrote-all */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int
main (void)
{
  static char buf[1 << 20];
  int fd = memfd_create ("hoard", 0);
  if (fd < 0)
    {
      printf ("memfd_create: %s\n", strerrorname_np (errno));
      return 0;
    }
  memset (buf, 'm', sizeof buf);
  for (int i = 0; i < 256; i++)
    if (write (fd, buf, sizeof buf) != (ssize_t) sizeof buf)
      {
        printf ("write at %d MiB: %s\n", i, strerrorname_np (errno));
        return 0;
      }
  puts ("wrote-all 256 MiB into a memfd");
  return 0;
}
