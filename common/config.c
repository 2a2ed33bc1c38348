/* config.c - the one reader of runcell's environment variables.
 *
 * Every value is validated here so that a typo refuses to start the service
 * with the variable's name, instead of surfacing later as an odd limit.
 * The sessions API's variables and the per-language overrides are read
 * here too; the rest of the program only reads struct rc_config.
 */
#include <config.h>

#include "common/config.h"
#include "common/lang.h"
#include "common/strv.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stddef.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef RC_PKGDATADIR
#define RC_PKGDATADIR "/usr/share/runcell"
#endif

static const char *
env_getenv (const char *name, void *userdata)
{
  (void)userdata;
  return getenv (name);
}

int
rc_config_env_u64 (rc_getenv_fn get, void *ud, const char *name, uint64_t min, uint64_t max,
                   uint64_t *out, rc_err_t *err)
{
  const char *v = get (name, ud);
  uint64_t n;
  if (v == NULL || *v == '\0')
    return 0;
  if (rc_parse_u64 (v, &n) < 0 || n < min || n > max)
    return rc_error_set (err, 0, "%s: expected an integer from %llu to %llu, got '%s'", name,
                         (unsigned long long)min, (unsigned long long)max, v);
  *out = n;
  return 0;
}

/* rc_config_env_u64 into an unsigned field. */
static int
env_unsigned (rc_getenv_fn get, void *ud, const char *name, uint64_t min, uint64_t max,
              unsigned *out, rc_err_t *err)
{
  uint64_t n = *out;
  if (rc_config_env_u64 (get, ud, name, min, max, &n, err) < 0)
    return -1;
  *out = (unsigned)n;
  return 0;
}

int
rc_config_env_size (rc_getenv_fn get, void *ud, const char *name, uint64_t min, uint64_t *out,
                    rc_err_t *err)
{
  const char *v = get (name, ud);
  uint64_t n;
  if (v == NULL || *v == '\0')
    return 0;
  if (rc_parse_size (v, &n) < 0 || n < min)
    {
      if (min > 0)
        return rc_error_set (err, 0,
                             "%s: expected a size of at least %llu bytes such as 1048576, 64k, "
                             "256m or 1g, got '%s'",
                             name, (unsigned long long)min, v);
      return rc_error_set (err, 0, "%s: expected a size such as 1048576, 64k, 256m or 1g, got '%s'",
                           name, v);
    }
  *out = n;
  return 0;
}

static int
load_bool (rc_getenv_fn get, void *ud, const char *name, bool empty_means, bool *out, rc_err_t *err)
{
  const char *v = get (name, ud);
  if (v == NULL)
    return 0;
  if (*v == '\0')
    {
      *out = empty_means;
      return 0;
    }
  if (rc_parse_bool (v, out) < 0)
    return rc_error_set (err, 0, "%s: expected 1/true/yes/on or 0/false/no/off, got '%s'", name, v);
  return 0;
}

static int
load_string (rc_getenv_fn get, void *ud, const char *name, const char *def, char **out,
             rc_err_t *err)
{
  const char *v = get (name, ud);
  if (v == NULL || *v == '\0')
    v = def;
  free (*out);
  *out = v ? strdup (v) : NULL;
  if (v && *out == NULL)
    return rc_error_set (err, ENOMEM, "%s", name);
  return 0;
}

static bool
is_env_key (const char *s, size_t len)
{
  size_t i;
  if (len == 0 || (!isalpha ((unsigned char)s[0]) && s[0] != '_'))
    return false;
  for (i = 0; i < len; i++)
    if (!isalnum ((unsigned char)s[i]) && s[i] != '_')
      return false;
  return true;
}

