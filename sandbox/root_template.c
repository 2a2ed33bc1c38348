/* root_template.c - what a job's own root holds, and the template of it a
 * worker builds once and clones for each job.
 *
 * Most of a job's root owes nothing to the job: /usr and the merged-usr
 * links, the few /etc files a toolchain reads, passwd and group naming
 * every slot uid, /dev.  Only its language's host paths and cache
 * directories, /proc (of its pid namespace), /tmp, /sandbox and /sys are
 * the job's own, and those are mounted by the job's init (mounts.c).
 *
 * So a worker builds that common part once, as a detached mount tree: a
 * tmpfs from fsmount, the host binds attached to it with move_mount, all
 * of it read-only, nosuid, nodev, and /dev (nosuid, noexec, read-only) on
 * top.  Each job's init gets a recursive clone of it (open_tree with
 * OPEN_TREE_CLONE | AT_RECURSIVE, a few microseconds, made by the worker
 * so it is cloned in the namespace the template belongs to), attaches it
 * at /sandbox in its own mount namespace and pivots into it.  That
 * replaces about twenty mount calls and as many file operations per job.
 *
 * A clone is a new mount of the same tmpfs, so a mount point the worker
 * adds to the template later (the first job of a language with host
 * paths) exists in every clone, earlier ones too: before a job is handed
 * over, rc_root_template_prepare makes sure its mount points are there.
 * The worker lifts read-only on the template's own root mount only, only
 * while it adds one, and no clone's flags change with it.  The worker is
 * single-threaded and the template is its own (built in the worker, not
 * inherited from the master), so nothing else writes there.
 *
 * Mounting onto a detached tree and cloning one need Linux 6.15 or later;
 * older kernels refuse with EINVAL.  Then (or on any failure building it)
 * the sandbox says so once in the log and builds the same root for each
 * job with mount(2) instead (mounts.c, mount_root), from the same
 * population code below.
 */
#include "config.h"

#include "common/log.h"
#include "sandbox/sandbox_internal.h"
#include "sandbox/syscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The top-level links or directories of a (merged-)usr layout. */
static const char *const root_top[]
    = { "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32" };
/* What dynamic linking, TLS and timezone lookups read; the rest of /etc
 * (shadow, nginx, the operator's files) stays out. */
static const char *const root_etc[]
    = { "/etc/ld.so.cache", "/etc/localtime",       "/etc/alternatives",
        "/etc/ssl",         "/etc/ca-certificates", "/etc/os-release" };
/* Mount points of the job's own mounts, and the parents of the rest. */
static const char *const root_dirs[] = { "etc", "tmp", "dev", "proc", "sys", "sandbox", "var" };

#define ROOT_TMPFS_OPTS "size=1m,nr_inodes=1024,mode=0755"

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

