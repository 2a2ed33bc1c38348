/* workspace.c - a job's own mounts in its slot's root, made by the init
 * when the job arrives and removed when it is over:
 *
 *   /tmp         tmpfs, size= and nr_inodes= from the job; holds the
 *                root-only /tmp/.runner with every overlay upper and work
 *                dir, and /tmp/.shm, so one cap bounds every write of the
 *                job.  A fresh superblock per job (inode numbers, free
 *                space and contents are those of a fresh one), mounted
 *                while the slot is cleaned, off the next job's path.
 *   /sandbox     overlay: upper (inputs + writes) : skeleton : template;
 *                or a session's directory, attached from a detached mount
 *                tree the worker cloned (RC_WORKSPACE_BIND)
 *   cache dirs   one overlay each, upper in /tmp/.runner (libmount)
 *   /dev/pts     a tty step's terminal: a devpts instance of the job's
 *                own (each devpts mount is a new instance since Linux
 *                4.7), so the job sees its own ptys and nobody else's
 *   over /tmp    for a judge's compile job, its build directory (a tmpfs
 *                of the service, attached from a detached mount tree);
 *                for a judged test, an overlay whose read-only lower is
 *                that directory and whose upper is in the fresh /tmp.
 *                Mounted last: the uppers of the mounts above live in the
 *                fresh /tmp, which it covers.
 *
 * The workspace overlay, which every job mounts, calls mount(2) directly:
 * its options are ours, and a libmount context per job costs measurable
 * CPU.  The cache overlays go through libmount's context API (readable
 * errors, helpers and mtab off; loaded at run time, libmount_lazy.c).
 */
#include "config.h"

#include "sandbox/host/syscalls.h"
#include "sandbox/root/libmount_lazy.h"
#include "sandbox/root/root.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUNNER_DIR "/tmp/.runner"
/* A judged test's /tmp: the build directory, its upper and work dirs. */
#define TMP_LOWER RUNNER_DIR "/tl"
#define TMP_UPPER RUNNER_DIR "/tu"
#define TMP_WORK RUNNER_DIR "/tw"
#define DEFAULT_TMP_BYTES (64ULL << 20)

/* Mounts with a libmount context; errno is the mount(2) errno when the
 * syscall ran, EINVAL for a library-side refusal, ENOSYS when libmount
 * cannot be loaded. */
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

void
rc_root_tmp_options (const struct rc_job_spec *spec, char opts[RC_TMP_OPTS_MAX])
{
  uint64_t bytes = spec && spec->tmp_bytes ? spec->tmp_bytes : DEFAULT_TMP_BYTES;
  uint64_t inodes = spec ? spec->tmp_inodes : 0;
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
  snprintf (opts, RC_TMP_OPTS_MAX, "size=%llu,nr_inodes=%llu", (unsigned long long)bytes,
            (unsigned long long)inodes);
}