/* RUN_ENV_ALLOW: "KEY1,KEY2"; spaces around keys are tolerated. */
static int
load_env_allow (rc_getenv_fn get, void *ud, char ***out, rc_err_t *err)
{
  const char *v = get ("RUN_ENV_ALLOW", ud), *p;
  char **list = NULL;
  *out = NULL;
  if (v == NULL)
    return 0;
  for (p = v; *p;)
    {
      const char *start, *end;
      while (*p == ' ' || *p == ',')
        p++;
      if (*p == '\0')
        break;
      start = p;
      while (*p && *p != ',')
        p++;
      end = p;
      while (end > start && end[-1] == ' ')
        end--;
      if (!is_env_key (start, (size_t)(end - start)))
        {
          rc_strv_free (list);
          return rc_error_set (err, 0, "RUN_ENV_ALLOW: '%.*s' is not a valid variable name",
                               (int)(end - start), start);
        }
      if (rc_strv_pushn (&list, start, (size_t)(end - start)) < 0)
        {
          rc_strv_free (list);
          return rc_error_set (err, ENOMEM, "RUN_ENV_ALLOW");
        }
    }
  *out = list;
  return 0;
}

/* The /v1/execute ceilings, in the request's own units. */
static int
load_ceilings (rc_getenv_fn get, void *ud, struct rc_config *cfg, rc_err_t *err)
{
  for (size_t i = 0; i < rc_n_limit_fields; i++)
    {
      const struct rc_limit_field *f = &rc_limit_fields[i];
      uint64_t *field = (uint64_t *)((char *)&cfg->limit_max + f->off);
      uint64_t v = *field / f->scale;
      if (rc_config_env_u64 (get, ud, f->ceiling, 1, UINT64_MAX / f->scale, &v, err) < 0)
        return -1;
      *field = v * f->scale;
    }
  return 0;
}

/* The environment every job starts from, fixed at start (nothing is read
 * from the service's environment per request): a PATH of the system's own
 * directories (the service's would name directories of the host the job
 * cannot see, /root/.cargo/bin and the like; a manifest's env may set
 * another), the service's LANG (C.UTF-8 when unset), LC_ALL and TZ when
 * set, and the RUN_ENV_ALLOW keys the service has. */
static int
load_job_env (rc_getenv_fn get, void *ud, struct rc_config *cfg, rc_err_t *err)
{
  static const char *const copied[] = { "LC_ALL", "TZ" };
  const char *lang = get ("LANG", ud);
  char ***env = &cfg->job_env;

  if (rc_strv_push (env, strdup ("PATH=" RC_JOB_PATH)) < 0
      || rc_strv_push (env, rc_strdupf ("LANG=%s", lang && *lang ? lang : "C.UTF-8")) < 0)
    return rc_error_set (err, ENOMEM, "job environment");
  for (size_t i = 0; i < sizeof copied / sizeof copied[0]; i++)
    {
      const char *v = get (copied[i], ud);
      if (v != NULL && rc_strv_push (env, rc_strdupf ("%s=%s", copied[i], v)) < 0)
        return rc_error_set (err, ENOMEM, "job environment");
    }
  for (char **k = cfg->env_allow; k && *k; k++)
    {
      const char *v = get (*k, ud);
      size_t klen = strlen (*k);
      bool dup = strcmp (*k, "HOME") == 0;
      for (char **e = *env; e && *e && !dup; e++)
        dup = strncmp (*e, *k, klen) == 0 && (*e)[klen] == '=';
      if (v == NULL || dup)
        continue;
      if (rc_strv_push (env, rc_strdupf ("%s=%s", *k, v)) < 0)
        return rc_error_set (err, ENOMEM, "job environment");
    }
  return 0;
}