/* Whether p is, or is below, top (both absolute). */
static bool
path_at_or_below (const char *p, const char *top)
{
  size_t n = strlen (top);
  return strncmp (p, top, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

int
rc_root_host_path_ok (const char *p)
{
  /* The job's own mounts and links: a host path there would be covered
   * (/tmp, /proc, ...) or lead through the /var/tmp link. */
  static const char *const reserved[]
      = { "/tmp", "/var/tmp", "/dev", "/proc", "/sys", "/sandbox", "/etc/passwd", "/etc/group" };
  size_t i;
  if (p == NULL || p[0] != '/' || p[1] == '\0' || strstr (p, "/../") != NULL
      || strstr (p, "/./") != NULL || strlen (p) >= PATH_MAX - 16)
    return 0;
  for (i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
    if (path_at_or_below (p, reserved[i]))
      return 0;
  return 1;
}

int
rc_root_add_host_path (const struct rc_root_builder *b, const char *p, bool bind)
{
  const char *rel = p + 1;
  struct stat st, have;
  int fd;
  if (!rc_root_host_path_ok (p))
    {
      errno = EINVAL;
      return -1;
    }
  if (strncmp (p, "/usr/", 5) == 0)
    return 0; /* inside the /usr bind already */
  if (lstat (p, &st) < 0)
    return errno == ENOENT ? 0 : -1; /* a toolchain that is not installed */
  if (fstatat (b->rootfd, rel, &have, AT_SYMLINK_NOFOLLOW) == 0)
    {
      /* Already there (a mount point made for an earlier job). */
      if ((have.st_mode & S_IFMT) != (st.st_mode & S_IFMT))
        {
          errno = EEXIST;
          return -1;
        }
      return bind && !S_ISLNK (st.st_mode) ? b->bind (b, p, rel) : 0;
    }
  if (make_parents (b->rootfd, rel) < 0)
    return -1;
  if (S_ISLNK (st.st_mode))
    {
      /* Copied as a symlink: its target resolves inside the new root. */
      char link[PATH_MAX];
      ssize_t k = readlink (p, link, sizeof link - 1);
      if (k < 0)
        return -1;
      link[k] = '\0';
      return symlinkat (link, b->rootfd, rel);
    }
  if (S_ISDIR (st.st_mode))
    {
      if (mkdirat (b->rootfd, rel, 0755) < 0)
        return -1;
    }
  else
    {
      fd = openat (b->rootfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
      if (fd < 0)
        return -1;
      close (fd);
    }
  return bind ? b->bind (b, p, rel) : 0;
}

/* passwd and group name root, nobody and each slot's uid as "runner"
 * (whoami and getpwuid in a JVM or Python need an entry); the same text
 * serves every slot, so one template serves the worker's jobs whatever
 * slot they run in. */
static int
write_accounts (int rootfd, uid_t first_uid, unsigned n_uids)
{
  size_t cap = 256 + (size_t)n_uids * 64;
  char *pw = malloc (cap), *gr = malloc (cap);
  size_t pl, gl;
  unsigned i;
  int r = -1;
  if (pw == NULL || gr == NULL)
    {
      errno = ENOMEM;
      goto out;
    }
  pl = (size_t)snprintf (pw, cap, "root:x:0:0:root:/root:/usr/sbin/nologin\n");
  gl = (size_t)snprintf (gr, cap, "root:x:0:\n");
  for (i = 0; i < n_uids; i++)
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

int
rc_root_populate (const struct rc_root_builder *b, uid_t first_uid, unsigned n_uids,
                  const char **step)
{
  size_t i;
  for (i = 0; i < sizeof root_dirs / sizeof root_dirs[0]; i++)
    if (mkdirat (b->rootfd, root_dirs[i], 0755) < 0)
      {
        *step = "mkdir root";
        return -1;
      }
  for (i = 0; i < sizeof root_top / sizeof root_top[0]; i++)
    if (rc_root_add_host_path (b, root_top[i], true) < 0)
      {
        *step = "bind /usr";
        return -1;
      }
  for (i = 0; i < sizeof root_etc / sizeof root_etc[0]; i++)
    if (rc_root_add_host_path (b, root_etc[i], true) < 0)
      {
        *step = "bind /etc";
        return -1;
      }
  /* /var/tmp is written by some toolchains: the job's /tmp, same budget. */
  if (symlinkat ("/tmp", b->rootfd, "var/tmp") < 0)
    {
      *step = "symlink /var/tmp";
      return -1;
    }
  if (write_at (b->rootfd, "etc/nsswitch.conf",
                "passwd: files\ngroup: files\nshadow: files\n"
                "hosts: files\nservices: files\nprotocols: files\n",
                0644)
          < 0
      || write_at (b->rootfd, "etc/hosts", "127.0.0.1\tlocalhost runcell\n::1\tlocalhost\n", 0644)
             < 0
      || write_accounts (b->rootfd, first_uid, n_uids) < 0
      /* The empty file bound over /proc's side channels (mounts.c), from
       * the read-only root, so the binds are read-only too; the job's
       * sysfs covers it. */
      || write_at (b->rootfd, RC_ROOT_MASK_FILE + 1, "", 0444) < 0)
    {
      *step = "write /etc";
      return -1;
    }
  if (mkdirat (b->rootfd, RC_ROOT_MASK_DIR + 1, 0755) < 0
      || mkdirat (b->rootfd, RC_ROOT_CGROUP_V1_DIR + 1, 0755) < 0
      || mkdirat (b->rootfd, RC_ROOT_CGROUP_V1_DIR "/memory" + 1, 0755) < 0
      || mkdirat (b->rootfd, RC_ROOT_CGROUP_V1_DIR "/pids" + 1, 0755) < 0
      || mkdirat (b->rootfd, RC_ROOT_LOWERS_DIR + 1, 0700) < 0
      || mkdirat (b->rootfd, RC_ROOT_LOWERS_DIR "/0" + 1, 0700) < 0
      || mkdirat (b->rootfd, RC_ROOT_LOWERS_DIR "/1" + 1, 0700) < 0)
    {
      *step = "mkdir /sys";
      return -1;
    }
  return 0;
}

int
rc_root_fill_dev (int devfd, const char **step)
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
                { "/proc/self/fd/2", "stderr" },
                { RC_ROOT_SHM_DIR, "shm" } };
  size_t i;
  /* Device nodes are made, not bound from the host /dev: no host inode is
   * ever exposed, and mknod is cheaper than a bind mount. */
  for (i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
    if (mknodat (devfd, nodes[i].name, S_IFCHR | 0666, makedev (1, nodes[i].minor)) < 0
        || fchmodat (devfd, nodes[i].name, 0666, 0) < 0)
      {
        *step = "mknod /dev";
        return -1;
      }
  for (i = 0; i < sizeof links / sizeof links[0]; i++)
    if (symlinkat (links[i].target, devfd, links[i].name) < 0)
      {
        *step = "symlink /dev";
        return -1;
      }
  return 0;
}

/* ---- the template (worker side) ------------------------------------------ */

static int
tpl_bind (const struct rc_root_builder *b, const char *host, const char *rel)
{
  int fd = rc_open_tree (AT_FDCWD, host, RC_OPEN_TREE_CLONE | AT_RECURSIVE | RC_OPEN_TREE_CLOEXEC);
  int r;
  if (fd < 0)
    return -1;
  r = rc_move_mount (fd, "", b->rootfd, rel, RC_MOVE_MOUNT_F_EMPTY_PATH);
  close (fd);
  return r;
}

static int
tmpfs_detached (const char *opts, unsigned attrs)
{
  int fs = rc_fsopen ("tmpfs", RC_FSOPEN_CLOEXEC), mnt = -1;
  char buf[128];
  char *tok, *save = NULL;
  if (fs < 0)
    return -1;
  snprintf (buf, sizeof buf, "%s", opts);
  for (tok = strtok_r (buf, ",", &save); tok; tok = strtok_r (NULL, ",", &save))
    {
      char *eq = strchr (tok, '=');
      if (eq == NULL)
        goto out;
      *eq = '\0';
      if (rc_fsconfig (fs, RC_FSCONFIG_SET_STRING, tok, eq + 1, 0) < 0)
        goto out;
    }
  if (rc_fsconfig (fs, RC_FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    goto out;
  mnt = rc_fsmount (fs, RC_FSMOUNT_CLOEXEC, attrs);
out:
  {
    int saved = errno;
    close (fs);
    errno = saved;
  }
  return mnt;
}

static int
set_readonly (int fd, unsigned flags, bool on)
{
  struct rc_mount_attr a = { 0 };
  if (on)
    a.attr_set = RC_MOUNT_ATTR_RDONLY | RC_MOUNT_ATTR_NOSUID | RC_MOUNT_ATTR_NODEV;
  else
    a.attr_clr = RC_MOUNT_ATTR_RDONLY;
  return rc_mount_setattr (fd, "", AT_EMPTY_PATH | flags, &a);
}

static int
tpl_build (struct rc_sandbox *sb, int *out, const char **step)
{
  struct rc_root_builder b = { .rootfd = -1, .bind = tpl_bind };
  int devfd = -1, probe;
  struct rc_mount_attr ro = { .attr_set = RC_MOUNT_ATTR_RDONLY };

  b.rootfd = tmpfs_detached (ROOT_TMPFS_OPTS, RC_MOUNT_ATTR_NOSUID | RC_MOUNT_ATTR_NODEV);
  if (b.rootfd < 0)
    {
      *step = "fsmount root";
      goto fail;
    }
  if (rc_root_populate (&b, rc_slot_uid (sb->cfg, 0), sb->n_slots ? sb->n_slots : 1, step) < 0)
    goto fail;
  /* Read-only before /dev joins, so /dev keeps its device nodes usable. */
  if (set_readonly (b.rootfd, AT_RECURSIVE, true) < 0)
    {
      *step = "read-only root";
      goto fail;
    }
  devfd = tmpfs_detached ("size=64k,nr_inodes=64,mode=0755",
                          RC_MOUNT_ATTR_NOSUID | RC_MOUNT_ATTR_NOEXEC);
  if (devfd < 0)
    {
      *step = "fsmount /dev";
      goto fail;
    }
  if (rc_root_fill_dev (devfd, step) < 0)
    goto fail;
  if (rc_mount_setattr (devfd, "", AT_EMPTY_PATH, &ro) < 0
      || rc_move_mount (devfd, "", b.rootfd, "dev", RC_MOVE_MOUNT_F_EMPTY_PATH) < 0)
    {
      *step = "attach /dev";
      goto fail;
    }
  close (devfd);
  devfd = -1;
  /* The clone every job needs: refused by kernels before 6.15. */
  probe = rc_open_tree (b.rootfd, "",
                        RC_OPEN_TREE_CLONE | AT_RECURSIVE | AT_EMPTY_PATH | RC_OPEN_TREE_CLOEXEC);
  if (probe < 0)
    {
      *step = "clone template";
      goto fail;
    }
  close (probe);
  *out = b.rootfd;
  return 0;
fail:
  {
    int saved = errno;
    if (devfd >= 0)
      close (devfd);
    if (b.rootfd >= 0)
      close (b.rootfd);
    errno = saved;
  }
  return -1;
}

int
rc_root_template_probe (void)
{
  struct rc_root_builder b = { .rootfd = -1, .bind = tpl_bind };
  int clone = -1, r = -1, saved;
  b.rootfd = tmpfs_detached ("size=4k,nr_inodes=8,mode=0755", RC_MOUNT_ATTR_NOSUID);
  if (b.rootfd < 0)
    return -1;
  if (mkdirat (b.rootfd, "usr", 0755) == 0 && tpl_bind (&b, "/usr", "usr") == 0)
    {
      clone = rc_open_tree (
          b.rootfd, "", RC_OPEN_TREE_CLONE | AT_RECURSIVE | AT_EMPTY_PATH | RC_OPEN_TREE_CLOEXEC);
      r = clone < 0 ? -1 : 0;
    }
  saved = errno;
  if (clone >= 0)
    close (clone);
  close (b.rootfd);
  errno = saved;
  return r;
}

void
rc_root_template_close (struct rc_sandbox *sb)
{
  if (sb->root_tpl >= 0)
    close (sb->root_tpl);
  sb->root_tpl = -1;
  sb->root_tpl_pid = 0;
}

/* The worker's template, built on first use; false when this kernel (or a
 * failure, logged once) means per-job roots. */
static bool
tpl_ready (struct rc_sandbox *sb)
{
  const char *step = "template";
  if (sb->root_tpl_unavailable || !sb->cfg->root_template)
    return false;
  if (sb->root_tpl >= 0 && sb->root_tpl_pid == getpid ())
    return true;
  /* Inherited from a parent process: that template is not ours to change. */
  rc_root_template_close (sb);
  if (tpl_build (sb, &sb->root_tpl, &step) < 0)
    {
      rc_log (RC_LOG_INFO, "sandbox_root",
              "job root template unavailable (%s: %s); each job builds its root with mount(2)",
              step, strerror (errno));
      sb->root_tpl_unavailable = true;
      sb->root_tpl = -1;
      return false;
    }
  sb->root_tpl_pid = getpid ();
  return true;
}

/* Mount point p (a host path or cache directory of the job) in the
 * template, added with read-only lifted from the template's root mount
 * for the moment it takes. */
static int
tpl_ensure (struct rc_sandbox *sb, const char *p, bool want_dir)
{
  struct rc_root_builder b = { .rootfd = sb->root_tpl, .bind = NULL };
  struct stat st;
  int r, saved;
  if (!rc_root_host_path_ok (p) || strncmp (p, "/usr/", 5) == 0)
    return 0; /* refused or inside /usr: rc_root_add_host_path decides */
  if (lstat (p, &st) < 0 || (want_dir && !S_ISDIR (st.st_mode)))
    return 0; /* skipped by the init too */
  if (fstatat (sb->root_tpl, p + 1, &st, AT_SYMLINK_NOFOLLOW) == 0)
    return 0;
  if (set_readonly (sb->root_tpl, 0, false) < 0)
    return -1;
  r = rc_root_add_host_path (&b, p, false);
  saved = errno;
  if (set_readonly (sb->root_tpl, 0, true) < 0 && r == 0)
    {
      /* A template that stays writable must not be cloned again. */
      saved = errno;
      r = -1;
      rc_root_template_close (sb);
      sb->root_tpl_unavailable = true;
    }
  errno = saved;
  return r;
}

int
rc_root_template_prepare (struct rc_sandbox *sb, const struct rc_job_spec *spec, rc_err_t *err)
{
  size_t i;
  if (!tpl_ready (sb))
    return 0;
  for (i = 0; i < spec->n_host_paths; i++)
    if (tpl_ensure (sb, spec->host_paths[i], false) < 0)
      return rc_error_sys (err, "sandbox: root mount point %s errno=%d", spec->host_paths[i],
                           errno);
  for (i = 0; i < spec->n_overlay_paths; i++)
    if (tpl_ensure (sb, spec->overlay_paths[i], true) < 0)
      return rc_error_sys (err, "sandbox: root mount point %s errno=%d", spec->overlay_paths[i],
                           errno);
  return 0;
}

int
rc_root_template_clone (struct rc_sandbox *sb)
{
  if (!tpl_ready (sb))
    return -1;
  return rc_open_tree (sb->root_tpl, "",
                       RC_OPEN_TREE_CLONE | AT_RECURSIVE | AT_EMPTY_PATH | RC_OPEN_TREE_CLOEXEC);
}
