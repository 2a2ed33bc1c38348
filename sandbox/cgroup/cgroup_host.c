/* cgroup_host.c - which cgroup mode the host runs, and where our own
 * cgroup is.
 *
 * Mode detection follows crun and systemd: statfs(/sys/fs/cgroup) says
 * CGROUP2_SUPER_MAGIC on a unified host; a tmpfs there with a cgroup2 mount
 * at /sys/fs/cgroup/unified is the hybrid layout (controllers on v1, the
 * cgroup2 tree controller-less), and a tmpfs without it is legacy.  Hybrid
 * and legacy both use the v1 backend: the controllers we need are on v1.
 *
 * Where our own cgroup is: /proc/self/cgroup has one line per v1 hierarchy
 * ("4:memory:/process_api/x") and "0::/path" for cgroup2; the path is
 * relative to the hierarchy root as seen by our cgroup namespace.  The
 * hierarchy's mount (from /proc/self/mountinfo) may itself be rooted below
 * that root (field 4), so the directory is mountpoint + (path - mount root).
 * Everything runcell creates lives below that directory.
 */
#include "config.h"

#include "sandbox/cgroup/cgroup_internal.h"
#include "common/config.h"
#include "sandbox/host/syscalls.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

#define CGROUP_ROOT "/sys/fs/cgroup"

/* --- mode --- */

static enum rc_cgroup_mode detected_mode = RC_CGROUP_UNKNOWN;

int
rc_cgroup_detect_mode (enum rc_cgroup_mode *mode, rc_err_t *err)
{
  struct statfs st;

  if (detected_mode != RC_CGROUP_UNKNOWN)
    {
      *mode = detected_mode;
      return 0;
    }
  if (statfs (CGROUP_ROOT, &st) < 0)
    return rc_error_sys (err, "cgroup: statfs %s", CGROUP_ROOT);
  if (st.f_type == CGROUP2_SUPER_MAGIC)
    detected_mode = RC_CGROUP_UNIFIED;
  else if (st.f_type == TMPFS_MAGIC)
    {
      /* A missing unified mount is normal on legacy hosts. */
      if (statfs (CGROUP_ROOT "/unified", &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC)
        detected_mode = RC_CGROUP_HYBRID;
      else
        detected_mode = RC_CGROUP_LEGACY;
    }
  else
    return rc_error_set (err, 0, "cgroup: %s is neither cgroup2 nor tmpfs (f_type 0x%lx)",
                         CGROUP_ROOT, (unsigned long)st.f_type);
  *mode = detected_mode;
  return 0;
}

const char *
rc_cgroup_mode_name (enum rc_cgroup_mode mode)
{
  switch (mode)
    {
    case RC_CGROUP_UNIFIED:
      return "unified";
    case RC_CGROUP_HYBRID:
      return "hybrid";
    case RC_CGROUP_LEGACY:
      return "legacy";
    case RC_CGROUP_UNKNOWN:
      break;
    }
  return "unknown";
}

/* --- our own cgroup --- */

bool
rc_cg_name_ok (const char *name)
{
  return name != NULL && name[0] != '\0' && strchr (name, '/') == NULL && strcmp (name, ".") != 0
         && strcmp (name, "..") != 0 && strlen (name) < NAME_MAX;
}

bool
rc_cg_list_has (const char *list, const char *word)
{
  size_t len = strlen (word);
  const char *p = list;

  while (p != NULL && *p != '\0')
    {
      const char *end = p + strcspn (p, " ,\n");
      if ((size_t)(end - p) == len && strncmp (p, word, len) == 0)
        return true;
      p = *end != '\0' ? end + 1 : end;
    }
  return false;
}

/* mountinfo escapes blanks and backslashes as \ooo. */
static void
unescape_octal (char *s)
{
  char *out = s;
  for (; *s != '\0'; s++)
    {
      if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0'
          && s[3] <= '7')
        {
          *out++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
          s += 3;
        }
      else
        *out++ = *s;
    }
  *out = '\0';
}

