/* root.c - the root a slot's init builds once, for every job it serves.
 *
 * The job gets a root of its own: a small tmpfs built on the host's empty
 * /sandbox (RC_ROOT_NR) and entered with pivot_root, the old root
 * detached, so nothing of the host tree exists for the job but what is
 * bound here (no /home, no host /run and its unix sockets, no state dir).
 * Propagation is made private first (hostile-programs §0 #7: on an
 * rshared host an unmount in here would otherwise reach the host).
 *
 *   /               tmpfs, read-only once built
 *   /usr /bin /lib* the host's, bound read-only nosuid nodev (links copied)
 *   /etc            a few host files bound read-only (ld.so.cache, ssl,
 *                   localtime, ...), written nsswitch.conf, hosts, passwd
 *                   and group (every slot uid is "runner")
 *   host paths      every language's hostPaths, bound read-only
 *   /lang/<slug>    every language directory, bound read-only
 *   /var/tmp        symlink to /tmp (same budget)
 *   /dev            tmpfs: null zero full random urandom tty, the fd links,
 *                   shm -> /tmp/.shm, pts (empty: a tty step's own devpts
 *                   instance is mounted there, workspace.c) and ptmx ->
 *                   pts/ptmx; no host device
 *   /proc           of the slot's pid namespace, hidepid=2 or fail; kernel
 *                   knobs read-only; what leaks kernel addresses, other
 *                   tasks' timers, the keyring or the host's activity
 *                   (CPU, IRQ, scheduler, disk, VM, pressure counters are
 *                   side channels on other jobs) masked by an empty
 *                   read-only file or directory
 *   /sys            a tmpfs of our own, not sysfs: the CPU lists glibc and
 *                   the runtimes read (online, possible, present,
 *                   kernel_max, copied), and fs/cgroup, the job's own
 *                   cgroup (cgroup.c); sysfs would show host-wide counters
 *                   (/sys/block/x/stat, irq counts, NUMA vmstat, cpuidle
 *                   usage, vmcoreinfo; issue 29)
 *   /tmp /sandbox   the job's (workspace.c)
 *
 * Hidden in the root, under /sys before our /sys tmpfs covers it, and
 * reached through fds: the empty mask file and directory, each language's
 * template and skeleton (the lowers of a job's workspace overlay, which
 * overlayfs takes only from mounts of the caller's namespace), each cache
 * directory, and on v2 the slot's cgroup (the per-step views).  Skeletons
 * are built here, in the root's tmpfs, not in a host directory.
 */
#include "config.h"

#include "sandbox/host/syscalls.h"
#include "sandbox/root/root.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define NR RC_ROOT_NR
#define HIDDEN NR "/sys/.h"

/* The top-level links or directories of a (merged-)usr layout. */
static const char *const root_top[]
    = { "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32" };
/* What dynamic linking, TLS and timezone lookups read; the rest of /etc
 * (shadow, nginx, the operator's files) stays out. */
static const char *const root_etc[]
    = { "/etc/ld.so.cache", "/etc/localtime",       "/etc/alternatives",
        "/etc/ssl",         "/etc/ca-certificates", "/etc/os-release" };
/* Mount points of the job's own mounts, and the parents of the rest. */
static const char *const root_dirs[]
    = { "etc", "tmp", "dev", "proc", "sys", "sandbox", "var", "lang" };
/* What /sys shows of the host: the CPU lists, copied (sysconf, the
 * runtimes' thread pools). */
static const char *const sys_cpu_files[] = { "online", "possible", "present", "kernel_max" };

