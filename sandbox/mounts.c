/* mounts.c - the job's mount view, built by the namespace init (root, in a
 * fresh mount namespace) before any user code runs.
 *
 * The job gets a root of its own: a small tmpfs, built on the host's empty
 * /sandbox (NR below) and entered with pivot_root at the end, the old root
 * detached, so nothing of the host tree exists for the job but what is
 * bound here (no /home, no host /run and its unix sockets, no state dir).
 * Propagation is made private first (hostile-programs §0 #7: on an rshared
 * host an unmount in here would otherwise reach the host).  The view is
 * built in two halves (a pre-started init builds the first before the job
 * exists, spawn.c):
 *
 *   base (owes nothing to the job)
 *   /               tmpfs 1 MiB, read-only once sealed
 *   /usr /bin /lib* host's, bound read-only nosuid nodev (links copied)
 *   /etc            a few host files bound read-only (ld.so.cache, ssl,
 *                   localtime, ...), written nsswitch.conf and hosts
 *   /var/tmp        symlink to /tmp (same budget)
 *   /dev            tmpfs with null zero full random urandom, the fd links
 *                   and shm -> /tmp/.shm; no tty, no host device
 *   /proc           fresh for the pid namespace, hidepid=2 or fail, kernel
 *                   knobs read-only, info leaks and side channels masked
 *                   by an empty read-only file or directory
 *
 *   job (after the init joined the slot's network and cgroup namespaces)
 *   host paths      the language's hostPaths, bound read-only
 *   /tmp            fresh tmpfs, size= and nr_inodes= from the job; holds the
 *                   root-only /tmp/.runner with every overlay upper/work dir
 *                   and /tmp/.shm, so one cap bounds every write of the job
 *   /sandbox        overlay: upper (inputs + writes) : skeleton : template, or
 *                   the session directory bound read-write (RC_WORKSPACE_BIND)
 *   cache dirs      one overlay each, upper in /tmp/.runner
 *   /sys            fresh read-only sysfs of the job's network namespace, and
 *                   at /sys/fs/cgroup the slot's own cgroup (v2 cgroup2, v1
 *                   memory and pids)
 *   /etc/passwd     and group naming the slot uid; then the root is sealed
 *                   read-only and entered
 *
 * docs/sandbox.md has the same view as one table.  The cache overlays go
 * through libmount's context API (readable errors, helpers and mtab off;
 * loaded at run time, libmount_lazy.c);
 * the workspace overlay, which every job mounts, and the plain
 * tmpfs/bind/remount steps call mount(2) directly: their options are ours,
 * and a libmount context per job costs measurable CPU.  Nothing has to be
 * undone: every mount disappears with the namespace.
 */
#include "config.h"

#include "sandbox/libmount_lazy.h"
#include "sandbox/sandbox_internal.h"
#include "sandbox/syscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The host directory the new root is built on (then pivoted into). */
#define NR "/sandbox"
#define RUNNER_DIR "/tmp/.runner"
#define SHM_DIR RC_ROOT_SHM_DIR
#define DEFAULT_TMP_BYTES (64ULL << 20)

#define FAIL(s)                                                                                    \
  do                                                                                               \
    {                                                                                              \
      *step = (s);                                                                                 \
      return -1;                                                                                   \
    }                                                                                              \
  while (0)

/* Mounts with a libmount context; errno is the mount(2) errno when the
 * syscall ran, EINVAL for a library-side refusal, ENOSYS when libmount
 * cannot be loaded (libmount_lazy.c: normally the worker loaded it). */
