/* mounts.c - the job's mount view, built by the namespace init (root, in a
 * fresh mount namespace) before any user code runs.
 *
 * Order matters: propagation is made private first (hostile-programs §0 #7:
 * on an rshared host an unmount in here would otherwise reach the host),
 * then everything inherited becomes read-only and nosuid in one
 * mount_setattr, and only then the writable pieces are mounted on top, each
 * with its own flags.  The view is built in two halves (a pre-started init
 * builds the first before the job exists, spawn.c):
 *
 *   base (owes nothing to the job)
 *   /dev            tmpfs with null zero full random urandom, the fd links and
 *                   a fresh /dev/shm; no tty, no host device
 *   /proc           fresh for the pid namespace, hidepid=2 (the root init is
 *                   invisible), kernel knobs read-only, info leaks masked
 *
 *   job (after the init joined the slot's network and cgroup namespaces)
 *   /tmp            fresh tmpfs, size= and nr_inodes= from the job; holds the
 *                   root-only /tmp/.runner with every overlay upper/work dir,
 *                   so one cap bounds every write of the job
 *   /sandbox        overlay: upper (inputs + writes) : skeleton : template, or
 *                   the session directory bound read-write (RC_WORKSPACE_BIND)
 *   cache dirs      one overlay each, upper in /tmp/.runner
 *   masks           empty read-only tmpfs over the state dir and the places
 *                   operators keep secrets, /dev/null over the packaged
 *                   configuration file (after the workspace: its lowers may
 *                   live below them)
 *   /sys            fresh read-only sysfs of the job's network namespace, and
 *                   at /sys/fs/cgroup the slot's own cgroup (v2 cgroup2, v1
 *                   memory and pids)
 *
 * The cache overlays go through libmount's context API (readable errors,
 * helpers and mtab off); the workspace overlay, which every job mounts, and
 * the plain tmpfs/bind/remount steps call mount(2) directly: their options
 * are ours, and a libmount context per job costs measurable CPU.  Nothing
 * has to be undone: every mount disappears with the namespace.
 */
#include "config.h"

#include "sandbox/sandbox_internal.h"
#include "sandbox/syscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
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
#include <sys/sysmacros.h>
#include <unistd.h>

#define RUNNER_DIR "/tmp/.runner"
#define DEFAULT_TMP_BYTES (64ULL << 20)

#define FAIL(s)                                                                                    \
  do                                                                                               \
    {                                                                                              \
      *step = (s);                                                                                 \
      return -1;                                                                                   \
    }                                                                                              \
  while (0)

/* Mounts with a libmount context; errno is the mount(2) errno when the
 * syscall ran, EINVAL for a library-side refusal. */
static int
lm_mount (const char *source, const char *target, const char *fstype, const char *options)
{
  struct libmnt_context *cxt = mnt_new_context ();
  int rc;
  if (cxt == NULL)
    {
      errno = ENOMEM;
      return -1;
    }
  mnt_context_disable_mtab (cxt, 1);
  mnt_context_disable_helpers (cxt, 1);
  mnt_context_disable_canonicalize (cxt, 1);
  if (mnt_context_set_source (cxt, source) < 0 || mnt_context_set_target (cxt, target) < 0
      || mnt_context_set_fstype (cxt, fstype) < 0 || mnt_context_set_options (cxt, options) < 0)
    {
      mnt_free_context (cxt);
      errno = EINVAL;
      return -1;
    }
  rc = mnt_context_mount (cxt);
  if (rc != 0)
    {
      int e = EINVAL;
      if (mnt_context_syscall_called (cxt) && mnt_context_get_syscall_errno (cxt) != 0)
        e = mnt_context_get_syscall_errno (cxt);
      else if (rc < 0)
        e = -rc;
      mnt_free_context (cxt);
      errno = e;
      return -1;
    }
  mnt_free_context (cxt);
  return 0;
}

/* Fallback for kernels without mount_setattr (< 5.12): remount every mount
 * point read-only, deepest first is not needed since flags are per mount. */
static int
readonly_root_fallback (void)
{
  FILE *f = fopen ("/proc/self/mountinfo", "re");
  char line[4096];
  int ret = 0;
  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f))
    {
      char mp[4096];
      /* id parent major:minor root mountpoint ... */
      if (sscanf (line, "%*s %*s %*s %*s %4095s", mp) != 1)
        continue;
      if (mount (NULL, mp, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, NULL) < 0
          && errno != EACCES && errno != ENOENT)
        {
          /* Mounts with locked flags (nodev, noexec) refuse a remount that
           * would clear them: retry keeping them. */
          if (mount (NULL, mp, NULL,
                     MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)
              < 0)
            ret = -1;
        }
    }
  fclose (f);
  return ret;
}