/* The path of our cgroup in the hierarchy holding controller (NULL: the
 * cgroup2 line "0::"), from the text of /proc/self/cgroup. */
static int
parse_own_path (const char *text, const char *controller, char **path, rc_err_t *err)
{
  cleanup_free char *copy = strdup (text);
  char *save = NULL;

  if (copy == NULL)
    return rc_error_sys (err, "cgroup: strdup");
  for (char *line = strtok_r (copy, "\n", &save); line != NULL; line = strtok_r (NULL, "\n", &save))
    {
      char *ctls = strchr (line, ':');
      char *p = ctls ? strchr (ctls + 1, ':') : NULL;
      if (p == NULL)
        continue;
      *ctls++ = '\0';
      *p++ = '\0';
      if ((controller == NULL && strcmp (line, "0") == 0 && *ctls == '\0')
          || (controller != NULL && rc_cg_list_has (ctls, controller)))
        {
          *path = strdup (p);
          return *path ? 0 : rc_error_sys (err, "cgroup: strdup");
        }
    }
  return rc_error_set (err, ENOENT, "cgroup: controller %s not available",
                       controller ? controller : "cgroup2");
}

/* Finds, in the text of /proc/self/mountinfo, the mount of the hierarchy
 * (fstype cgroup with controller in its super options, or cgroup2) whose
 * root is a prefix of own_path.  A hierarchy mounted in several places
 * (bind mounts) is fine: the first is taken. */
static int
parse_mount (const char *text, const char *controller, const char *own_path, char **mnt,
             char **mnt_root, rc_err_t *err)
{
  cleanup_free char *copy = strdup (text);
  char *lsave = NULL;

  if (copy == NULL)
    return rc_error_sys (err, "cgroup: strdup");
  for (char *line = strtok_r (copy, "\n", &lsave); line != NULL;
       line = strtok_r (NULL, "\n", &lsave))
    {
      char *fields[6] = { NULL };
      char *save = NULL, *tok, *dash, *fstype, *superopts;
      size_t n = 0, root_len;

      dash = strstr (line, " - ");
      if (dash == NULL)
        continue;
      *dash = '\0';
      fstype = strtok_r (dash + 3, " ", &save);
      (void)strtok_r (NULL, " ", &save); /* source */
      superopts = strtok_r (NULL, " ", &save);
      if (fstype == NULL || superopts == NULL)
        continue;
      if (controller == NULL
              ? strcmp (fstype, "cgroup2") != 0
              : (strcmp (fstype, "cgroup") != 0 || !rc_cg_list_has (superopts, controller)))
        continue;
      for (tok = strtok_r (line, " ", &save); tok != NULL && n < 6;
           tok = strtok_r (NULL, " ", &save))
        fields[n++] = tok;
      if (n < 5)
        continue;
      unescape_octal (fields[3]);
      unescape_octal (fields[4]);
      root_len = strlen (fields[3]);
      if (strcmp (fields[3], "/") == 0)
        root_len = 0;
      else if (strncmp (own_path, fields[3], root_len) != 0
               || (own_path[root_len] != '/' && own_path[root_len] != '\0'))
        continue; /* a mount of a subtree we are not in */
      *mnt = strdup (fields[4]);
      *mnt_root = strndup (fields[3], root_len);
      if (*mnt == NULL || *mnt_root == NULL)
        {
          free (*mnt);
          free (*mnt_root);
          return rc_error_sys (err, "cgroup: strdup");
        }
      return 0;
    }
  return rc_error_set (err, ENOENT,
                       "cgroup: controller %s not available (no mount of its hierarchy)",
                       controller ? controller : "cgroup2");
}