static int
lm_mount (const char *source, const char *target, const char *fstype, const char *options)
{
  const struct rc_libmount *lm = &rc_libmount;
  struct libmnt_context *cxt;
  int rc;

  if (!lm->loaded)
    {
      rc_err_t err = NULL;
      if (rc_libmount_load (&err) < 0)
        {
          rc_error_free (&err);
          errno = ENOSYS;
          return -1;
        }
    }
  cxt = lm->new_context ();
  if (cxt == NULL)
    {
      errno = ENOMEM;
      return -1;
    }
  lm->disable_mtab (cxt, 1);
  lm->disable_helpers (cxt, 1);
  lm->disable_canonicalize (cxt, 1);
  if (lm->set_source (cxt, source) < 0 || lm->set_target (cxt, target) < 0
      || lm->set_fstype (cxt, fstype) < 0 || lm->set_options (cxt, options) < 0)
    {
      lm->free_context (cxt);
      errno = EINVAL;
      return -1;
    }
  rc = lm->mount (cxt);
  if (rc != 0)
    {
      int e = EINVAL;
      if (lm->syscall_called (cxt) && lm->get_syscall_errno (cxt) != 0)
        e = lm->get_syscall_errno (cxt);
      else if (rc < 0)
        e = -rc;
      lm->free_context (cxt);
      errno = e;
      return -1;
    }
  lm->free_context (cxt);
  return 0;
}

/* Decodes the octal escapes mountinfo uses for space, tab, newline and
 * backslash (\040 \011 \012 \134) in place. */
static void
decode_mountinfo_path (char *s)
{
  char *w = s;
  while (*s)
    {
      if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0'
          && s[3] <= '7')
        {
          *w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
          s += 4;
        }
      else
        *w++ = *s++;
    }
  *w = '\0';
}

/* Fallback for kernels without mount_setattr (< 5.12): remounts every
 * mount at or below prefix read-only, nosuid and nodev, keeping the flags
 * it already has (a remount that would clear a locked flag is refused).
 * No mount is skipped: any failure fails the job. */
static int
readonly_tree_fallback (const char *prefix)
{
  FILE *f = fopen ("/proc/self/mountinfo", "re");
  size_t plen = strlen (prefix);
  char line[8192];
  int ret = 0;
  if (f == NULL)
    return -1;
  while (ret == 0 && fgets (line, sizeof line, f))
    {
      char mp[4096];
      struct statvfs sv;
      unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV;
      /* id parent major:minor root mountpoint ... */
      if (sscanf (line, "%*s %*s %*s %*s %4095s", mp) != 1)
        {
          errno = EPROTO;
          ret = -1;
          break;
        }
      decode_mountinfo_path (mp);
      if (strncmp (mp, prefix, plen) != 0 || (mp[plen] != '\0' && mp[plen] != '/'))
        continue;
      if (statvfs (mp, &sv) < 0)
        {
          ret = -1;
          break;
        }
      if (sv.f_flag & ST_NOEXEC)
        flags |= MS_NOEXEC;
      if (sv.f_flag & ST_NOATIME)
        flags |= MS_NOATIME;
      if (sv.f_flag & ST_NODIRATIME)
        flags |= MS_NODIRATIME;
      if (sv.f_flag & ST_RELATIME)
        flags |= MS_RELATIME;
      if (mount (NULL, mp, NULL, flags, NULL) < 0)
        ret = -1;
    }
  fclose (f);
  return ret;
}

/* Read-only, nosuid, nodev for the mount at path and (recursive) every
 * mount below it. */
static int
make_readonly (const char *path, bool recursive)
{
  struct rc_mount_attr attr
      = { .attr_set = RC_MOUNT_ATTR_RDONLY | RC_MOUNT_ATTR_NOSUID | RC_MOUNT_ATTR_NODEV };
  if (rc_mount_setattr (AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &attr) == 0)
    return 0;
  if (errno != ENOSYS)
    return -1;
  return readonly_tree_fallback (path);
}

