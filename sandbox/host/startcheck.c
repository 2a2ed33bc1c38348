/* startcheck.c - the configurations under which no job can run, found at
 * start (runcell-fcgi refuses to start) and by `runcell --check-host`,
 * instead of as a 500 per job:
 *   - a language's hostPaths or cache directories (overlayPaths,
 *     RUN_OVERLAY_PATHS_<SLUG>) at or below a path every job mounts over
 *     (/tmp, /proc, ...): no slot's init could build its root;
 *   - a slot uid range that an account of the host owns, that this user
 *     namespace does not map, or that a process outside runcell runs as
 *     (another runner on the same RUN_UID_BASE: each one's slot hygiene
 *     would kill the other's jobs).
 * A missing cgroup controller stops rc_sandbox_host_setup itself; what is
 * left (the kernel refusing something a job needs) the canary job at start
 * finds (fcgi/canary.c).
 */
#include "config.h"

#include "sandbox/sandbox_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The one rule of what a job's root can hold (rc_lang_host_path_ok, which
 * the manifest loader applies to hostPaths), here for the cache
 * directories too, whatever set them (RUN_OVERLAY_PATHS_<SLUG>). */
static int
check_path (const struct rc_lang *l, const char *kind, const char *p, rc_err_t *err)
{
  char upper[64];
  size_t i;
  if (rc_lang_host_path_ok (p))
    return 0;
  for (i = 0; l->slug[i] && i + 1 < sizeof upper; i++)
    upper[i] = (char)toupper ((unsigned char)l->slug[i]);
  upper[i] = '\0';
  return rc_error_set (err, 0,
                       "language %s: its %s %s is not absolute, or is at or below a path every "
                       "job mounts over (/tmp, /var/tmp, /dev, /proc, /sys, /sandbox, /lang): "
                       "move it (langs/%s/manifest.json, RUN_OVERLAY_PATHS_%s)",
                       l->slug, kind, p, l->slug, upper);
}

int
rc_sandbox_check_langs (const struct rc_lang_table *langs, rc_err_t *err)
{
  for (size_t i = 0; langs && i < langs->n; i++)
    {
      const struct rc_lang *l = &langs->langs[i];
      for (size_t k = 0; k < l->n_host_paths; k++)
        if (check_path (l, "host path", l->host_paths[k], err) < 0)
          return -1;
      for (size_t k = 0; k < l->n_overlay_paths; k++)
        if (check_path (l, "cache directory", l->overlay_paths[k], err) < 0)
          return -1;
    }
  return 0;
}

/* Whether [first, first+n) lies inside one range of a uid_map or gid_map
 * (the identity map "0 0 4294967295" outside any user namespace). */
static bool
mapped (const char *file, uint64_t first, uint64_t n)
{
  FILE *f = fopen (file, "re");
  unsigned long long inside, outside, count;
  bool ok = false;
  if (f == NULL)
    return true; /* no user namespaces in this kernel: nothing to check */
  while (!ok && fscanf (f, "%llu %llu %llu", &inside, &outside, &count) == 3)
    ok = first >= inside && first + n <= inside + count;
  fclose (f);
  return ok;
}

/* A process that runs as a slot uid, outside the slots: its pid, or 0. */
static pid_t
stranger_with_uid (uid_t first, unsigned n, uid_t *which, char comm[32])
{
  DIR *d = opendir ("/proc");
  struct dirent *e;
  pid_t found = 0;
  while (d && found == 0 && (e = readdir (d)) != NULL)
    {
      char path[300], line[256];
      unsigned long r, eff;
      FILE *f;
      if (e->d_name[0] < '1' || e->d_name[0] > '9')
        continue;
      snprintf (path, sizeof path, "/proc/%s/status", e->d_name);
      if ((f = fopen (path, "re")) == NULL)
        continue;
      comm[0] = '\0';
      while (fgets (line, sizeof line, f))
        {
          if (sscanf (line, "Name: %31s", comm) == 1)
            continue;
          if (sscanf (line, "Uid: %lu %lu", &r, &eff) == 2)
            {
              if (r >= first && r < (unsigned long)first + n)
                *which = (uid_t)r, found = atoi (e->d_name);
              else if (eff >= first && eff < (unsigned long)first + n)
                *which = (uid_t)eff, found = atoi (e->d_name);
              break;
            }
        }
      fclose (f);
    }
  if (d)
    closedir (d);
  return found;
}

/* The first account (group: the first group) whose id is in
 * [first, first + n), with its name; false when there is none. */
static bool
id_taken (bool group, uint64_t first, uint64_t n, unsigned long *id, char *name, size_t len)
{
  bool found = false;
  if (group)
    setgrent ();
  else
    setpwent ();
  for (;;)
    {
      struct passwd *pw = group ? NULL : getpwent ();
      struct group *gr = group ? getgrent () : NULL;
      if (pw == NULL && gr == NULL)
        break;
      *id = pw ? (unsigned long)pw->pw_uid : (unsigned long)gr->gr_gid;
      if (*id >= first && *id < first + n)
        {
          snprintf (name, len, "%s", pw ? pw->pw_name : gr->gr_name);
          found = true;
          break;
        }
    }
  if (group)
    endgrent ();
  else
    endpwent ();
  return found;
}

int
rc_sandbox_check_uids (const struct rc_config *cfg, bool processes, rc_err_t *err)
{
  uint64_t first = cfg->uid_base, n = cfg->concurrency;
  unsigned long id;
  char name[64];
  uid_t who = 0;
  char comm[32];
  pid_t pid;

  if (first + n > 4294967294ULL)
    return rc_error_set (err, 0,
                         "RUN_UID_BASE %llu + RUN_CONCURRENCY %llu passes the "
                         "largest uid",
                         (unsigned long long)first, (unsigned long long)n);
  if (!mapped ("/proc/self/uid_map", first, n) || !mapped ("/proc/self/gid_map", first, n))
    return rc_error_set (err, 0,
                         "RUN_UID_BASE: uids %llu-%llu are not mapped in this user namespace "
                         "(/proc/self/uid_map): no job could switch to its slot's uid; pick a "
                         "range inside the map",
                         (unsigned long long)first, (unsigned long long)(first + n - 1));
  if (id_taken (false, first, n, &id, name, sizeof name))
    return rc_error_set (err, 0,
                         "RUN_UID_BASE: uid %lu (slot %llu) belongs to the account '%s': "
                         "its files and processes would be a job's; pick a range of "
                         "RUN_CONCURRENCY uids no account uses",
                         id, (unsigned long long)(id - first), name);
  if (id_taken (true, first, n, &id, name, sizeof name))
    return rc_error_set (err, 0,
                         "RUN_UID_BASE: gid %lu (slot %llu) is the group '%s': pick a "
                         "range no group uses",
                         id, (unsigned long long)(id - first), name);
  if (processes && (pid = stranger_with_uid ((uid_t)first, (unsigned)n, &who, comm)) > 0)
    return rc_error_set (err, 0,
                         "RUN_UID_BASE: uid %lu (slot %llu) is used by pid %ld (%s), which is "
                         "not one of this runcell's jobs (another runner on the same uids?): "
                         "pick another range or stop it",
                         (unsigned long)who, (unsigned long long)(who - first), (long)pid, comm);
  return 0;
}