int
rc_cg_dir_from (const char *cgroup_text, const char *mountinfo_text, const char *controller,
                char **dir, char **mount_dir, rc_err_t *err)
{
  cleanup_free char *own = NULL;
  cleanup_free char *mnt_root = NULL;
  char *mnt = NULL;
  const char *rel;

  if (parse_own_path (cgroup_text, controller, &own, err) < 0)
    return -1;
  if (parse_mount (mountinfo_text, controller, own, &mnt, &mnt_root, err) < 0)
    return -1;
  rel = own + strlen (mnt_root);
  if (strcmp (rel, "/") == 0)
    rel = "";
  if (asprintf (dir, "%s%s", mnt, rel) < 0)
    {
      free (mnt);
      return rc_error_sys (err, "cgroup: asprintf");
    }
  if (mount_dir != NULL)
    *mount_dir = mnt;
  else
    free (mnt);
  return 0;
}

/* procfs files have no size: read until EOF. */
static int
read_whole (const char *path, char **text, rc_err_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  size_t len = 0, cap = 8192;
  char *buf;

  if (fd < 0)
    return rc_error_sys (err, "cgroup: open %s", path);
  buf = malloc (cap);
  if (buf == NULL)
    return rc_error_sys (err, "cgroup: malloc");
  for (;;)
    {
      ssize_t n;
      if (len + 1 >= cap)
        {
          char *nb = realloc (buf, cap * 2);
          if (nb == NULL)
            {
              free (buf);
              return rc_error_sys (err, "cgroup: realloc");
            }
          buf = nb;
          cap *= 2;
        }
      n = read (fd, buf + len, cap - 1 - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          free (buf);
          return rc_error_sys (err, "cgroup: read %s", path);
        }
      if (n == 0)
        break;
      len += (size_t)n;
    }
  buf[len] = '\0';
  *text = buf;
  return 0;
}

int
rc_cg_read_self (char **cgroup_text, char **mountinfo_text, rc_err_t *err)
{
  *cgroup_text = *mountinfo_text = NULL;
  if (read_whole ("/proc/self/cgroup", cgroup_text, err) < 0)
    return -1;
  if (read_whole ("/proc/self/mountinfo", mountinfo_text, err) < 0)
    {
      free (*cgroup_text);
      *cgroup_text = NULL;
      return -1;
    }
  return 0;
}

int
rc_cg_own_dir (const char *controller, char **dir, char **mount_dir, rc_err_t *err)
{
  cleanup_free char *cg = NULL;
  cleanup_free char *mi = NULL;

  if (rc_cg_read_self (&cg, &mi, err) < 0)
    return -1;
  return rc_cg_dir_from (cg, mi, controller, dir, mount_dir, err);
}

int
rc_cgroup_check_controllers (enum rc_cgroup_mode mode, rc_err_t *err)
{
  static const char *const v2_need[] = { "memory", "pids", "cpu" };
  static const char *const v1_need[] = { "memory", "pids", "cpuacct", "cpu" };

  if (rc_cg_is_v2 (mode))
    {
      cleanup_free char *dir = NULL, *mnt = NULL, *path = NULL, *list = NULL;
      if (rc_cg_own_dir (NULL, &dir, &mnt, err) < 0)
        return -1;
      /* What our own cgroup may hand down: its parent enabled these. */
      if (asprintf (&path, "%s/cgroup.controllers", dir) < 0)
        return rc_error_sys (err, "cgroup: asprintf");
      if (read_whole (path, &list, err) < 0)
        return -1;
      for (size_t i = 0; i < sizeof v2_need / sizeof v2_need[0]; i++)
        if (!rc_cg_list_has (list, v2_need[i]))
          return rc_error_set (err, ENOENT, "cgroup v2: controller %s is not available in %s",
                               v2_need[i], dir);
      return 0;
    }
  for (size_t i = 0; i < sizeof v1_need / sizeof v1_need[0]; i++)
    {
      cleanup_free char *dir = NULL, *mnt = NULL;
      if (rc_cg_own_dir (v1_need[i], &dir, &mnt, err) < 0)
        return rc_error_wrap (err, "cgroup v1: controller %s", v1_need[i]);
    }
  return 0;
}