static bool
is_dir (const char *path)
{
  struct stat st;
  return lstat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

/* An option value libmount would split (',') or overlayfs would (':'). */
static bool
bad_option_path (const char *p)
{
  return strpbrk (p, ",:\\") != NULL || strchr (p, '\n') != NULL;
}

/* NR "/x": where the job's /x is while the root is built. */
static int
nr_path (char *buf, size_t size, const char *p)
{
  int n = snprintf (buf, size, NR "%s", p);
  if (n < 0 || (size_t)n >= size)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  return 0;
}

/* Binds for the fallback root: plain binds, made read-only with the root
 * in one recursive call (mount_root). */
static int
nr_bind (const struct rc_root_builder *b, const char *host, const char *rel)
{
  char target[PATH_MAX];
  (void)b;
  if (nr_path (target, sizeof target, host) < 0)
    return -1;
  (void)rel; /* host's own path below NR */
  return mount (host, target, NULL, MS_BIND | MS_REC, NULL);
}

/* Binds of the job's own host paths: read-only, nosuid, nodev each. */
static int
nr_bind_sealed (const struct rc_root_builder *b, const char *host, const char *rel)
{
  char target[PATH_MAX];
  if (nr_bind (b, host, rel) < 0 || nr_path (target, sizeof target, host) < 0)
    return -1;
  return make_readonly (target, true);
}

/* Clears read-only on the root's own tmpfs only (not the binds in it). */
static int
unseal_root (void)
{
  struct rc_mount_attr attr = { .attr_clr = RC_MOUNT_ATTR_RDONLY };
  if (rc_mount_setattr (AT_FDCWD, NR, 0, &attr) == 0)
    return 0;
  if (errno != ENOSYS)
    return -1;
  return mount (NULL, NR, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV, NULL);
}

static int
open_nr (void)
{
  return open (NR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The fallback when there is no template (root_template.c): the same
 * root built here, on a small tmpfs on NR, with mount(2). */
static int
mount_root (uid_t first_uid, unsigned n_uids, const char **step)
{
  struct rc_root_builder b = { .rootfd = -1, .bind = nr_bind };
  int r;

  if (mount ("tmpfs", NR, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=1024,mode=0755") < 0)
    FAIL ("tmpfs root");
  b.rootfd = open_nr ();
  if (b.rootfd < 0)
    FAIL ("open root");
  r = rc_root_populate (&b, first_uid, n_uids, step);
  close (b.rootfd);
  if (r < 0)
    return -1;
  /* One call makes the root and every bind in it read-only, nosuid and
   * nodev; the root's own tmpfs is made writable again for the job half
   * (mount points) once /proc's masks are bound from it (the end of
   * rc_mounts_build_base), and sealed again before the pivot. */
  if (make_readonly (NR, true) < 0)
    FAIL ("read-only root");
  return 0;
}

static int
seal_root (const char **step)
{
  if (mount (NULL, NR, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
    FAIL ("read-only root");
  return 0;
}

/* Every host path the language declares, bound read-only (missing ones
 * are skipped: a toolchain that is not installed).  With a template the
 * mount points are there already (rc_root_template_prepare). */
static int
mount_host_paths (const struct rc_job_spec *spec, const char **step)
{
  struct rc_root_builder b = { .rootfd = -1, .bind = nr_bind_sealed };
  size_t i;
  int r = 0;
  if (spec->n_host_paths == 0)
    return 0;
  b.rootfd = open_nr ();
  if (b.rootfd < 0)
    FAIL ("open root");
  for (i = 0; r == 0 && i < spec->n_host_paths; i++)
    r = rc_root_add_host_path (&b, spec->host_paths[i], true);
  if (r < 0)
    {
      int saved = errno;
      close (b.rootfd);
      errno = saved;
      FAIL ("bind host path");
    }
  close (b.rootfd);
  return 0;
}

void
rc_mounts_tmp_options (const struct rc_job_spec *spec, char opts[RC_TMP_OPTS_MAX])
{
  uint64_t bytes = spec->tmp_bytes ? spec->tmp_bytes : DEFAULT_TMP_BYTES;
  uint64_t inodes = spec->tmp_inodes;
  if (inodes == 0)
    {
      /* One inode per 16 KiB of space, within sane bounds: enough for
       * build trees, far below what would let a job exhaust kernel memory
       * outside its cgroup. */
      inodes = bytes / 16384;
      if (inodes < 4096)
        inodes = 4096;
      if (inodes > 1048576)
        inodes = 1048576;
    }
  snprintf (opts, RC_TMP_OPTS_MAX, "size=%llu,nr_inodes=%llu,mode=1777", (unsigned long long)bytes,
            (unsigned long long)inodes);
}

/* The job's /tmp below root: NR while the root is built, "" in a resident
 * init, which is in its root already (spawn.c, "The resident init"). */
static int
mount_tmp_with (const char *opts, const char *root, const char **step)
{
  char tmp[64], runner[64], shm[64];
  snprintf (tmp, sizeof tmp, "%s/tmp", root);
  snprintf (runner, sizeof runner, "%s" RUNNER_DIR, root);
  snprintf (shm, sizeof shm, "%s" SHM_DIR, root);
  if (mount ("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
    FAIL ("tmpfs /tmp");
  if (mkdir (runner, 0700) < 0)
    FAIL ("mkdir /tmp/.runner");
  /* /dev/shm links here: POSIX shared memory comes out of /tmp's budget. */
  if (mkdir (shm, 01777) < 0 || chmod (shm, 01777) < 0)
    FAIL ("mkdir /tmp/.shm");
  return 0;
}

static int
mount_tmp (const struct rc_job_spec *spec, const char *root, const char **step)
{
  char opts[RC_TMP_OPTS_MAX];
  rc_mounts_tmp_options (spec, opts);
  return mount_tmp_with (opts, root, step);
}

static int
mount_workspace (const struct rc_mount_plan *plan, const int lower_fds[2], const char *root,
                 const char **step)
{
  const struct rc_job_spec *spec = plan->spec;
  char opts[PATH_MAX * 3], upper[64], work[64], target[64];
  int fd;

  if (spec->workspace == RC_WORKSPACE_BIND)
    {
      char link[64], src[PATH_MAX];
      struct stat want, got;
      ssize_t k;
      /* The fd's mount belongs to the host's namespace, which a bind
       * refuses (EINVAL): bind the path it names in our copy of the tree
       * (the old root is still there), then check it is the very
       * directory the fd holds. */
      snprintf (link, sizeof link, "/proc/self/fd/%d", spec->bind_dirfd);
      k = readlink (link, src, sizeof src - 1);
      if (k <= 0 || fstat (spec->bind_dirfd, &want) < 0)
        FAIL ("bind /sandbox");
      src[k] = '\0';
      if (mount (src, NR "/sandbox", NULL, MS_BIND, NULL) < 0)
        FAIL ("bind /sandbox");
      if (stat (NR "/sandbox", &got) < 0)
        FAIL ("bind /sandbox");
      if (got.st_dev != want.st_dev || got.st_ino != want.st_ino)
        {
          errno = EXDEV;
          FAIL ("verify bind /sandbox");
        }
      if (mount (NULL, NR "/sandbox", NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV, NULL) < 0)
        FAIL ("remount /sandbox");
      if (spec->n_files)
        {
          /* A session directory holds whatever earlier jobs made: write as
           * the slot uid, so no symlink planted there gains anything. */
          int r;
          fd = open (NR "/sandbox", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
          if (fd < 0)
            FAIL ("open /sandbox");
          (void)setfsgid (plan->gid);
          (void)setfsuid (plan->uid);
          r = rc_workspace_write_files (fd, spec->files, spec->n_files, 0777, (uid_t)-1, (gid_t)-1,
                                        step);
          setfsuid (0);
          setfsgid (0);
          close (fd);
          if (r < 0)
            return -1;
        }
      return 0;
    }

  snprintf (upper, sizeof upper, "%s" RUNNER_DIR "/upper", root);
  snprintf (work, sizeof work, "%s" RUNNER_DIR "/work", root);
  snprintf (target, sizeof target, "%s/sandbox", root);
  if (mkdir (upper, 0777) < 0 || mkdir (work, 0700) < 0)
    FAIL ("mkdir overlay dirs");
  fd = open (upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    FAIL ("open overlay upper");
  /* Fresh tmpfs nobody else has touched: root may write here safely. */
  if (rc_workspace_write_files (fd, spec->files, spec->n_files, 0777, plan->uid, plan->gid, step)
      < 0)
    {
      int saved = errno;
      close (fd);
      errno = saved;
      return -1;
    }
  close (fd);
  /* Leftmost lower wins: the skeleton's 0777 directories over the
   * template's, whose files show through.  The lowers are named by fds
   * opened first (a template may live anywhere on the host). */
  if (lower_fds[1] >= 0)
    snprintf (opts, sizeof opts,
              "lowerdir=/proc/self/fd/%d:/proc/self/fd/%d,upperdir=%s,workdir=%s", lower_fds[0],
              lower_fds[1], upper, work);
  else
    snprintf (opts, sizeof opts, "lowerdir=/proc/self/fd/%d,upperdir=%s,workdir=%s", lower_fds[0],
              upper, work);
  /* mount(2) directly, not libmount: every job pays this one, and a
   * libmount context costs the init about 0.3 ms of CPU in allocations
   * (copy-on-write faults after the clone) and probes (docs/sandbox.md,
   * Performance); the options are ours and fixed-format, nothing to parse.
   * nosuid,nodev are mount flags, not overlayfs options. */
  if (mount ("overlay", target, "overlay", MS_NOSUID | MS_NODEV, opts) < 0)
    FAIL ("overlay /sandbox");
  return 0;
}

/* One cache directory p (entry i): an overlay at its own path in the new
 * root, lower the host's directory, upper in the job's /tmp. */
static int
mount_cache (const struct rc_root_builder *b, const char *p, size_t i, const char **step)
{
  char dir[64], upper[80], work[80], target[PATH_MAX], opts[PATH_MAX + 256];
  struct stat st;
  if (p == NULL || p[0] != '/' || lstat (p, &st) < 0 || !S_ISDIR (st.st_mode))
    return 0; /* missing paths are skipped, as documented */
  if (bad_option_path (p) || strstr (p, "/../") != NULL)
    {
      errno = EINVAL;
      FAIL ("cache overlay");
    }
  snprintf (dir, sizeof dir, NR RUNNER_DIR "/c%zu", i);
  snprintf (upper, sizeof upper, "%s/u", dir);
  snprintf (work, sizeof work, "%s/w", dir);
  if (mkdir (dir, 0700) < 0 || mkdir (upper, st.st_mode & 07777) < 0 || mkdir (work, 0700) < 0)
    FAIL ("mkdir cache overlay dirs");
  /* The merged root takes the upper's attributes: mirror the cache. */
  if (chown (upper, st.st_uid, st.st_gid) < 0 || chmod (upper, st.st_mode & 07777) < 0)
    FAIL ("chown cache overlay");
  if (rc_root_add_host_path (b, p, false) < 0 || nr_path (target, sizeof target, p) < 0)
    FAIL ("cache overlay mount point");
  snprintf (opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s,nosuid,nodev", p, upper, work);
  if (lm_mount ("overlay", target, "overlay", opts) < 0)
    FAIL ("cache overlay");
  return 0;
}

static int
mount_caches (const struct rc_job_spec *spec, const char **step)
{
  struct rc_root_builder b = { .rootfd = -1, .bind = NULL };
  size_t i;
  int r = 0;
  if (spec->n_overlay_paths == 0)
    return 0;
  b.rootfd = open_nr ();
  if (b.rootfd < 0)
    FAIL ("open root");
  for (i = 0; r == 0 && i < spec->n_overlay_paths; i++)
    r = mount_cache (&b, spec->overlay_paths[i], i, step);
  {
    int saved = errno;
    close (b.rootfd);
    errno = saved;
  }
  return r;
}

static int
mount_dev (const char **step)
{
  int devfd, r;
  if (mount ("tmpfs", NR "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,nr_inodes=64,mode=0755")
      < 0)
    FAIL ("tmpfs /dev");
  devfd = open (NR "/dev", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (devfd < 0)
    FAIL ("open /dev");
  r = rc_root_fill_dev (devfd, step);
  close (devfd);
  if (r < 0)
    return -1;
  if (mount (NULL, NR "/dev", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) < 0)
    FAIL ("remount /dev");
  return 0;
}

/* These three are tried straight away, without an lstat first: about
 * twenty lookups in /proc per job saved.  A path this kernel lacks fails
 * the mount with ENOENT, and one of the other kind (a directory where a
 * file is masked, or the reverse) with ENOTDIR; either is skipped, as
 * before, and any other error fails the job. */
static int
skip_missing (int r)
{
  return r < 0 && (errno == ENOENT || errno == ENOTDIR) ? 0 : r;
}

/* Hides a regular file behind the empty file of the read-only root: reads
 * see nothing, and the bind inherits read-only from its source's mount, so
 * writes fail with EROFS (/dev/null would accept them); one mount each. */
static int
mask_file (const char *path)
{
  return skip_missing (mount (NR RC_ROOT_MASK_FILE, path, NULL, MS_BIND, NULL));
}

/* The same for a directory, with the empty directory of the read-only
 * root: a bind, not a tmpfs of its own (a superblock made and torn down
 * per job, about 20 us each here). */
static int
mask_dir (const char *path)
{
  return skip_missing (mount (NR RC_ROOT_MASK_DIR, path, NULL, MS_BIND, NULL));
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
mount_proc (const char **step)
{
  /* Read-only: the kernel knobs; masked: what leaks kernel addresses,
   * timers of other tasks, the keyring, or the host's activity (CPU, IRQ,
   * scheduler, disk and VM counters are side channels on other jobs). */
  static const char *const ro[]
      = { NR "/proc/sys", NR "/proc/sysrq-trigger", NR "/proc/bus", NR "/proc/fs" };
  static const char *const masked_files[]
      = { NR "/proc/kcore",      NR "/proc/keys",        NR "/proc/key-users",
          NR "/proc/timer_list", NR "/proc/sched_debug", NR "/proc/latency_stats",
          NR "/proc/kallsyms",   NR "/proc/kmsg",        NR "/proc/stat",
          NR "/proc/interrupts", NR "/proc/softirqs",    NR "/proc/schedstat",
          NR "/proc/diskstats",  NR "/proc/vmstat" };
  static const char *const masked_dirs[] = { NR "/proc/acpi", NR "/proc/scsi", NR "/proc/irq" };
  unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
  size_t i;

  /* Fail closed: without hidepid the root init and its command line
   * would be visible to the job. */
  if (mount ("proc", NR "/proc", "proc", flags, "hidepid=2") < 0)
    FAIL ("mount /proc hidepid=2");
  for (i = 0; i < sizeof ro / sizeof ro[0]; i++)
    if (bind_readonly (ro[i]) < 0)
      FAIL ("read-only /proc");
  for (i = 0; i < sizeof masked_files / sizeof masked_files[0]; i++)
    if (mask_file (masked_files[i]) < 0)
      FAIL ("mask /proc");
  for (i = 0; i < sizeof masked_dirs / sizeof masked_dirs[0]; i++)
    if (mask_dir (masked_dirs[i]) < 0)
      FAIL ("mask /proc");
  return 0;
}

/* The v1 view: the root's directory of mount points, bound read-only (a
 * bind, so only this mount's flags change: a remount of the superblock
 * would be the shared template's), then memory and pids on them. */
static int
mount_cgroup_v1 (const char *points, unsigned long flags, const char **step)
{
  if (mount (points, NR "/sys/fs/cgroup", NULL, MS_BIND, NULL) < 0
      || mount (NULL, NR "/sys/fs/cgroup", NULL, MS_REMOUNT | MS_BIND | flags, NULL) < 0)
    FAIL ("bind /sys/fs/cgroup");
  if (mount ("cgroup", NR "/sys/fs/cgroup/memory", "cgroup", flags, "memory") < 0)
    FAIL ("mount cgroup memory");
  if (mount ("cgroup", NR "/sys/fs/cgroup/pids", "cgroup", flags, "pids") < 0)
    FAIL ("mount cgroup pids");
  return 0;
}

static int
mount_cgroup (const struct rc_mount_plan *plan, const char **step)
{
  unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY;
  char v1_dir[32] = "";
  int v1_fd = -1, r = 0;

  /* On v1 the two mount points come from the root's own tmpfs, which the
   * sysfs is about to cover: held by an fd, bound through /proc/self/fd. */
  if (plan->cgmode != RC_CGROUP_UNIFIED)
    {
      v1_fd = open (NR RC_ROOT_CGROUP_V1_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (v1_fd < 0)
        FAIL ("open cgroup mount points");
      snprintf (v1_dir, sizeof v1_dir, "/proc/self/fd/%d", v1_fd);
    }
  /* A fresh sysfs belongs to our network namespace: /sys/class/net shows
   * lo only, not the host's interfaces. */
  if (mount ("sysfs", NR "/sys", "sysfs", flags, NULL) < 0)
    {
      *step = "mount /sys";
      r = -1;
    }
  else if (is_dir (NR "/sys/fs/cgroup"))
    {
      /* Our cgroup namespace is rooted at the slot, so is this mount. */
      if (plan->cgmode != RC_CGROUP_UNIFIED)
        r = mount_cgroup_v1 (v1_dir, flags, step);
      else if (mount ("cgroup2", NR "/sys/fs/cgroup", "cgroup2", flags, NULL) < 0)
        {
          *step = "mount cgroup2";
          r = -1;
        }
    }
  if (v1_fd >= 0)
    {
      int saved = errno;
      close (v1_fd);
      errno = saved;
    }
  return r;
}

/* pivot_root into NR and detach the old root: from here on nothing of the
 * host tree exists for the job (no /home, no host /run and its sockets). */
static int
enter_root (const char **step)
{
  if (chdir (NR) < 0)
    FAIL ("chdir new root");
  /* pivot_root(".", "."): the old root ends up stacked under the new
   * one, and is detached at once; no directory for it is needed. */
  if (syscall (SYS_pivot_root, ".", ".") < 0)
    FAIL ("pivot_root");
  if (umount2 (".", MNT_DETACH) < 0)
    FAIL ("detach old root");
  if (chdir ("/") < 0)
    FAIL ("chdir /");
  return 0;
}

/* The half of the view that owes nothing to the job, its slot or its
 * network namespace: what a pre-started init (spawn.c) builds before a
 * job exists.  The new root is the worker's template clone (root_fd),
 * attached on NR (the host's empty /sandbox, only ever a mount point), or
 * built there; it is entered at the end of the job half, once the
 * workspace's lowers, named in the old root, are mounted. */
int
rc_mounts_build_base (int root_fd, uid_t first_uid, unsigned n_uids, const char **step)
{
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    {
      if (root_fd >= 0)
        close (root_fd);
      FAIL ("make / private");
    }
  if (root_fd >= 0)
    {
      int r = rc_move_mount (root_fd, "", AT_FDCWD, NR, RC_MOVE_MOUNT_F_EMPTY_PATH), saved = errno;
      close (root_fd);
      errno = saved;
      if (r < 0)
        FAIL ("attach root");
    }
  else
    {
      if (mount_root (first_uid, n_uids, step) < 0)
        return -1;
      if (mount_dev (step) < 0)
        return -1;
    }
  if (mount_proc (step) < 0)
    return -1;
  if (root_fd < 0 && unseal_root () < 0)
    FAIL ("writable root");
  return 0;
}

/* Overlayfs takes a lower only from a mount of the caller's namespace:
 * once the old root is detached, the host's skeleton and template are no
 * longer that.  So a resident init binds them into its own root, where
 * the job's sysfs covers them, and replaces the fds with ones on those
 * binds, which stay usable after the pivot. */
static int
keep_lowers_in_root (int lower_fds[2])
{
  for (int i = 0; i < 2; i++)
    {
      char src[32], target[64];
      int fd;
      if (lower_fds[i] < 0)
        continue;
      snprintf (src, sizeof src, "/proc/self/fd/%d", lower_fds[i]);
      snprintf (target, sizeof target, NR RC_ROOT_LOWERS_DIR "/%d", i);
      if (mount (src, target, NULL, MS_BIND, NULL) < 0 || make_readonly (target, false) < 0)
        return -1;
      fd = open (target, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        return -1;
      close (lower_fds[i]);
      lower_fds[i] = fd;
    }
  return 0;
}

/* The job's half: host paths, workspace, caches, /sys (after the init
 * joined the slot's network and cgroup namespaces), then the pivot.  A
 * cloned root is read-only already; a built one is sealed here.  With
 * keep_lowers the workspace's lowers stay open there for the next jobs of
 * a resident init (rc_mounts_job_again); otherwise they are closed. */
int
rc_mounts_build_job (const struct rc_mount_plan *plan, bool root_cloned, int keep_lowers[2],
                     const char **step)
{
  int lower_fds[2] = { -1, -1 };

  if (plan->spec->workspace == RC_WORKSPACE_TEMPLATE)
    {
      lower_fds[0] = open (plan->skel_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (lower_fds[0] < 0)
        FAIL ("open skeleton");
      if (plan->spec->template_dir)
        {
          lower_fds[1] = open (plan->spec->template_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
          if (lower_fds[1] < 0)
            FAIL ("open template");
        }
    }
  if (keep_lowers && keep_lowers_in_root (lower_fds) < 0)
    FAIL ("bind workspace lowers");
  if (mount_host_paths (plan->spec, step) < 0)
    return -1;
  if (mount_tmp (plan->spec, NR, step) < 0)
    return -1;
  if (mount_workspace (plan, lower_fds, NR, step) < 0)
    return -1;
  if (keep_lowers)
    {
      keep_lowers[0] = lower_fds[0];
      keep_lowers[1] = lower_fds[1];
    }
  else
    {
      /* The overlay holds its own references to the lowers. */
      if (lower_fds[0] >= 0)
        close (lower_fds[0]);
      if (lower_fds[1] >= 0)
        close (lower_fds[1]);
    }
  if (mount_caches (plan->spec, step) < 0)
    return -1;
  if (mount_cgroup (plan, step) < 0)
    return -1;
  if (!root_cloned && seal_root (step) < 0)
    return -1;
  return enter_root (step);
}

/* A resident init's next job, inside the root it entered for its first
 * one: everything that job left is gone (rc_mounts_job_clear), the rest
 * of the view is the same by construction (spawn.c only hands it a job
 * with the same template, host paths and slot).  Its /tmp was mounted
 * ahead, fresh, with the options of the job before (ahead_opts): mounted
 * again when this job's differ.  Then a fresh workspace on the lowers
 * kept open since the first job. */
int
rc_mounts_job_again (const struct rc_mount_plan *plan, const int lower_fds[2],
                     const char *ahead_opts, const char **step)
{
  char opts[RC_TMP_OPTS_MAX];
  rc_mounts_tmp_options (plan->spec, opts);
  if (strcmp (opts, ahead_opts) != 0)
    {
      if (umount2 ("/tmp", 0) < 0)
        FAIL ("unmount /tmp");
      if (mount_tmp_with (opts, "", step) < 0)
        return -1;
    }
  return mount_workspace (plan, lower_fds, "", step);
}

/* Unmounts the job's workspace and /tmp, workspace first (its upper is
 * in /tmp), then mounts the next job's /tmp with opts.  Called once no
 * process of the job is left, so nothing is busy; each superblock goes
 * with its mount. */
int
rc_mounts_job_clear (const char *opts, const char **step)
{
  if (umount2 ("/sandbox", 0) < 0)
    FAIL ("unmount /sandbox");
  if (umount2 ("/tmp", 0) < 0)
    FAIL ("unmount /tmp");
  return mount_tmp_with (opts, "", step);
}

int
rc_mounts_build (const struct rc_mount_plan *plan, const char **step)
{
  if (rc_mounts_build_base (plan->root_fd, plan->first_uid, plan->n_uids, step) < 0)
    return -1;
  return rc_mounts_build_job (plan, plan->root_fd >= 0, NULL, step);
}

int
rc_net_lo_up (void)
{
  struct ifreq ifr;
  int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;
  if (fd < 0)
    return -1;
  memset (&ifr, 0, sizeof ifr);
  memcpy (ifr.ifr_name, "lo", 3);
  r = ioctl (fd, SIOCGIFFLAGS, &ifr);
  if (r == 0 && !(ifr.ifr_flags & IFF_UP))
    {
      ifr.ifr_flags |= IFF_UP;
      r = ioctl (fd, SIOCSIFFLAGS, &ifr);
    }
  close (fd);
  return r;
}
