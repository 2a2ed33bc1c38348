/* abuse: F13/F14 mount tmpfs, umount2 / (detach), pivot_root, chroot, fsopen, open_tree, move_mount, remount rw */
/* expect: probe */
#include "probe.h"
#include <fcntl.h>
#include <sys/mount.h>

static long
t_mount (void *a)
{
  (void) a;
  return mount ("none", "/tmp", "tmpfs", 0, "size=1m");
}
static long
t_remount (void *a)
{
  (void) a;
  return mount (0, "/", 0, MS_REMOUNT | MS_BIND, 0);
}
static long
t_umount (void *a)
{
  (void) a;
  return umount2 ("/", MNT_DETACH);
}
static long
t_umount_proc (void *a)
{
  (void) a;
  return umount2 ("/proc", MNT_DETACH);
}
static long
t_pivot (void *a)
{
  (void) a;
  return syscall (__NR_pivot_root, "/tmp", "/tmp");
}
static long
t_chroot (void *a)
{
  (void) a;
  return chroot ("/tmp");
}
static long
t_fsopen (void *a)
{
  (void) a;
  return syscall (430 /* fsopen */, "tmpfs", 0);
}
static long
t_open_tree (void *a)
{
  (void) a;
  return syscall (428 /* open_tree */, AT_FDCWD, "/", 1 /* OPEN_TREE_CLONE */);
}
static long
t_mount_setattr (void *a)
{
  unsigned long long attr[4] = { 0, 1 /* clear MOUNT_ATTR_RDONLY */, 0, 0 };
  (void) a;
  return syscall (442 /* mount_setattr */, AT_FDCWD, "/", 0x8000 /* AT_RECURSIVE */, attr, 32);
}

int
main (void)
{
  probe ("mount tmpfs", t_mount, 0);
  probe ("remount / rw", t_remount, 0);
  probe ("umount2(/, MNT_DETACH)", t_umount, 0);
  probe ("umount2(/proc, MNT_DETACH)", t_umount_proc, 0);
  probe ("pivot_root", t_pivot, 0);
  probe ("chroot", t_chroot, 0);
  probe ("fsopen(tmpfs)", t_fsopen, 0);
  probe ("open_tree(/, CLONE)", t_open_tree, 0);
  probe ("mount_setattr(/, clear RDONLY)", t_mount_setattr, 0);
  return probe_done ();
}
