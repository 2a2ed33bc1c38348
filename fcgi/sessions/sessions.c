/* sessions.c - the on-disk session store (layout in sessions.h).
 *
 * Locking: every request on a session holds the flock of its meta file for
 * the whole request, an execution included, so two requests never see a
 * half-written session; a request that cannot get the lock within
 * SESSION_LOCK_WAIT_TIMEOUT_SECONDS answers 409.  A lock acquired on a meta
 * file that was unlinked meanwhile (the session was deleted while we
 * waited) counts as "not found".  The sweep only ever tries the lock
 * (LOCK_NB): a busy session is in use, hence not idle.
 */
#include "config.h"

#include "fcgi/sessions/sessions.h"
#include "common/clock.h"
#include "common/log.h"
#include "fcgi/app.h"
#include "sandbox/hostfs.h"
#include "sandbox/session_workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool
rc_session_id_valid (const char *id, size_t len)
{
  if (len != RC_SESSION_ID_LEN)
    return false;
  for (size_t i = 0; i < len; i++)
    if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
      return false;
  return true;
}

static int
random_id (char out[RC_SESSION_ID_LEN + 1], rc_err_t *err)
{
  static const char hex[] = "0123456789abcdef";
  unsigned char raw[16];
  size_t got = 0;
  while (got < sizeof raw)
    {
      ssize_t n = getrandom (raw + got, sizeof raw - got, 0);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return rc_error_sys (err, "getrandom");
        }
      got += (size_t)n;
    }
  for (size_t i = 0; i < sizeof raw; i++)
    {
      out[2 * i] = hex[raw[i] >> 4];
      out[2 * i + 1] = hex[raw[i] & 15];
    }
  out[RC_SESSION_ID_LEN] = '\0';
  return 0;
}

static int
mkdir_p (const char *path, mode_t mode)
{
  char buf[4096];
  size_t n = strlen (path);
  if (n >= sizeof buf)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  memcpy (buf, path, n + 1);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/')
      {
        *p = '\0';
        if (mkdir (buf, 0755) < 0 && errno != EEXIST)
          return -1;
        *p = '/';
      }
  if (mkdir (buf, mode) < 0 && errno != EEXIST)
    return -1;
  return 0;
}

/* Ensures <root>, <root>/meta and <root>/data exist. */
static int
ensure_root (const char *root, rc_err_t *err)
{
  char p[4200];
  if (mkdir_p (root, 0700) < 0)
    return rc_error_sys (err, "mkdir %s", root);
  snprintf (p, sizeof p, "%s/meta", root);
  if (mkdir (p, 0700) < 0 && errno != EEXIST)
    return rc_error_sys (err, "mkdir %s", p);
  snprintf (p, sizeof p, "%s/data", root);
  if (mkdir (p, 0700) < 0 && errno != EEXIST)
    return rc_error_sys (err, "mkdir %s", p);
  return 0;
}