/* The sessions API's variables (struct rc_session_config). */
static int
load_sessions (rc_getenv_fn get, void *ud, struct rc_config *cfg, rc_err_t *err)
{
  struct rc_session_config *sc = &cfg->sessions;
  const char *v;

  /* The other defaults are config_defaults.sessions. */
  sc->quota = geteuid () == 0 ? RC_SESSION_QUOTA_TMPFS : RC_SESSION_QUOTA_NONE;

  if (rc_config_env_u64 (get, ud, "MAX_SESSIONS", 1, 1000000, &sc->max_sessions, err) < 0
      || rc_config_env_size (get, ud, "MAX_SESSION_SIZE", 4096, &sc->max_session_size, err) < 0
      || rc_config_env_u64 (get, ud, "MAX_SESSION_ENTRIES", 1, 1ULL << 31, &sc->max_session_entries,
                            err)
             < 0
      || rc_config_env_u64 (get, ud, "MAX_RESULT_ATTACHMENTS", 0, 1000000, &sc->max_attachments,
                            err)
             < 0
      || rc_config_env_size (get, ud, "MAX_OUTPUT_SIZE", 1, &sc->max_output, err) < 0
      /* The code is one argv entry of the job: under MAX_ARG_STRLEN. */
      || rc_config_env_u64 (get, ud, "MAX_CODE_LENGTH", 1, 120000, &sc->max_code, err) < 0
      || rc_config_env_u64 (get, ud, "EXECUTION_TIMEOUT", 1, 86400, &sc->timeout_s, err) < 0
      || rc_config_env_size (get, ud, "MAX_MEMORY", 16ULL << 20, &sc->memory, err) < 0
      || rc_config_env_u64 (get, ud, "CONTAINER_PIDS_LIMIT", 8, 1000000, &sc->pids, err) < 0
      || rc_config_env_u64 (get, ud, "CONTAINER_ULIMIT_NOFILE", 16, 1048576, &sc->nofile, err) < 0
      || rc_config_env_size (get, ud, "CONTAINER_ULIMIT_FSIZE", 512, &sc->fsize, err) < 0
      || rc_config_env_size (get, ud, "CONTAINER_TMPFS_SIZE", 1ULL << 20, &sc->tmp_size, err) < 0
      || rc_config_env_u64 (get, ud, "SESSION_INACTIVITY_TIMEOUT_SECONDS", 1, 31536000,
                            &sc->inactivity_s, err)
             < 0
      || rc_config_env_u64 (get, ud, "SESSION_SWEEP_INTERVAL_SECONDS", 1, 86400, &sc->sweep_s, err)
             < 0
      || rc_config_env_u64 (get, ud, "SESSION_LOCK_WAIT_TIMEOUT_SECONDS", 0, 3600, &sc->lock_wait_s,
                            err)
             < 0)
    return -1;

  v = get ("SESSION_QUOTA", ud);
  if (v != NULL && *v != '\0')
    {
      if (strcasecmp (v, "tmpfs") == 0)
        sc->quota = RC_SESSION_QUOTA_TMPFS;
      else if (strcasecmp (v, "none") == 0)
        sc->quota = RC_SESSION_QUOTA_NONE;
      else
        return rc_error_set (err, EINVAL, "SESSION_QUOTA: expected tmpfs or none, got '%s'", v);
      sc->quota_set = true;
    }
  if (sc->quota == RC_SESSION_QUOTA_TMPFS && geteuid () != 0)
    return rc_error_set (err, EPERM, "SESSION_QUOTA=tmpfs: mounting needs root");

  v = get ("RUN_SESSIONS_DIR", ud);
  if (v != NULL && *v != '\0')
    {
      if (v[0] != '/')
        return rc_error_set (err, EINVAL, "RUN_SESSIONS_DIR: must be an absolute path, got '%s'",
                             v);
      sc->dir = strdup (v);
    }
  else if (asprintf (&sc->dir, "%s/sessions", cfg->state_dir) < 0)
    sc->dir = NULL;
  if (sc->dir == NULL)
    return rc_error_set (err, ENOMEM, "RUN_SESSIONS_DIR");
  return 0;
}

/* RUN_OVERLAY_PATHS_<SLUG>: "/a,/b", absolute paths. */
static int
parse_path_list (const char *name, const char *v, char ***out, rc_err_t *err)
{
  *out = calloc (1, sizeof (char *));
  if (*out == NULL)
    return rc_error_set (err, ENOMEM, "%s", name);
  while (*v)
    {
      size_t len = strcspn (v, ",");
      if (len > 0)
        {
          if (v[0] != '/')
            return rc_error_set (err, 0, "%s: paths must be absolute, got '%.*s'", name, (int)len,
                                 v);
          if (rc_strv_pushn (out, v, len) < 0)
            return rc_error_set (err, ENOMEM, "%s", name);
        }
      v += len;
      if (*v == ',')
        v++;
    }
  return 0;
}