static int
write_at (int dirfd, const char *name, const char *text, mode_t mode)
{
  int fd = openat (dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
  size_t n = strlen (text);
  ssize_t k;
  if (fd < 0)
    return -1;
  k = write (fd, text, n);
  close (fd);
  if (k != (ssize_t)n)
    {
      errno = EIO;
      return -1;
    }
  return 0;
}

/* The parents of rel (relative to rootfd) as directories.  A component
 * that exists as anything else stops it: no symlink of the root is ever
 * followed. */
static int
make_parents (int rootfd, const char *rel)
{
  char path[PATH_MAX];
  struct stat st;
  size_t i;
  if (strlen (rel) >= sizeof path)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  strcpy (path, rel);
  for (i = 1; path[i]; i++)
    if (path[i] == '/')
      {
        path[i] = '\0';
        if (mkdirat (rootfd, path, 0755) < 0 && errno != EEXIST)
          return -1;
        if (fstatat (rootfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
          return -1;
        if (!S_ISDIR (st.st_mode))
          {
            errno = ENOTDIR;
            return -1;
          }
        path[i] = '/';
      }
  return 0;
}

static int
bind_into_root (const char *host, const char *rel)
{
  char target[PATH_MAX];
  if (snprintf (target, sizeof target, NR "/%s", rel) >= (int)sizeof target)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  return mount (host, target, NULL, MS_BIND | MS_REC, NULL);
}

/* Host path p in the root like the host's: a symlink copied, a directory
 * or empty file as its mount point, bound when bind is set; a missing
 * path is skipped (a toolchain that is not installed). */
static int
add_host_path (int rootfd, const char *p, bool bind)
{
  const char *rel = p + 1;
  struct stat st, have;
  int fd;
  if (!rc_lang_host_path_ok (p))
    {
      errno = EINVAL;
      return -1;
    }
  if (strncmp (p, "/usr/", 5) == 0)
    return 0; /* inside the /usr bind already */
  if (lstat (p, &st) < 0)
    return errno == ENOENT ? 0 : -1;
  if (fstatat (rootfd, rel, &have, AT_SYMLINK_NOFOLLOW) == 0)
    {
      /* Already there: two languages name the same path. */
      if ((have.st_mode & S_IFMT) != (st.st_mode & S_IFMT))
        {
          errno = EEXIST;
          return -1;
        }
      return 0;
    }
  if (make_parents (rootfd, rel) < 0)
    return -1;
  if (S_ISLNK (st.st_mode))
    {
      /* Copied as a symlink: its target resolves inside the new root. */
      char link[PATH_MAX];
      ssize_t k = readlink (p, link, sizeof link - 1);
      if (k < 0)
        return -1;
      link[k] = '\0';
      return symlinkat (link, rootfd, rel);
    }
  if (S_ISDIR (st.st_mode))
    {
      if (mkdirat (rootfd, rel, 0755) < 0)
        return -1;
    }
  else
    {
      fd = openat (rootfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
      if (fd < 0)
        return -1;
      close (fd);
    }
  return bind ? bind_into_root (p, rel) : 0;
}

/* passwd and group name root, nobody and each slot's uid as "runner"
 * (whoami and getpwuid in a JVM or Python need an entry). */
static int
write_accounts (int rootfd, uid_t first_uid, unsigned n_uids)
{
  size_t cap = 256 + (size_t)n_uids * 64;
  char *pw = malloc (cap), *gr = malloc (cap);
  size_t pl, gl;
  int r = -1;
  if (pw == NULL || gr == NULL)
    {
      errno = ENOMEM;
      goto out;
    }
  pl = (size_t)snprintf (pw, cap, "root:x:0:0:root:/root:/usr/sbin/nologin\n");
  gl = (size_t)snprintf (gr, cap, "root:x:0:\n");
  for (unsigned i = 0; i < n_uids; i++)
    {
      unsigned u = (unsigned)first_uid + i;
      pl += (size_t)snprintf (pw + pl, cap - pl, "runner:x:%u:%u:runcell job:/sandbox:/bin/sh\n", u,
                              u);
      gl += (size_t)snprintf (gr + gl, cap - gl, "runner:x:%u:\n", u);
    }
  snprintf (pw + pl, cap - pl, "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n");
  snprintf (gr + gl, cap - gl, "nogroup:x:65534:\n");
  if (write_at (rootfd, "etc/passwd", pw, 0644) == 0
      && write_at (rootfd, "etc/group", gr, 0644) == 0)
    r = 0;
out:
  free (pw);
  free (gr);
  return r;
}

static int
populate (const struct rc_root_plan *plan, int rootfd, const char **step)
{
  size_t i;
  for (i = 0; i < sizeof root_dirs / sizeof root_dirs[0]; i++)
    if (mkdirat (rootfd, root_dirs[i], 0755) < 0)
      RC_ROOT_FAIL ("mkdir root");
  for (i = 0; i < sizeof root_top / sizeof root_top[0]; i++)
    if (add_host_path (rootfd, root_top[i], true) < 0)
      RC_ROOT_FAIL ("bind /usr");
  for (i = 0; i < sizeof root_etc / sizeof root_etc[0]; i++)
    if (add_host_path (rootfd, root_etc[i], true) < 0)
      RC_ROOT_FAIL ("bind /etc");
  for (i = 0; i < plan->n_host_paths; i++)
    if (add_host_path (rootfd, plan->host_paths[i], true) < 0)
      RC_ROOT_FAIL ("bind host path");
  for (i = 0; i < plan->n_langs; i++)
    {
      const struct rc_root_lang *l = &plan->langs[i];
      char rel[PATH_MAX];
      if (l->slug != NULL && l->dir != NULL)
        {
          snprintf (rel, sizeof rel, "lang/%s", l->slug);
          if (mkdirat (rootfd, rel, 0755) < 0 || bind_into_root (l->dir, rel) < 0)
            RC_ROOT_FAIL ("bind /lang");
        }
      /* The mount points of its cache overlays (workspace.c). */
      for (size_t k = 0; k < l->n_overlay_paths; k++)
        if (add_host_path (rootfd, l->overlay_paths[k], false) < 0)
          RC_ROOT_FAIL ("cache overlay mount point");
    }
  /* /var/tmp is written by some toolchains: the job's /tmp, same budget. */
  if (symlinkat ("/tmp", rootfd, "var/tmp") < 0)
    RC_ROOT_FAIL ("symlink /var/tmp");
  if (write_at (rootfd, "etc/nsswitch.conf",
                "passwd: files\ngroup: files\nshadow: files\n"
                "hosts: files\nservices: files\nprotocols: files\n",
                0644)
          < 0
      || write_at (rootfd, "etc/hosts", "127.0.0.1\tlocalhost runcell\n::1\tlocalhost\n", 0644) < 0
      || write_accounts (rootfd, plan->first_uid, plan->n_uids) < 0)
    RC_ROOT_FAIL ("write /etc");
  return 0;
}

/* The hidden half of the root: masks, lowers, caches, the v2 cgroup. */
static int
build_hidden (const struct rc_root_plan *plan, struct rc_cgroup_slot *cg, struct rc_root *root,
              int rootfd, const char **step)
{
  int hfd;
  size_t k = 0;

  if (mkdirat (rootfd, "sys/.h", 0700) < 0
      || (hfd = openat (rootfd, "sys/.h", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
    RC_ROOT_FAIL ("mkdir hidden");
  if (write_at (hfd, "e", "", 0444) < 0 || mkdirat (hfd, "m", 0555) < 0
      || mkdirat (hfd, "cg", 0700) < 0)
    {
      close (hfd);
      RC_ROOT_FAIL ("mkdir hidden");
    }
  for (size_t i = 0; i < plan->n_langs; i++)
    {
      const struct rc_root_lang *l = &plan->langs[i];
      char name[32], path[64];
      int src = -1, dst;

      snprintf (name, sizeof name, "s%zu", i);
      if (mkdirat (hfd, name, 0777) < 0
          || (dst = openat (hfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        goto fail;
      if (l->dir != NULL)
        src = open (l->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if ((l->dir != NULL && src < 0) || fchmod (dst, 0777) < 0
          || (src >= 0 && rc_hostfs_skeleton (src, dst) < 0))
        {
          if (src >= 0)
            close (src);
          close (dst);
          goto fail;
        }
      if (src >= 0)
        close (src);
      close (dst);
      snprintf (path, sizeof path, HIDDEN "/%s", name);
      root->skel[i] = open (path, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (root->skel[i] < 0)
        goto fail;
      if (l->dir != NULL)
        {
          snprintf (name, sizeof name, "t%zu", i);
          snprintf (path, sizeof path, HIDDEN "/%s", name);
          if (mkdirat (hfd, name, 0700) < 0 || mount (l->dir, path, NULL, MS_BIND, NULL) < 0
              || (root->tpl[i] = open (path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
            goto fail;
        }
      for (size_t j = 0; j < l->n_overlay_paths; j++, k++)
        {
          struct stat st;
          const char *p = l->overlay_paths[j];
          if (p == NULL || p[0] != '/' || lstat (p, &st) < 0 || !S_ISDIR (st.st_mode))
            continue; /* a missing cache is skipped, as documented */
          snprintf (name, sizeof name, "c%zu", k);
          snprintf (path, sizeof path, HIDDEN "/%s", name);
          if (mkdirat (hfd, name, 0700) < 0 || mount (p, path, NULL, MS_BIND, NULL) < 0
              || (root->cache[k] = open (path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
            goto fail;
        }
    }
  close (hfd);
  root->mask_file = open (HIDDEN "/e", O_PATH | O_CLOEXEC);
  if (root->mask_file < 0)
    RC_ROOT_FAIL ("open mask file");
  {
    rc_err_t err = NULL;
    if (rc_cgroup_slot_view_setup (cg, HIDDEN "/cg", &err) < 0)
      {
        errno = err ? err->status : EIO;
        rc_error_free (&err);
        RC_ROOT_FAIL ("cgroup view");
      }
  }
  return 0;
fail:
  {
    int saved = errno;
    close (hfd);
    errno = saved;
  }
  RC_ROOT_FAIL ("workspace lowers");
}

/* Read-only, nosuid, nodev for the mount at path and every mount below. */
static int
make_readonly (const char *path)
{
  struct rc_mount_attr attr
      = { .attr_set = RC_MOUNT_ATTR_RDONLY | RC_MOUNT_ATTR_NOSUID | RC_MOUNT_ATTR_NODEV };
  return rc_mount_setattr (AT_FDCWD, path, AT_RECURSIVE, &attr);
}

static int
fill_dev (int devfd, const char **step)
{
  static const struct
  {
    const char *name;
    unsigned major, minor;
  } nodes[] = { { "null", 1, 3 },
                { "zero", 1, 5 },
                { "full", 1, 7 },
                { "random", 1, 8 },
                { "urandom", 1, 9 },
                /* The controlling terminal: ENXIO for a job without one. */
                { "tty", 5, 0 } };
  static const struct
  {
    const char *target, *name;
  } links[] = { { "/proc/self/fd", "fd" },       { "/proc/self/fd/0", "stdin" },
                { "/proc/self/fd/1", "stdout" }, { "/proc/self/fd/2", "stderr" },
                { RC_ROOT_SHM_DIR, "shm" },      { "pts/ptmx", "ptmx" } };
  size_t i;
  /* Device nodes are made, not bound from the host /dev: no host inode is
   * ever exposed. */
  for (i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
    if (mknodat (devfd, nodes[i].name, S_IFCHR | 0666, makedev (nodes[i].major, nodes[i].minor)) < 0
        || fchmodat (devfd, nodes[i].name, 0666, 0) < 0)
      RC_ROOT_FAIL ("mknod /dev");
  for (i = 0; i < sizeof links / sizeof links[0]; i++)
    if (symlinkat (links[i].target, devfd, links[i].name) < 0)
      RC_ROOT_FAIL ("symlink /dev");
  /* The mount point of a tty step's devpts (the tmpfs is read-only). */
  if (mkdirat (devfd, "pts", 0755) < 0)
    RC_ROOT_FAIL ("mkdir /dev/pts");
  return 0;
}

static int
mount_dev (const char **step)
{
  int devfd, r;
  if (mount ("tmpfs", NR "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,nr_inodes=64,mode=0755")
      < 0)
    RC_ROOT_FAIL ("tmpfs /dev");
  devfd = open (NR "/dev", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (devfd < 0)
    RC_ROOT_FAIL ("open /dev");
  r = fill_dev (devfd, step);
  close (devfd);
  if (r < 0)
    return -1;
  if (mount (NULL, NR "/dev", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) < 0)
    RC_ROOT_FAIL ("remount /dev");
  return 0;
}

/* A path this kernel lacks fails the mount with ENOENT, and one of the
 * other kind (a directory where a file is masked, or the reverse) with
 * ENOTDIR; either is skipped, any other error fails the slot. */
static int
skip_missing (int r)
{
  return r < 0 && (errno == ENOENT || errno == ENOTDIR) ? 0 : r;
}

static int
bind_readonly (const char *path)
{
  int r = mount (path, path, NULL, MS_BIND | MS_REC, NULL);
  if (r < 0)
    return errno == ENOENT ? 0 : -1;
  return mount (NULL, path, NULL,
                MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

static int
mount_proc (struct rc_root *root, const char **step)
{
  /* Read-only: the kernel knobs; masked: what leaks kernel addresses,
   * timers of other tasks, the keyring, or the host's activity. */
  static const char *const ro[]
      = { NR "/proc/sys", NR "/proc/sysrq-trigger", NR "/proc/bus", NR "/proc/fs" };
  static const char *const masked_files[]
      = { NR "/proc/kcore",        NR "/proc/keys",        NR "/proc/key-users",
          NR "/proc/timer_list",   NR "/proc/sched_debug", NR "/proc/latency_stats",
          NR "/proc/kallsyms",     NR "/proc/kmsg",        NR "/proc/stat",
          NR "/proc/interrupts",   NR "/proc/softirqs",    NR "/proc/schedstat",
          NR "/proc/diskstats",    NR "/proc/vmstat",      NR "/proc/buddyinfo",
          NR "/proc/pagetypeinfo", NR "/proc/zoneinfo",    NR "/proc/slabinfo",
          NR "/proc/vmallocinfo",  NR "/proc/locks",       NR "/proc/iomem",
          NR "/proc/ioports" };
  static const char *const masked_dirs[]
      = { NR "/proc/acpi",     NR "/proc/scsi", NR "/proc/irq",
          NR "/proc/pressure", NR "/proc/tty",  NR "/proc/driver" };
  unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
  size_t i;

  /* Fail closed: without hidepid the root init and its command line
   * would be visible to the job. */
  if (mount ("proc", NR "/proc", "proc", flags, "hidepid=2") < 0)
    RC_ROOT_FAIL ("mount /proc hidepid=2");
  /* The init resets the pid counter between jobs through this fd, opened
   * before /proc/sys goes read-only below. */
  root->ns_last_pid = open (NR "/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
  if (root->ns_last_pid < 0)
    RC_ROOT_FAIL ("open ns_last_pid");
  for (i = 0; i < sizeof ro / sizeof ro[0]; i++)
    if (bind_readonly (ro[i]) < 0)
      RC_ROOT_FAIL ("read-only /proc");
  /* The masks are binds of the read-only root's empty file and directory:
   * reads see nothing, writes fail with EROFS (/dev/null would take them),
   * and no superblock is made per mask. */
  for (i = 0; i < sizeof masked_files / sizeof masked_files[0]; i++)
    if (skip_missing (mount (HIDDEN "/e", masked_files[i], NULL, MS_BIND, NULL)) < 0)
      RC_ROOT_FAIL ("mask /proc");
  for (i = 0; i < sizeof masked_dirs / sizeof masked_dirs[0]; i++)
    if (skip_missing (mount (HIDDEN "/m", masked_dirs[i], NULL, MS_BIND, NULL)) < 0)
      RC_ROOT_FAIL ("mask /proc");
  return 0;
}

/* Copies a small host file into dirfd/name (a /sys CPU list). */
static int
copy_small (const char *host, int dirfd, const char *name)
{
  char buf[4096];
  ssize_t k;
  int fd = open (host, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? 0 : -1;
  k = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (k < 0)
    return -1;
  buf[k] = '\0';
  return write_at (dirfd, name, buf, 0444);
}

static int
mount_sys (enum rc_cgroup_mode cgmode, const char **step)
{
  int fd, cpu;
  if (mount ("tmpfs", NR "/sys", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
             "size=64k,nr_inodes=64,mode=0755")
      < 0)
    RC_ROOT_FAIL ("tmpfs /sys");
  fd = open (NR "/sys", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    RC_ROOT_FAIL ("open /sys");
  if (mkdirat (fd, "fs", 0755) < 0 || mkdirat (fd, "fs/cgroup", 0755) < 0
      || (cgmode != RC_CGROUP_UNIFIED
          && (mkdirat (fd, "fs/cgroup/memory", 0755) < 0
              || mkdirat (fd, "fs/cgroup/pids", 0755) < 0))
      || mkdirat (fd, "devices", 0755) < 0 || mkdirat (fd, "devices/system", 0755) < 0
      || mkdirat (fd, "devices/system/cpu", 0755) < 0)
    {
      close (fd);
      RC_ROOT_FAIL ("mkdir /sys");
    }
  cpu = openat (fd, "devices/system/cpu", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  close (fd);
  if (cpu < 0)
    RC_ROOT_FAIL ("open /sys");
  for (size_t i = 0; i < sizeof sys_cpu_files / sizeof sys_cpu_files[0]; i++)
    {
      char host[96];
      snprintf (host, sizeof host, "/sys/devices/system/cpu/%s", sys_cpu_files[i]);
      if (copy_small (host, cpu, sys_cpu_files[i]) < 0)
        {
          close (cpu);
          RC_ROOT_FAIL ("write /sys");
        }
    }
  close (cpu);
  if (mount (NULL, NR "/sys", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)
      < 0)
    RC_ROOT_FAIL ("remount /sys");
  return 0;
}

/* pivot_root into NR and detach the old root: from here on nothing of the
 * host tree exists for the job (no /home, no host /run and its sockets). */
static int
enter_root (const char **step)
{
  if (chdir (NR) < 0)
    RC_ROOT_FAIL ("chdir new root");
  /* pivot_root(".", "."): the old root ends up stacked under the new
   * one, and is detached at once; no directory for it is needed. */
  if (syscall (SYS_pivot_root, ".", ".") < 0)
    RC_ROOT_FAIL ("pivot_root");
  if (umount2 (".", MNT_DETACH) < 0)
    RC_ROOT_FAIL ("detach old root");
  if (chdir ("/") < 0)
    RC_ROOT_FAIL ("chdir /");
  return 0;
}

int
rc_root_build (const struct rc_root_plan *plan, struct rc_cgroup_slot *cg, struct rc_root *root,
               const char **step)
{
  size_t n_cache = 0;
  int rootfd, r;

  memset (root, 0, sizeof *root);
  root->plan = plan;
  root->mask_file = root->ns_last_pid = -1;
  for (size_t i = 0; i < plan->n_langs; i++)
    n_cache += plan->langs[i].n_overlay_paths;
  root->skel = malloc ((plan->n_langs + 1) * sizeof (int));
  root->tpl = malloc ((plan->n_langs + 1) * sizeof (int));
  root->cache = malloc ((n_cache + 1) * sizeof (int));
  if (root->skel == NULL || root->tpl == NULL || root->cache == NULL)
    {
      errno = ENOMEM;
      RC_ROOT_FAIL ("root plan");
    }
  for (size_t i = 0; i < plan->n_langs; i++)
    root->skel[i] = root->tpl[i] = -1;
  for (size_t i = 0; i < n_cache; i++)
    root->cache[i] = -1;
  root->n_cache = n_cache;

  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    RC_ROOT_FAIL ("make / private");
  if (mount ("tmpfs", NR, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,nr_inodes=16384,mode=0755") < 0)
    RC_ROOT_FAIL ("tmpfs root");
  rootfd = open (NR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (rootfd < 0)
    RC_ROOT_FAIL ("open root");
  r = populate (plan, rootfd, step);
  if (r == 0)
    r = build_hidden (plan, cg, root, rootfd, step);
  close (rootfd);
  if (r < 0)
    return -1;
  /* One call makes the root and every bind in it read-only, nosuid and
   * nodev; what is mounted after (/dev, /proc, /sys, /tmp) sets its own. */
  if (make_readonly (NR) < 0)
    RC_ROOT_FAIL ("read-only root");
  if (mount_dev (step) < 0 || mount_proc (root, step) < 0 || mount_sys (plan->cgmode, step) < 0)
    return -1;
  rc_root_tmp_options (NULL, root->tmp_opts);
  if (rc_root_tmp_mount (root, NR, step) < 0)
    return -1;
  return enter_root (step);
}

static uint64_t
stamp_path (uint64_t h, const char *p)
{
  struct stat st;
  uint64_t v[3] = { 0, 0, 0 };
  if (p != NULL && lstat (p, &st) == 0)
    {
      v[0] = (uint64_t)st.st_dev;
      v[1] = (uint64_t)st.st_ino;
      /* A directory bind shows changes inside it: only its identity. */
      v[2] = S_ISDIR (st.st_mode)
                 ? 0
                 : (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    }
  for (int i = 0; i < 3; i++)
    h = (h ^ v[i]) * 0x100000001b3ull; /* FNV-1a over the three words */
  return h;
}

uint64_t
rc_root_plan_stamp (const struct rc_root_plan *plan)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < sizeof root_top / sizeof root_top[0]; i++)
    h = stamp_path (h, root_top[i]);
  for (size_t i = 0; i < sizeof root_etc / sizeof root_etc[0]; i++)
    h = stamp_path (h, root_etc[i]);
  for (size_t i = 0; i < plan->n_host_paths; i++)
    h = stamp_path (h, plan->host_paths[i]);
  for (size_t i = 0; i < plan->n_langs; i++)
    {
      h = stamp_path (h, plan->langs[i].dir);
      for (size_t k = 0; k < plan->langs[i].n_overlay_paths; k++)
        h = stamp_path (h, plan->langs[i].overlay_paths[k]);
    }
  return h;
}

int
rc_root_lang_of (const struct rc_root *root, const char *slug)
{
  for (size_t i = 0; slug != NULL && i < root->plan->n_langs; i++)
    if (root->plan->langs[i].slug && strcmp (root->plan->langs[i].slug, slug) == 0)
      return (int)i;
  return -1;
}

int
rc_root_lower_of (const struct rc_root *root, const char *template_dir)
{
  for (size_t i = 0; i < root->plan->n_langs; i++)
    {
      const char *d = root->plan->langs[i].dir;
      if ((d == NULL && template_dir == NULL)
          || (d != NULL && template_dir != NULL && strcmp (d, template_dir) == 0))
        return (int)i;
    }
  return -1;
}