/* flock with a deadline; 0, or -1 with errno EWOULDBLOCK on timeout. */
static int
lock_wait (int fd, uint64_t wait_s)
{
  uint64_t deadline = rc_now_ms () + wait_s * 1000u;
  for (;;)
    {
      struct timespec pause = { 0, 10 * 1000 * 1000 };
      if (flock (fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
      if (errno != EWOULDBLOCK && errno != EINTR)
        return -1;
      if (rc_now_ms () >= deadline)
        {
          errno = EWOULDBLOCK;
          return -1;
        }
      nanosleep (&pause, NULL);
    }
}

static int
count_sessions (const char *root)
{
  char p[4200];
  DIR *d;
  struct dirent *de;
  int n = 0;
  snprintf (p, sizeof p, "%s/meta", root);
  d = opendir (p);
  if (d == NULL)
    return -1;
  while ((de = readdir (d)) != NULL)
    if (rc_session_id_valid (de->d_name, strlen (de->d_name)))
      n++;
  closedir (d);
  return n;
}

int
rc_sessions_count (const struct rc_config *cfg)
{
  const struct rc_session_config *sc = &cfg->sessions;
  const char *root = sc->dir;
  return root ? count_sessions (root) : -1;
}

static int
mount_quota (const struct rc_session_config *sc, const char *dir, rc_err_t *err)
{
  if (sc->quota != RC_SESSION_QUOTA_TMPFS)
    return 0;
  return rc_session_ws_mount_quota (dir, sc->max_session_size, sc->max_session_entries, err);
}

/* Removes a data directory whatever is in it: unmount the tmpfs (the
 * contents vanish with it, chmod 000 or not), else empty it by hand. */
static int
remove_data_dir (const char *dir, rc_err_t *err)
{
  int fd;
  if (rc_session_ws_unmount (dir, err) < 0)
    return -1;
  if (rmdir (dir) == 0 || errno == ENOENT)
    return 0;
  fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == EACCES)
    {
      chmod (dir, 0700);
      fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
  if (fd < 0)
    return rc_error_sys (err, "open %s", dir);
  if (rc_hostfs_empty_dir (fd) < 0)
    {
      close (fd);
      return rc_error_sys (err, "empty %s", dir);
    }
  close (fd);
  if (rmdir (dir) < 0)
    return rc_error_sys (err, "rmdir %s", dir);
  return 0;
}

static int
read_data_name (int lockfd, char name[RC_SESSION_ID_LEN + 1])
{
  char buf[RC_SESSION_ID_LEN + 2];
  ssize_t n = pread (lockfd, buf, sizeof buf, 0);
  if (n < RC_SESSION_ID_LEN || !rc_session_id_valid (buf, RC_SESSION_ID_LEN))
    return -1;
  memcpy (name, buf, RC_SESSION_ID_LEN);
  name[RC_SESSION_ID_LEN] = '\0';
  return 0;
}

int
rc_session_create (const struct rc_config *cfg, const char *wanted_id, struct rc_session *s,
                   rc_err_t *err)
{
  const struct rc_session_config *sc = &cfg->sessions;
  const char *root = sc->dir;
  char path[4200], meta[4200], name[RC_SESSION_ID_LEN + 1];
  cleanup_close int gfd = -1;
  int n, fd = -1;

  memset (s, 0, sizeof *s);
  s->lockfd = s->dirfd = -1;
  if (root == NULL)
    {
      rc_error_set (err, ENOMEM, "sessions root");
      return -1;
    }
  if (ensure_root (root, err) < 0)
    return -1;
  snprintf (path, sizeof path, "%s/.lock", root);
  gfd = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (gfd < 0 || lock_wait (gfd, sc->lock_wait_s) < 0)
    {
      if (gfd >= 0 && errno == EWOULDBLOCK) /* creations are this backed up: no capacity */
        return rc_error_http (err, 503, "too many sessions (MAX_SESSIONS)");
      rc_error_sys (err, "lock %s", path);
      return -1;
    }
  n = count_sessions (root);
  if (n < 0)
    {
      rc_error_sys (err, "count sessions in %s", root);
      return -1;
    }
  if ((uint64_t)n >= sc->max_sessions)
    return rc_error_http (err, 503, "too many sessions (MAX_SESSIONS)");
  if (random_id (name, err) < 0)
    return -1;
  snprintf (meta, sizeof meta, "%s/meta/%s", root, wanted_id ? wanted_id : "");
  if (wanted_id != NULL && rc_session_id_valid (wanted_id, strlen (wanted_id))
      && access (meta, F_OK) < 0 && errno == ENOENT)
    memcpy (s->id, wanted_id, RC_SESSION_ID_LEN + 1);
  else if (random_id (s->id, err) < 0)
    return -1;
  snprintf (path, sizeof path, "%s/data/%s", root, name);
  snprintf (meta, sizeof meta, "%s/meta/%s", root, s->id);
  if (mkdir (path, 0700) < 0)
    {
      rc_error_sys (err, "mkdir %s", path);
      return -1;
    }
  if (mount_quota (sc, path, err) < 0)
    {
      rmdir (path);
      return -1;
    }
  fd = open (meta, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0 || flock (fd, LOCK_EX | LOCK_NB) < 0 || write (fd, name, RC_SESSION_ID_LEN) < 0
      || write (fd, "\n", 1) < 0)
    {
      rc_error_sys (err, "create %s", meta);
      if (fd >= 0)
        {
          unlink (meta);
          close (fd);
        }
      {
        rc_err_t ignored = NULL;
        remove_data_dir (path, &ignored);
        rc_error_free (&ignored);
      }
      return -1;
    }
  s->lockfd = fd;
  s->dirfd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  s->data_path = strdup (path);
  if (s->dirfd < 0 || s->data_path == NULL)
    {
      rc_err_t ignored = NULL;
      rc_error_sys (err, "open %s", path);
      rc_session_destroy (cfg, s, &ignored);
      rc_error_free (&ignored);
      return -1;
    }
  return 0;
}

bool
rc_session_exists (const struct rc_config *cfg, const char *id)
{
  const struct rc_session_config *sc = &cfg->sessions;
  const char *root = sc->dir;
  char meta[4200];
  struct stat st;
  if (root == NULL || !rc_session_id_valid (id, strlen (id)))
    return false;
  snprintf (meta, sizeof meta, "%s/meta/%s", root, id);
  return lstat (meta, &st) == 0 && S_ISREG (st.st_mode);
}

int
rc_session_open (const struct rc_config *cfg, const char *id, struct rc_session *s, rc_err_t *err)
{
  const struct rc_session_config *sc = &cfg->sessions;
  const char *root = sc->dir;
  char meta[4200], path[4200], name[RC_SESSION_ID_LEN + 1];
  struct stat st;
  int fd;

  memset (s, 0, sizeof *s);
  s->lockfd = s->dirfd = -1;
  if (!rc_session_id_valid (id, strlen (id)) || root == NULL)
    return rc_error_http (err, 404, "session not found");
  snprintf (meta, sizeof meta, "%s/meta/%s", root, id);
  fd = open (meta, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    {
      if (errno == ENOENT)
        return rc_error_http (err, 404, "session not found");
      rc_error_sys (err, "open %s", meta);
      return -1;
    }
  if (lock_wait (fd, sc->lock_wait_s) < 0)
    {
      int e = errno;
      close (fd);
      if (e == EWOULDBLOCK)
        return rc_error_http (err, 409, "session is busy (lock wait timed out)");
      errno = e;
      rc_error_sys (err, "flock %s", meta);
      return -1;
    }
  /* Deleted (or expired) while we waited. */
  if (fstat (fd, &st) < 0 || st.st_nlink == 0 || read_data_name (fd, name) < 0)
    {
      close (fd);
      return rc_error_http (err, 404, "session not found");
    }
  snprintf (path, sizeof path, "%s/data/%s", root, name);
  s->dirfd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (s->dirfd < 0)
    {
      rc_error_sys (err, "open %s", path);
      close (fd);
      return -1;
    }
  s->data_path = strdup (path);
  memcpy (s->id, id, RC_SESSION_ID_LEN + 1);
  s->lockfd = fd;
  return 0;
}

static void
session_close (struct rc_session *s)
{
  if (s->dirfd >= 0)
    close (s->dirfd);
  if (s->lockfd >= 0)
    close (s->lockfd); /* drops the flock */
  free (s->data_path);
  s->dirfd = s->lockfd = -1;
  s->data_path = NULL;
}

void
rc_session_release (struct rc_session *s)
{
  if (s->lockfd >= 0)
    futimens (s->lockfd, NULL);
  session_close (s);
}

int
rc_session_destroy (const struct rc_config *cfg, struct rc_session *s, rc_err_t *err)
{
  const struct rc_session_config *sc = &cfg->sessions;
  const char *root = sc->dir;
  char meta[4200];
  int ret = 0;

  if (s->dirfd >= 0)
    close (s->dirfd);
  s->dirfd = -1;
  if (s->data_path && remove_data_dir (s->data_path, err) < 0)
    ret = -1;
  /* The record goes last: a session whose files could not be removed
   * stays findable, so DELETE can be retried. */
  if (ret == 0 && root && s->id[0])
    {
      snprintf (meta, sizeof meta, "%s/meta/%s", root, s->id);
      if (unlink (meta) < 0 && errno != ENOENT)
        ret = rc_error_sys (err, "unlink %s", meta);
    }
  session_close (s);
  return ret;
}

/* Removes every session below root (start-up and shutdown). */
static void
remove_all (const char *root)
{
  char p[4200];
  DIR *d;
  struct dirent *de;

  snprintf (p, sizeof p, "%s/data", root);
  d = opendir (p);
  if (d)
    {
      while ((de = readdir (d)) != NULL)
        if (rc_session_id_valid (de->d_name, strlen (de->d_name)))
          {
            rc_err_t err = NULL;
            char dir[4300];
            snprintf (dir, sizeof dir, "%s/%s", p, de->d_name);
            if (remove_data_dir (dir, &err) < 0)
              {
                rc_log (RC_LOG_WARN, "session_cleanup", "%s", rc_error_text (err));
                rc_error_free (&err);
              }
          }
      closedir (d);
    }
  snprintf (p, sizeof p, "%s/meta", root);
  d = opendir (p);
  if (d)
    {
      while ((de = readdir (d)) != NULL)
        if (rc_session_id_valid (de->d_name, strlen (de->d_name)))
          unlinkat (dirfd (d), de->d_name, 0);
      closedir (d);
    }
}

int
rc_sessions_host_setup (const struct rc_config *cfg, rc_err_t *err)
{
  const struct rc_session_config *sc = &cfg->sessions;
  const char *root = sc->dir;

  if (ensure_root (root, err) < 0)
    return -1;
  remove_all (root);
  if (sc->quota == RC_SESSION_QUOTA_TMPFS)
    {
      /* Session tmpfs mounts live in a namespace of the service's own, so
       * they go away with its last process however it ends.  Private
       * propagation keeps them from leaking back into the host's. */
      if (rc_session_ws_host_namespace (err) < 0)
        return -1;
    }
  return 0;
}

void
rc_sessions_host_teardown (const struct rc_config *cfg)
{
  if (cfg->sessions.dir)
    remove_all (cfg->sessions.dir);
}

/* Removes data directories no record points to (a worker killed between
 * creating a session's directory and its record, or a record removed
 * after a failed unmount).  Under the creation lock, tried without
 * waiting, so a creation in progress is never mistaken for an orphan. */
static void
sweep_orphans (const char *root)
{
  char p[4200], names[1024][RC_SESSION_ID_LEN + 1];
  size_t n_names = 0;
  cleanup_close int gfd = -1;
  DIR *d;
  struct dirent *de;

  snprintf (p, sizeof p, "%s/.lock", root);
  gfd = open (p, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (gfd < 0 || flock (gfd, LOCK_EX | LOCK_NB) < 0)
    return;
  snprintf (p, sizeof p, "%s/meta", root);
  d = opendir (p);
  if (d == NULL)
    return;
  while ((de = readdir (d)) != NULL)
    {
      int fd;
      if (!rc_session_id_valid (de->d_name, strlen (de->d_name)))
        continue;
      if (n_names == sizeof names / sizeof names[0])
        {
          closedir (d);
          return; /* too many to be sure: leave everything */
        }
      fd = openat (dirfd (d), de->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0 || read_data_name (fd, names[n_names]) < 0)
        {
          /* A record being written right now, or unreadable: be safe. */
          if (fd >= 0)
            close (fd);
          closedir (d);
          return;
        }
      close (fd);
      n_names++;
    }
  closedir (d);
  snprintf (p, sizeof p, "%s/data", root);
  d = opendir (p);
  if (d == NULL)
    return;
  while ((de = readdir (d)) != NULL)
    {
      bool used = false;
      char dir[4300];
      rc_err_t err = NULL;
      if (!rc_session_id_valid (de->d_name, strlen (de->d_name)))
        continue;
      for (size_t i = 0; i < n_names && !used; i++)
        used = strcmp (names[i], de->d_name) == 0;
      if (used)
        continue;
      snprintf (dir, sizeof dir, "%s/%s", p, de->d_name);
      if (remove_data_dir (dir, &err) < 0)
        {
          rc_log (RC_LOG_WARN, "session_orphan", "%s", rc_error_text (err));
          rc_error_free (&err);
        }
      else
        rc_log (RC_LOG_INFO, "session_orphan_removed", "%s", de->d_name);
    }
  closedir (d);
}

/* Master tick.  Cheap when nothing is due: one clock read; a sweep is one
 * readdir of meta/ and an fstatat per session. */
void
rc_sessions_sweep (const struct rc_config *cfg)
{
  static uint64_t next_ms;
  const struct rc_session_config *sc = &cfg->sessions;
  const char *root = sc->dir;
  char p[4200];
  DIR *d;
  struct dirent *de;
  struct timespec now;

  if (rc_now_ms () < next_ms)
    return;
  next_ms = rc_now_ms () + sc->sweep_s * 1000u;
  snprintf (p, sizeof p, "%s/meta", root);
  d = opendir (p);
  if (d == NULL)
    return;
  clock_gettime (CLOCK_REALTIME, &now);
  while ((de = readdir (d)) != NULL)
    {
      struct rc_session s;
      struct stat st;
      char name[RC_SESSION_ID_LEN + 1];
      rc_err_t err = NULL;
      int fd;

      if (!rc_session_id_valid (de->d_name, strlen (de->d_name)))
        continue;
      if (fstatat (dirfd (d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0
          || now.tv_sec - st.st_mtim.tv_sec < (time_t)sc->inactivity_s)
        continue;
      fd = openat (dirfd (d), de->d_name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0)
        continue;
      /* In use right now: not idle.  Re-check the clock under the lock. */
      if (flock (fd, LOCK_EX | LOCK_NB) < 0 || fstat (fd, &st) < 0 || st.st_nlink == 0
          || now.tv_sec - st.st_mtim.tv_sec < (time_t)sc->inactivity_s
          || read_data_name (fd, name) < 0)
        {
          close (fd);
          continue;
        }
      memset (&s, 0, sizeof s);
      memcpy (s.id, de->d_name, RC_SESSION_ID_LEN + 1);
      s.lockfd = fd;
      s.dirfd = -1;
      if (asprintf (&s.data_path, "%s/data/%s", root, name) < 0)
        s.data_path = NULL;
      if (rc_session_destroy (cfg, &s, &err) < 0)
        {
          rc_log (RC_LOG_WARN, "session_expire_failed", "%s: %s", de->d_name, rc_error_text (err));
          rc_error_free (&err);
        }
      else
        rc_log (RC_LOG_INFO, "session_expired", "%s", de->d_name);
    }
  closedir (d);
  sweep_orphans (root);
}