static int
load_one_override (rc_getenv_fn get, void *ud, const char *slug, struct rc_lang_override *o,
                   rc_err_t *err)
{
  char upper[64], name[128];
  const char *v;
  size_t i;

  for (i = 0; slug[i] && i + 1 < sizeof upper; i++)
    upper[i] = (char)toupper ((unsigned char)slug[i]);
  upper[i] = '\0';
  snprintf (name, sizeof name, "RUN_TMP_SIZE_%s", upper);
  if (rc_config_env_size (get, ud, name, 1ULL << 20, &o->tmp_size, err) < 0)
    return -1;
  snprintf (name, sizeof name, "RUN_MEM_MAX_%s", upper);
  if (rc_config_env_size (get, ud, name, 16ULL << 20, &o->memory_bytes, err) < 0)
    return -1;
  snprintf (name, sizeof name, "RUN_OVERLAY_PATHS_%s", upper);
  if ((v = get (name, ud)) != NULL && parse_path_list (name, v, &o->overlay_paths, err) < 0)
    return -1;
  return 0;
}

/* The per-language overrides, for every directory of RUN_LANGS_DIR that
 * holds a manifest (a language installed later is read at the reload that
 * makes it available). */
static int
load_lang_overrides (rc_getenv_fn get, void *ud, struct rc_config *cfg, rc_err_t *err)
{
  DIR *d = opendir (cfg->langs_dir);
  struct dirent *e;
  int ret = 0;

  if (d == NULL)
    return 0; /* the language table's loader says what is wrong with it */
  while (ret == 0 && (e = readdir (d)) != NULL)
    {
      struct rc_lang_override *grown, *o;
      struct stat st;
      if (e->d_name[0] == '.' || strlen (e->d_name) >= 48
          || fstatat (dirfd (d), e->d_name, &st, 0) < 0 || !S_ISDIR (st.st_mode))
        continue;
      grown = realloc (cfg->lang_overrides, (cfg->n_lang_overrides + 1) * sizeof *grown);
      if (grown == NULL)
        {
          ret = rc_error_set (err, ENOMEM, "language overrides");
          break;
        }
      cfg->lang_overrides = grown;
      o = &grown[cfg->n_lang_overrides++];
      memset (o, 0, sizeof *o);
      if ((o->slug = strdup (e->d_name)) == NULL)
        ret = rc_error_set (err, ENOMEM, "language overrides");
      else
        ret = load_one_override (get, ud, e->d_name, o, err);
    }
  closedir (d);
  return ret;
}

/* RUN_JUDGE_*: the judge's bounds on one request. */
static int
load_judge (rc_getenv_fn get, void *ud, struct rc_config *cfg, rc_err_t *err)
{
  struct rc_judge_config *j = &cfg->judge;
  uint64_t n;
  const char *v;

  j->parallel = 4;
  j->max_tests = 1000;
  j->input_max = 64ULL << 20;
  j->wall_max_ms = 600000;
  j->echo_bytes = 4096;
  n = j->parallel;
  if (rc_config_env_u64 (get, ud, "RUN_JUDGE_PARALLEL", 1, 1024, &n, err) < 0)
    return -1;
  j->parallel = (unsigned)n;
  n = j->max_tests;
  if (rc_config_env_u64 (get, ud, "RUN_JUDGE_MAX_TESTS", 1, 1000000, &n, err) < 0)
    return -1;
  j->max_tests = (unsigned)n;
  /* The body is parsed whole in a worker: 1 GiB bounds what one request
   * may make it hold. */
  if (rc_config_env_size (get, ud, "RUN_JUDGE_INPUT_MAX", 1, &j->input_max, err) < 0)
    return -1;
  if (j->input_max > (1ULL << 30))
    return rc_error_set (err, 0, "RUN_JUDGE_INPUT_MAX: at most 1g");
  v = get ("RUN_JUDGE_WALL_MAX", ud);
  if (v != NULL && *v != '\0' && rc_parse_duration_ms (v, &j->wall_max_ms) < 0)
    return rc_error_set (err, 0,
                         "RUN_JUDGE_WALL_MAX: expected a duration such as 60s or 10m, got '%s'", v);
  n = j->echo_bytes / 1024;
  if (rc_config_env_u64 (get, ud, "RUN_JUDGE_ECHO_KB", 0, 1048576, &n, err) < 0)
    return -1;
  j->echo_bytes = n * 1024;
  return 0;
}