int
rc_root_tmp_mount (struct rc_root *root, const char *prefix, const char **step)
{
  char tmp[64], runner[64], shm[64], opts[RC_TMP_OPTS_MAX + 16];
  snprintf (tmp, sizeof tmp, "%s/tmp", prefix);
  snprintf (runner, sizeof runner, "%s" RUNNER_DIR, prefix);
  snprintf (shm, sizeof shm, "%s" RC_ROOT_SHM_DIR, prefix);
  snprintf (opts, sizeof opts, "%s,mode=1777", root->tmp_opts);
  if (mount ("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
    RC_ROOT_FAIL ("tmpfs /tmp");
  if (mkdir (runner, 0700) < 0)
    RC_ROOT_FAIL ("mkdir /tmp/.runner");
  /* /dev/shm links here: POSIX shared memory comes out of /tmp's budget. */
  if (mkdir (shm, 01777) < 0 || chmod (shm, 01777) < 0)
    RC_ROOT_FAIL ("mkdir /tmp/.shm");
  return 0;
}

/* The session's directory at /sandbox: the worker cloned it as a
 * detached mount tree (a bind from the host's namespace would be
 * refused), attached here.  The request's files are written as the slot
 * uid: a session directory holds whatever earlier jobs made, so no
 * symlink planted there gains anything. */
static int
mount_session (struct rc_root *root, const struct rc_root_job *job, const char **step)
{
  const struct rc_job_spec *spec = job->spec;
  int fd, r;

  if (rc_move_mount (job->session_fd, "", AT_FDCWD, "/sandbox", RC_MOVE_MOUNT_F_EMPTY_PATH) < 0)
    RC_ROOT_FAIL ("attach /sandbox");
  root->session = true;
  if (mount (NULL, "/sandbox", NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV, NULL) < 0)
    RC_ROOT_FAIL ("remount /sandbox");
  if (spec->n_files == 0)
    return 0;
  fd = open ("/sandbox", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    RC_ROOT_FAIL ("open /sandbox");
  (void)setfsgid (job->gid);
  (void)setfsuid (job->uid);
  r = rc_hostfs_write_files (fd, spec->files, spec->n_files, 0777, (uid_t)-1, (gid_t)-1, step);
  setfsuid (0);
  setfsgid (0);
  close (fd);
  return r;
}

/* The overlay of a template job: the request's files in a fresh upper,
 * the skeleton's 0777 directories over the template's, whose files show
 * through.  The lowers are the init's fds on its hidden binds. */
static int
mount_template (struct rc_root *root, const struct rc_root_job *job, const char **step)
{
  const struct rc_job_spec *spec = job->spec;
  const int skel = root->skel[job->lower], tpl = root->tpl[job->lower];
  char opts[256];
  int fd;

  if (mkdir (RUNNER_DIR "/upper", 0777) < 0 || mkdir (RUNNER_DIR "/work", 0700) < 0)
    RC_ROOT_FAIL ("mkdir overlay dirs");
  fd = open (RUNNER_DIR "/upper", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    RC_ROOT_FAIL ("open overlay upper");
  /* A fresh tmpfs nobody else has touched: root may write here safely. */
  if (rc_hostfs_write_files (fd, spec->files, spec->n_files, 0777, job->uid, job->gid, step) < 0)
    {
      int saved = errno;
      close (fd);
      errno = saved;
      return -1;
    }
  close (fd);
  if (tpl >= 0)
    snprintf (opts, sizeof opts,
              "lowerdir=/proc/self/fd/%d:/proc/self/fd/%d,upperdir=" RUNNER_DIR
              "/upper,workdir=" RUNNER_DIR "/work",
              skel, tpl);
  else
    snprintf (opts, sizeof opts,
              "lowerdir=/proc/self/fd/%d,upperdir=" RUNNER_DIR "/upper,workdir=" RUNNER_DIR "/work",
              skel);
  /* nosuid,nodev are mount flags, not overlayfs options. */
  if (mount ("overlay", "/sandbox", "overlay", MS_NOSUID | MS_NODEV, opts) < 0)
    RC_ROOT_FAIL ("overlay /sandbox");
  return 0;
}

/* The job's language's cache directories: an overlay each, at its own
 * path, over the host's directory (hidden, root->cache), upper in /tmp. */
static int
mount_caches (struct rc_root *root, const struct rc_root_job *job, const char **step)
{
  const struct rc_root_plan *plan = root->plan;
  size_t k = 0;

  if (job->lang < 0)
    return 0;
  for (int i = 0; i < job->lang; i++)
    k += plan->langs[i].n_overlay_paths;
  for (size_t j = 0; j < plan->langs[job->lang].n_overlay_paths; j++, k++)
    {
      const char *p = plan->langs[job->lang].overlay_paths[j];
      char dir[64], upper[80], work[80], opts[256];
      struct stat st;
      if (root->cache[k] < 0)
        continue; /* missing on the host: skipped, as documented */
      if (fstat (root->cache[k], &st) < 0)
        RC_ROOT_FAIL ("cache overlay");
      snprintf (dir, sizeof dir, RUNNER_DIR "/c%zu", k);
      snprintf (upper, sizeof upper, "%s/u", dir);
      snprintf (work, sizeof work, "%s/w", dir);
      if (mkdir (dir, 0700) < 0 || mkdir (upper, st.st_mode & 07777) < 0 || mkdir (work, 0700) < 0)
        RC_ROOT_FAIL ("mkdir cache overlay dirs");
      /* The merged root takes the upper's attributes: mirror the cache. */
      if (chown (upper, st.st_uid, st.st_gid) < 0 || chmod (upper, st.st_mode & 07777) < 0)
        RC_ROOT_FAIL ("chown cache overlay");
      snprintf (opts, sizeof opts, "lowerdir=/proc/self/fd/%d,upperdir=%s,workdir=%s,nosuid,nodev",
                root->cache[k], upper, work);
      if (lm_mount ("overlay", p, "overlay", opts) < 0)
        RC_ROOT_FAIL ("cache overlay");
      if (root->n_caches_mounted < sizeof root->cache_mounted / sizeof root->cache_mounted[0])
        root->cache_mounted[root->n_caches_mounted++] = (int)k;
    }
  return 0;
}

/* The build directory, attached at target from the detached tree the
 * worker cloned (*attached once it is), then remounted: read-write for the
 * compile job, read-only under a test's overlay, never suid or device
 * files whoever wrote them. */
static int
attach_build_dir (const struct rc_root_job *job, const char *target, bool rdonly, bool *attached)
{
  unsigned long flags = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | (rdonly ? MS_RDONLY : 0);
  if (rc_move_mount (job->tmp_fd, "", AT_FDCWD, target, RC_MOVE_MOUNT_F_EMPTY_PATH) < 0)
    return -1;
  *attached = true;
  return mount (NULL, target, NULL, flags, NULL);
}

static int
mount_tmp_layer (struct rc_root *root, const struct rc_root_job *job, const char **step)
{
  enum rc_tmp_kind kind = job->spec->tmp;
  char opts[256];

  if (kind == RC_TMP_FRESH)
    return 0;
  if (job->tmp_fd < 0)
    {
      errno = EBADF;
      RC_ROOT_FAIL ("build directory");
    }
  if (kind == RC_TMP_BIND)
    {
      bool attached = false;
      int r = attach_build_dir (job, "/tmp", false, &attached);
      if (attached)
        root->tmp_layer = RC_TMP_BIND;
      if (r < 0)
        RC_ROOT_FAIL ("attach the build directory at /tmp");
      /* /dev/shm links to /tmp/.shm.  The directory is fresh (the compile
       * job is its first). */
      if (mkdir (RC_ROOT_SHM_DIR, 01777) < 0 && errno != EEXIST)
        RC_ROOT_FAIL ("mkdir /tmp/.shm");
      return 0;
    }
  if (mkdir (TMP_LOWER, 0700) < 0)
    RC_ROOT_FAIL ("mkdir the build directory's mount point");
  if (attach_build_dir (job, TMP_LOWER, true, &root->tmp_lower) < 0)
    RC_ROOT_FAIL ("attach the build directory");
  if (mkdir (TMP_UPPER, 01777) < 0 || mkdir (TMP_UPPER "/.shm", 01777) < 0
      || mkdir (TMP_WORK, 0700) < 0)
    RC_ROOT_FAIL ("mkdir /tmp overlay dirs");
  snprintf (opts, sizeof opts, "lowerdir=" TMP_LOWER ",upperdir=" TMP_UPPER ",workdir=" TMP_WORK);
  if (mount ("overlay", "/tmp", "overlay", MS_NOSUID | MS_NODEV, opts) < 0)
    RC_ROOT_FAIL ("overlay /tmp");
  root->tmp_layer = RC_TMP_OVERLAY;
  return 0;
}

int
rc_root_job_mount (struct rc_root *root, const struct rc_root_job *job, const char **step)
{
  char opts[RC_TMP_OPTS_MAX];

  /* /tmp was mounted ahead with the options of the job before: the same
   * superblock takes this job's size (a remount, no new superblock). */
  rc_root_tmp_options (job->spec, opts);
  if (strcmp (opts, root->tmp_opts) != 0)
    {
      if (mount (NULL, "/tmp", NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV, opts) < 0)
        RC_ROOT_FAIL ("resize /tmp");
      memcpy (root->tmp_opts, opts, sizeof opts);
    }
  if (job->spec->workspace == RC_WORKSPACE_BIND)
    {
      if (mount_session (root, job, step) < 0)
        return -1;
    }
  else if (job->lower < 0 || (size_t)job->lower >= root->plan->n_langs)
    {
      errno = ENOENT;
      RC_ROOT_FAIL ("workspace template");
    }
  else if (mount_template (root, job, step) < 0)
    return -1;
  if (mount_caches (root, job, step) < 0)
    return -1;
  return mount_tmp_layer (root, job, step);
}

/* Enough for a program that opens a pty of its own (script, expect); the
 * kernel's pty.max is shared by every instance. */
#define PTS_MAX "8"

int
rc_root_job_tty (struct rc_root *root, uid_t uid, gid_t gid, int *master, int *slave,
                 const char **step)
{
  struct winsize ws = { .ws_row = 24, .ws_col = 80 };
  int unlock = 0, m, s;

  /* ptmxmode 0666: the job may open more ptys in its instance (a
   * terminal in a terminal), at most PTS_MAX; its slaves are its own. */
  if (!root->pts_mounted)
    {
      if (mount ("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
                 "newinstance,ptmxmode=0666,mode=0620,max=" PTS_MAX)
          < 0)
        RC_ROOT_FAIL ("mount devpts");
      root->pts_mounted = true;
    }
  m = open ("/dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (m < 0)
    RC_ROOT_FAIL ("open ptmx");
  /* The slave through the master, not by a path the job could race. */
  if (ioctl (m, TIOCSPTLCK, &unlock) < 0 || ioctl (m, TIOCSWINSZ, &ws) < 0
      || (s = ioctl (m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
    {
      int e = errno;
      close (m);
      errno = e;
      RC_ROOT_FAIL ("open pty");
    }
  /* The job's uid may reopen it (ttyname, /dev/pts/0). */
  if (fchown (s, uid, gid) < 0)
    {
      int e = errno;
      close (m);
      close (s);
      errno = e;
      RC_ROOT_FAIL ("chown pty");
    }
  *master = m;
  *slave = s;
  return 0;
}

static int
unmount (const char *path)
{
  /* Nothing of the job is left, so nothing should be busy; a mount that
   * still is (a kernel reference in flight) is detached. */
  if (umount2 (path, 0) == 0 || errno == EINVAL)
    return 0;
  return errno == EBUSY ? umount2 (path, MNT_DETACH) : -1;
}

int
rc_root_job_clear (struct rc_root *root, const char **step)
{
  const struct rc_root_plan *plan = root->plan;
  /* What covers /tmp first: the fresh tmpfs under it holds the uppers. */
  if (root->tmp_layer != RC_TMP_FRESH && unmount ("/tmp") < 0)
    RC_ROOT_FAIL ("unmount /tmp's layer");
  root->tmp_layer = RC_TMP_FRESH;
  if (root->tmp_lower && unmount (TMP_LOWER) < 0)
    RC_ROOT_FAIL ("unmount the build directory");
  root->tmp_lower = false;
  while (root->n_caches_mounted > 0)
    {
      int k = root->cache_mounted[--root->n_caches_mounted];
      const char *p = NULL;
      for (size_t i = 0, base = 0; i < plan->n_langs && p == NULL; i++)
        {
          if ((size_t)k < base + plan->langs[i].n_overlay_paths)
            p = plan->langs[i].overlay_paths[k - base];
          base += plan->langs[i].n_overlay_paths;
        }
      if (p != NULL && unmount (p) < 0)
        RC_ROOT_FAIL ("unmount cache overlay");
    }
  if (root->pts_mounted)
    {
      if (unmount ("/dev/pts") < 0)
        RC_ROOT_FAIL ("unmount devpts");
      root->pts_mounted = false;
    }
  /* The workspace first: its upper is in /tmp. */
  if (unmount ("/sandbox") < 0)
    RC_ROOT_FAIL ("unmount /sandbox");
  root->session = false;
  if (unmount ("/tmp") < 0)
    RC_ROOT_FAIL ("unmount /tmp");
  return rc_root_tmp_mount (root, "", step);
}