static int
make_root_readonly (void)
{
  struct rc_mount_attr attr = { .attr_set = RC_MOUNT_ATTR_RDONLY | RC_MOUNT_ATTR_NOSUID };
  if (rc_mount_setattr (AT_FDCWD, "/", AT_RECURSIVE, &attr) == 0)
    return 0;
  if (errno != ENOSYS)
    return -1;
  return readonly_root_fallback ();
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

static int
mount_tmp (const struct rc_job_spec *spec, const char **step)
{
  uint64_t bytes = spec->tmp_bytes ? spec->tmp_bytes : DEFAULT_TMP_BYTES;
  uint64_t inodes = spec->tmp_inodes;
  char opts[128];
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
  snprintf (opts, sizeof opts, "size=%llu,nr_inodes=%llu,mode=1777", (unsigned long long)bytes,
            (unsigned long long)inodes);
  if (mount ("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
    FAIL ("tmpfs /tmp");
  if (mkdir (RUNNER_DIR, 0700) < 0)
    FAIL ("mkdir /tmp/.runner");
  return 0;
}

static int
mount_workspace (const struct rc_mount_plan *plan, const int lower_fds[2], const char **step)
{
  const struct rc_job_spec *spec = plan->spec;
  char opts[PATH_MAX * 3];
  int fd;

  if (spec->workspace == RC_WORKSPACE_BIND)
    {
      char link[64], src[PATH_MAX];
      struct stat want, got;
      ssize_t k;
      /* The fd's mount belongs to the host's namespace, which a bind
       * refuses (EINVAL): bind the path it names in our copy of the tree,
       * then check it is the very directory the fd holds. */
      snprintf (link, sizeof link, "/proc/self/fd/%d", spec->bind_dirfd);
      k = readlink (link, src, sizeof src - 1);
      if (k <= 0 || fstat (spec->bind_dirfd, &want) < 0)
        FAIL ("bind /sandbox");
      src[k] = '\0';
      if (mount (src, "/sandbox", NULL, MS_BIND, NULL) < 0)
        FAIL ("bind /sandbox");
      if (stat ("/sandbox", &got) < 0)
        FAIL ("bind /sandbox");
      if (got.st_dev != want.st_dev || got.st_ino != want.st_ino)
        {
          errno = EXDEV;
          FAIL ("verify bind /sandbox");
        }
      /* The bind inherited the read-only flag set on / above. */
      if (mount (NULL, "/sandbox", NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV, NULL) < 0)
        FAIL ("remount /sandbox");
      if (spec->n_files)
        {
          /* A session directory holds whatever earlier jobs made: write as
           * the slot uid, so no symlink planted there gains anything. */
          int r;
          fd = open ("/sandbox", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

  if (mkdir (RUNNER_DIR "/upper", 0777) < 0 || mkdir (RUNNER_DIR "/work", 0700) < 0)
    FAIL ("mkdir overlay dirs");
  fd = open (RUNNER_DIR "/upper", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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
   * template's, whose files show through.  The lowers are named by the fds
   * opened before /tmp was covered (a template may live below /tmp). */
  if (lower_fds[1] >= 0)
    snprintf (opts, sizeof opts,
              "lowerdir=/proc/self/fd/%d:/proc/self/fd/%d,upperdir=" RUNNER_DIR
              "/upper,workdir=" RUNNER_DIR "/work",
              lower_fds[0], lower_fds[1]);
  else
    snprintf (opts, sizeof opts,
              "lowerdir=/proc/self/fd/%d,upperdir=" RUNNER_DIR "/upper,workdir=" RUNNER_DIR "/work",
              lower_fds[0]);
  /* mount(2) directly, not libmount: every job pays this one, and a
   * libmount context costs the init about 0.3 ms of CPU in allocations
   * (copy-on-write faults after the clone) and probes (docs/sandbox.md,
   * Performance); the options are ours and fixed-format, nothing to parse.
   * nosuid,nodev are mount flags, not overlayfs options. */
  if (mount ("overlay", "/sandbox", "overlay", MS_NOSUID | MS_NODEV, opts) < 0)
    FAIL ("overlay /sandbox");
  return 0;
}

static int
mount_caches (const struct rc_job_spec *spec, const char **step)
{
  size_t i;
  for (i = 0; i < spec->n_overlay_paths; i++)
    {
      const char *p = spec->overlay_paths[i];
      char dir[64], upper[80], work[80], opts[PATH_MAX + 256];
      struct stat st;
      if (p == NULL || p[0] != '/' || lstat (p, &st) < 0 || !S_ISDIR (st.st_mode))
        continue; /* missing paths are skipped, as documented */
      if (bad_option_path (p))
        {
          errno = EINVAL;
          FAIL ("cache overlay");
        }
      snprintf (dir, sizeof dir, RUNNER_DIR "/c%zu", i);
      snprintf (upper, sizeof upper, "%s/u", dir);
      snprintf (work, sizeof work, "%s/w", dir);
      if (mkdir (dir, 0700) < 0 || mkdir (upper, st.st_mode & 07777) < 0 || mkdir (work, 0700) < 0)
        FAIL ("mkdir cache overlay dirs");
      /* The merged root takes the upper's attributes: mirror the cache. */
      if (chown (upper, st.st_uid, st.st_gid) < 0 || chmod (upper, st.st_mode & 07777) < 0)
        FAIL ("chown cache overlay");
      snprintf (opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s,nosuid,nodev", p, upper,
                work);
      if (lm_mount ("overlay", p, "overlay", opts) < 0)
        FAIL ("cache overlay");
    }
  return 0;
}

static int
mount_dev (uint64_t shm, const char **step)
{
  static const struct
  {
    const char *name;
    unsigned minor;
  } nodes[] = { { "null", 3 }, { "zero", 5 }, { "full", 7 }, { "random", 8 }, { "urandom", 9 } };
  static const struct
  {
    const char *target, *name;
  } links[] = { { "/proc/self/fd", "fd" },
                { "/proc/self/fd/0", "stdin" },
                { "/proc/self/fd/1", "stdout" },
                { "/proc/self/fd/2", "stderr" } };
  char path[64], opts[96];
  size_t i;

  /* Device nodes are made, not bound from the host /dev: no host inode is
   * ever exposed, and mknod is cheaper than a bind mount. */
  if (mount ("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,nr_inodes=64,mode=0755")
      < 0)
    FAIL ("tmpfs /dev");
  for (i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
    {
      snprintf (path, sizeof path, "/dev/%s", nodes[i].name);
      if (mknod (path, S_IFCHR | 0666, makedev (1, nodes[i].minor)) < 0)
        FAIL ("mknod /dev");
    }
  for (i = 0; i < sizeof links / sizeof links[0]; i++)
    {
      snprintf (path, sizeof path, "/dev/%s", links[i].name);
      if (symlink (links[i].target, path) < 0)
        FAIL ("symlink /dev");
    }
  if (mkdir ("/dev/shm", 01777) < 0)
    FAIL ("mkdir /dev/shm");
  snprintf (opts, sizeof opts, "size=%llu,nr_inodes=4096,mode=1777", (unsigned long long)shm);
  if (mount ("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
    FAIL ("tmpfs /dev/shm");
  if (mount (NULL, "/dev", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) < 0)
    FAIL ("remount /dev");
  return 0;
}

/* Hides a regular file behind /dev/null; 0 when there is none. */
static int
mask_file (const char *path)
{
  struct stat st;
  if (lstat (path, &st) < 0 || !S_ISREG (st.st_mode))
    return 0;
  return mount ("/dev/null", path, NULL, MS_BIND, NULL);
}

static int
mask_dir (const char *path)
{
  if (!is_dir (path))
    return 0;
  return mount ("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "size=4k,nr_inodes=1,mode=0755");
}

static int
mask_secrets (const struct rc_mount_plan *plan, const char **step)
{
  /* The places where operators keep credentials, plus runcell's own
   * state (skeletons, sessions, pre-made namespaces) and configuration. */
  static const char *const dirs[] = { "/root",        "/home",
                                      "/run/secrets", "/var/run/secrets",
                                      "/etc/runcell", "/var/lib/runcell" };
  /* The packaged configuration (EnvironmentFile= of the unit) may hold
   * operator secrets and is world-readable on the host. */
  static const char *const files[] = { "/etc/default/runcell" };
  size_t i;
  if (plan->state_dir && plan->state_dir[0] == '/' && mask_dir (plan->state_dir) < 0)
    FAIL ("mask state dir");
  for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
    if (mask_dir (dirs[i]) < 0)
      FAIL ("mask secrets");
  for (i = 0; i < sizeof files / sizeof files[0]; i++)
    if (mask_file (files[i]) < 0)
      FAIL ("mask secrets");
  return 0;
}

static int
bind_readonly (const char *path)
{
  struct stat st;
  if (lstat (path, &st) < 0)
    return errno == ENOENT ? 0 : -1;
  if (mount (path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
    return -1;
  return mount (NULL, path, NULL,
                MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

static int
mount_proc (const char **step)
{
  /* Read-only: the kernel knobs; masked: what leaks kernel addresses,
   * timers of other tasks or the keyring. */
  static const char *const ro[]
      = { "/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs" };
  static const char *const masked_files[]
      = { "/proc/kcore",       "/proc/keys",          "/proc/key-users", "/proc/timer_list",
          "/proc/sched_debug", "/proc/latency_stats", "/proc/kallsyms",  "/proc/kmsg" };
  static const char *const masked_dirs[] = { "/proc/acpi", "/proc/scsi" };
  unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
  size_t i;

  if (mount ("proc", "/proc", "proc", flags, "hidepid=2") < 0
      && (errno != EINVAL || mount ("proc", "/proc", "proc", flags, NULL) < 0))
    FAIL ("mount /proc");
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

static int
mount_cgroup (const struct rc_mount_plan *plan, const char **step)
{
  unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY;
  /* A fresh sysfs belongs to our network namespace: /sys/class/net shows
   * lo only, not the host's interfaces. */
  if (mount ("sysfs", "/sys", "sysfs", flags, NULL) < 0)
    FAIL ("mount /sys");
  if (!is_dir ("/sys/fs/cgroup"))
    return 0;
  if (plan->cgmode == RC_CGROUP_UNIFIED)
    {
      /* Our cgroup namespace is rooted at the slot, so is this mount. */
      if (mount ("cgroup2", "/sys/fs/cgroup", "cgroup2", flags, NULL) < 0)
        FAIL ("mount cgroup2");
      return 0;
    }
  if (mount ("tmpfs", "/sys/fs/cgroup", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
             "size=4k,nr_inodes=16,mode=0755")
          < 0
      || mkdir ("/sys/fs/cgroup/memory", 0755) < 0 || mkdir ("/sys/fs/cgroup/pids", 0755) < 0)
    FAIL ("tmpfs /sys/fs/cgroup");
  if (mount ("cgroup", "/sys/fs/cgroup/memory", "cgroup", flags, "memory") < 0)
    FAIL ("mount cgroup memory");
  if (mount ("cgroup", "/sys/fs/cgroup/pids", "cgroup", flags, "pids") < 0)
    FAIL ("mount cgroup pids");
  if (mount (NULL, "/sys/fs/cgroup", NULL, MS_REMOUNT | flags, NULL) < 0)
    FAIL ("remount /sys/fs/cgroup");
  return 0;
}

static uint64_t
shm_bytes_of (const struct rc_job_spec *spec)
{
  return spec->tmp_bytes ? spec->tmp_bytes : DEFAULT_TMP_BYTES;
}

/* The half of the view that owes nothing to the job, its slot or its
 * network namespace: what a pre-started init (spawn.c) builds before a
 * job exists.  No secret is masked here: the job's template may live below
 * a masked place (a checkout in /root), and its fd is opened first. */
int
rc_mounts_build_base (uint64_t shm_bytes, const char **step)
{
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    FAIL ("make / private");
  if (make_root_readonly () < 0)
    FAIL ("read-only root");
  if (mount_dev (shm_bytes ? shm_bytes : DEFAULT_TMP_BYTES, step) < 0)
    return -1;
  if (mount_proc (step) < 0)
    return -1;
  return 0;
}

/* The job's half: workspace, caches, masks, and /sys, which must come
 * after the init joined the slot's network and cgroup namespaces. */
int
rc_mounts_build_job (const struct rc_mount_plan *plan, bool resize_shm, const char **step)
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
  /* A session directory is bound before /tmp is covered, in case it lives
   * there; the overlay needs the fresh /tmp for its upper layer. */
  if (plan->spec->workspace == RC_WORKSPACE_BIND && mount_workspace (plan, lower_fds, step) < 0)
    return -1;
  if (mount_tmp (plan->spec, step) < 0)
    return -1;
  if (plan->spec->workspace == RC_WORKSPACE_TEMPLATE && mount_workspace (plan, lower_fds, step) < 0)
    return -1;
  /* The overlay holds its own references to the lowers. */
  if (lower_fds[0] >= 0)
    close (lower_fds[0]);
  if (lower_fds[1] >= 0)
    close (lower_fds[1]);
  if (mount_caches (plan->spec, step) < 0)
    return -1;
  if (resize_shm && shm_bytes_of (plan->spec) != DEFAULT_TMP_BYTES)
    {
      char opts[96];
      snprintf (opts, sizeof opts, "size=%llu,nr_inodes=4096,mode=1777",
                (unsigned long long)shm_bytes_of (plan->spec));
      if (mount (NULL, "/dev/shm", NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV, opts) < 0)
        FAIL ("resize /dev/shm");
    }
  if (mask_secrets (plan, step) < 0)
    return -1;
  if (mount_cgroup (plan, step) < 0)
    return -1;
  return 0;
}

int
rc_mounts_build (const struct rc_mount_plan *plan, const char **step)
{
  if (rc_mounts_build_base (shm_bytes_of (plan->spec), step) < 0)
    return -1;
  return rc_mounts_build_job (plan, false, step);
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