const struct rc_lang_override *
rc_config_lang_override (const struct rc_config *cfg, const char *slug)
{
  for (size_t i = 0; i < cfg->n_lang_overrides; i++)
    if (strcmp (cfg->lang_overrides[i].slug, slug) == 0)
      return &cfg->lang_overrides[i];
  return NULL;
}

/* The defaults of the variables runcell-fcgi(8) and runcell.conf(5)
 * list; everything not named here starts zero or NULL. */
static const struct rc_config config_defaults = {
  .concurrency = 10,
  .spare_workers = 2,
  .input_max = 1048576,
  .output_max = 1048576,
  .uid_base = 10001,
  .port = 4040,
  .timeout_default_ms = 30000,
  .timeout_max_ms = 600000,
  .pids_max = 512,
  .sandbox = true,
  .max_files = 64,
  .limit_max = {
    .wall_ms = 300000,
    .idle_ms = 300000,
    .cpu_ms = 300000,
    .memory_bytes = 4096ULL << 20,
    .pids = 1024,
    .output_bytes = 64ULL << 20,
  },
  /* The sessions API's (docs/sessions.md); SESSION_QUOTA's depends on
   * whether we are root: load_sessions. */
  .sessions = {
    .max_sessions = 64,
    .max_session_size = 104857600,
    .max_session_entries = 32768,
    .max_attachments = 256,
    .max_output = 10485760,
    .max_code = 65536,
    .timeout_s = 20,
    .memory = 256ULL << 20,
    .pids = 128,
    .nofile = 1024,
    .fsize = 268435456,
    .tmp_size = 64ULL << 20,
    .inactivity_s = 1800,
    .sweep_s = 60,
    .lock_wait_s = 30,
  },
};

int
rc_config_load (struct rc_config *cfg, rc_getenv_fn get, void *ud, rc_err_t *err)
{
  const char *v;

  *cfg = config_defaults;

  if (env_unsigned (get, ud, "RUN_CONCURRENCY", 1, 1024, &cfg->concurrency, err) < 0)
    goto fail;
  if (env_unsigned (get, ud, "RUN_SPARE_WORKERS", 1, 64, &cfg->spare_workers, err) < 0)
    goto fail;
  if (rc_config_env_size (get, ud, "RUN_INPUT_MAX", 0, &cfg->input_max, err) < 0)
    goto fail;
  if (cfg->input_max == 0)
    {
      rc_error_set (err, 0, "RUN_INPUT_MAX: must be greater than 0");
      goto fail;
    }
  if (rc_config_env_size (get, ud, "RUN_OUTPUT_MAX", 0, &cfg->output_max, err) < 0)
    goto fail;
  /* DEBUG: the reference treats an empty value as "on". */
  if (load_bool (get, ud, "DEBUG", true, &cfg->debug, err) < 0)
    goto fail;
  /* Slot uids must not collide with root or system accounts and must fit
   * below the 32-bit overflow uid. */
  if (env_unsigned (get, ud, "RUN_UID_BASE", 1000, 4000000000ULL, &cfg->uid_base, err) < 0)
    goto fail;
  if (load_env_allow (get, ud, &cfg->env_allow, err) < 0 || load_job_env (get, ud, cfg, err) < 0)
    goto fail;
  if (rc_config_env_size (get, ud, "RUN_MEMORY_MAX", 0, &cfg->memory_max, err) < 0)
    goto fail;
  if (rc_config_env_size (get, ud, "RUN_SANDBOX_TMP_SIZE", 0, &cfg->sandbox_tmp_size, err) < 0)
    goto fail;
  if (rc_config_env_size (get, ud, "RUN_SANDBOX_MEM_MAX", 0, &cfg->sandbox_mem_max, err) < 0)
    goto fail;
  if (rc_config_env_size (get, ud, "RUN_MEMORY_TOTAL_MAX", 0, &cfg->memory_total_max, err) < 0)
    goto fail;
  if (load_bool (get, ud, "ALLOW_SHUTDOWN", false, &cfg->allow_shutdown, err) < 0)
    goto fail;
  if (env_unsigned (get, ud, "PORT", 1, 65535, &cfg->port, err) < 0)
    goto fail;
  v = get ("RUN_TIMEOUT_MAX", ud);
  if (v != NULL && rc_parse_duration_ms (v, &cfg->timeout_max_ms) < 0)
    {
      rc_error_set (err, 0, "RUN_TIMEOUT_MAX: expected a duration such as 30s or 10m, got '%s'", v);
      goto fail;
    }
  if (rc_config_env_u64 (get, ud, "RUN_PIDS_MAX", 8, 1000000, &cfg->pids_max, err) < 0)
    goto fail;
  if (load_ceilings (get, ud, cfg, err) < 0)
    goto fail;
  if (env_unsigned (get, ud, "RUN_MAX_FILES", 1, 100000, &cfg->max_files, err) < 0)
    goto fail;
  cfg->max_processes = cfg->concurrency;
  if (env_unsigned (get, ud, "RUN_MAX_PROCESSES", 1, 4096, &cfg->max_processes, err) < 0)
    goto fail;
  cfg->process_keep_s = 60;
  if (rc_config_env_u64 (get, ud, "RUN_PROCESS_KEEP_S", 0, 86400, &cfg->process_keep_s, err) < 0)
    goto fail;
  if (load_string (get, ud, "RUN_LANGS_DIR", RC_PKGDATADIR "/langs", &cfg->langs_dir, err) < 0
      || load_string (get, ud, "RUN_LISTEN", NULL, &cfg->listen, err) < 0
      || load_string (get, ud, "RUN_STATE_DIR", "/run/runcell/state", &cfg->state_dir, err) < 0
      || load_string (get, ud, "RUN_CGROUP_NAME", "runcell", &cfg->cgroup_name, err) < 0
      || load_string (get, ud, "RUN_LANGUAGES", NULL, &cfg->languages, err) < 0)
    goto fail;
  if (strchr (cfg->cgroup_name, '/') != NULL || strcmp (cfg->cgroup_name, "..") == 0
      || strcmp (cfg->cgroup_name, ".") == 0)
    {
      rc_error_set (err, 0, "RUN_CGROUP_NAME: must be a single path component, got '%s'",
                    cfg->cgroup_name);
      goto fail;
    }
  v = get ("RUN_SANDBOX", ud);
  if (v != NULL && *v != '\0')
    {
      if (strcasecmp (v, "auto") == 0)
        cfg->sandbox = true;
      else if (strcasecmp (v, "on") == 0 || strcasecmp (v, "1") == 0 || strcasecmp (v, "true") == 0)
        cfg->sandbox = cfg->sandbox_required = true;
      else if (strcasecmp (v, "off") == 0 || strcasecmp (v, "0") == 0
               || strcasecmp (v, "false") == 0)
        cfg->sandbox = false;
      else
        {
          rc_error_set (err, 0, "RUN_SANDBOX: expected auto, on or off, got '%s'", v);
          goto fail;
        }
    }
  if (load_sessions (get, ud, cfg, err) < 0 || load_judge (get, ud, cfg, err) < 0
      || rc_config_load_front (get, ud, cfg, err) < 0
      || load_lang_overrides (get, ud, cfg, err) < 0)
    goto fail;
  return 0;

fail:
  rc_config_free (cfg);
  return -1;
}

/* RUN_CONFIG_FILE: the file the environment was loaded from (systemd's
 * EnvironmentFile=: NAME=value a line, '#' or ';' starts a comment, one
 * pair of surrounding quotes dropped).  At start runcell reads only the
 * environment, and the file to remember it.  At a reload a variable whose
 * line in the file changed since the start takes the file's new value (a
 * removed line: the default); every other one keeps the environment's, so
 * a unit's own Environment= and UnsetEnvironment= (runcell-socket.service
 * unsets RUN_LISTEN) keep applying and a reload applies exactly the
 * operator's edits. */
struct file_vars
{
  char **lines; /* "NAME=value", NULL-terminated: the file now */
  char **base;  /* the file at start (a reload), or NULL (the start: unused) */
};

static const char *
strv_lookup (char **lines, const char *name)
{
  size_t n = strlen (name);
  for (char **l = lines; l && *l; l++)
    if (strncmp (*l, name, n) == 0 && (*l)[n] == '=')
      return *l + n + 1;
  return NULL;
}

static const char *
file_getenv (const char *name, void *userdata)
{
  const struct file_vars *fv = userdata;
  const char *now = strv_lookup (fv->lines, name);
  if (fv->base)
    {
      const char *then = strv_lookup (fv->base, name);
      if ((now == NULL) != (then == NULL) || (now && strcmp (now, then) != 0))
        return now ? now : "";
    }
  return getenv (name);
}

static int
read_config_file (const char *path, struct file_vars *fv, rc_err_t *err)
{
  FILE *f = fopen (path, "re");
  char line[8192];
  size_t lineno = 0;
  if (f == NULL)
    return rc_error_sys (err, "RUN_CONFIG_FILE: %s", path);
  while (fgets (line, sizeof line, f))
    {
      char *p = line, *eq, *v, *end;
      lineno++;
      p[strcspn (p, "\r\n")] = '\0';
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '\0' || *p == '#' || *p == ';')
        continue;
      eq = strchr (p, '=');
      if (eq == NULL || !is_env_key (p, (size_t)(eq - p)))
        {
          fclose (f);
          return rc_error_set (err, 0, "RUN_CONFIG_FILE: %s:%zu: expected NAME=value", path,
                               lineno);
        }
      v = eq + 1;
      end = v + strlen (v);
      while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        *--end = '\0';
      if (end - v >= 2 && (*v == '"' || *v == '\'') && end[-1] == *v)
        {
          memmove (v, v + 1, (size_t)(end - v - 2));
          v[end - v - 2] = '\0';
        }
      memmove (eq + 1, v, strlen (v) + 1);
      if (rc_strv_pushn (&fv->lines, p, strlen (p)) < 0)
        {
          fclose (f);
          return rc_error_set (err, ENOMEM, "RUN_CONFIG_FILE");
        }
    }
  fclose (f);
  return 0;
}

static char **
strv_dup (char **v)
{
  char **out = NULL;
  for (; v && *v; v++)
    if (rc_strv_pushn (&out, *v, strlen (*v)) < 0)
      {
        rc_strv_free (out);
        return NULL;
      }
  return out ? out : calloc (1, sizeof *out);
}

static int
load_with_file (struct rc_config *cfg, char **base, rc_err_t *err)
{
  struct file_vars fv = { NULL, base };
  const char *path = getenv ("RUN_CONFIG_FILE");
  if (path == NULL || *path == '\0')
    return rc_config_load (cfg, env_getenv, NULL, err);
  if (read_config_file (path, &fv, err) < 0)
    {
      rc_strv_free (fv.lines);
      memset (cfg, 0, sizeof *cfg);
      return -1;
    }
  if (rc_config_load (cfg, file_getenv, &fv, err) < 0)
    {
      rc_strv_free (fv.lines);
      return -1;
    }
  /* The file as read at start stays the base of every reload. */
  cfg->config_file_vars = base ? strv_dup (base) : fv.lines;
  if (base)
    rc_strv_free (fv.lines);
  if ((cfg->config_file = strdup (path)) == NULL || (base && cfg->config_file_vars == NULL))
    {
      rc_config_free (cfg);
      return rc_error_set (err, ENOMEM, "RUN_CONFIG_FILE");
    }
  return 0;
}

int
rc_config_load_env (struct rc_config *cfg, rc_err_t *err)
{
  return load_with_file (cfg, NULL, err);
}

int
rc_config_reload_env (const struct rc_config *old, struct rc_config *cfg, rc_err_t *err)
{
  static char *empty[] = { NULL };
  return load_with_file (cfg, old->config_file_vars ? old->config_file_vars : empty, err);
}

/* Appends name to a comma-separated list. */
static void
note_change (char **changed, const char *name)
{
  char *grown = NULL;
  if (asprintf (&grown, "%s%s%s", *changed ? *changed : "", *changed ? ", " : "", name) < 0)
    return;
  free (*changed);
  *changed = grown;
}

static bool
str_differs (const char *a, const char *b)
{
  return (a == NULL) != (b == NULL) || (a && strcmp (a, b) != 0);
}

#define KEEP_NUM(field, name)                                                                      \
  do                                                                                               \
    if (old->field != fresh->field)                                                                \
      {                                                                                            \
        fresh->field = old->field;                                                                 \
        note_change (changed, name);                                                               \
      }                                                                                            \
  while (0)
#define KEEP_STR(field, name)                                                                      \
  do                                                                                               \
    if (str_differs (old->field, fresh->field))                                                    \
      {                                                                                            \
        free (fresh->field);                                                                       \
        fresh->field = old->field ? strdup (old->field) : NULL;                                    \
        note_change (changed, name);                                                               \
        if (old->field && fresh->field == NULL)                                                    \
          return -1;                                                                               \
      }                                                                                            \
  while (0)

int
rc_config_keep_restart_only (const struct rc_config *old, struct rc_config *fresh, char **changed)
{
  *changed = NULL;
  /* The slot table, the cgroup tree and the uids are made at start; the
   * socket is open; the sessions live where they were made. */
  KEEP_NUM (concurrency, "RUN_CONCURRENCY");
  KEEP_NUM (uid_base, "RUN_UID_BASE");
  KEEP_NUM (pids_max, "RUN_PIDS_MAX");
  KEEP_NUM (memory_total_max, "RUN_MEMORY_TOTAL_MAX");
  KEEP_NUM (workers_memory_max, "RUN_WORKERS_MEMORY_MAX");
  KEEP_NUM (sandbox, "RUN_SANDBOX");
  KEEP_NUM (sandbox_required, "RUN_SANDBOX");
  KEEP_NUM (sessions.quota, "SESSION_QUOTA");
  KEEP_STR (cgroup_name, "RUN_CGROUP_NAME");
  KEEP_STR (state_dir, "RUN_STATE_DIR");
  KEEP_STR (listen, "RUN_LISTEN");
  KEEP_STR (sessions.dir, "RUN_SESSIONS_DIR");
  return 0;
}

void
rc_config_free (struct rc_config *cfg)
{
  rc_strv_free (cfg->env_allow);
  rc_strv_free (cfg->job_env);
  free (cfg->langs_dir);
  free (cfg->listen);
  free (cfg->state_dir);
  free (cfg->cgroup_name);
  free (cfg->languages);
  free (cfg->sessions.dir);
  free (cfg->config_file);
  rc_strv_free (cfg->config_file_vars);
  rc_config_free_front (cfg);
  for (size_t i = 0; i < cfg->n_lang_overrides; i++)
    {
      free (cfg->lang_overrides[i].slug);
      rc_strv_free (cfg->lang_overrides[i].overlay_paths);
    }
  free (cfg->lang_overrides);
  memset (cfg, 0, sizeof *cfg);
}
