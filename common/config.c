/* config.c - parses runcell's environment variables once at start.
 *
 * Every value is validated here so that a typo refuses to start the service
 * with the variable's name, instead of surfacing later as an odd limit.
 */
#include <config.h>

#include "common/config.h"
#include "common/lang.h"

#include <ctype.h>
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

int
rc_parse_u64 (const char *s, uint64_t *out)
{
  uint64_t v = 0;
  if (s == NULL || *s == '\0')
    return -1;
  for (; *s; s++)
    {
      unsigned d;
      if (*s < '0' || *s > '9')
        return -1;
      d = (unsigned) (*s - '0');
      if (v > (UINT64_MAX - d) / 10)
        return -1;
      v = v * 10 + d;
    }
  *out = v;
  return 0;
}

/* Parses "<digits>[.<digits>]" followed by a unit from `units` (longest
 * suffix first); multiplies by the unit's factor. */
struct unit
{
  const char *suffix;
  uint64_t factor;
};

static int
parse_with_units (const char *s, const struct unit *units, size_t n_units, bool unit_required,
                  uint64_t *out)
{
  uint64_t whole = 0, frac = 0, frac_div = 1, factor = 1;
  const char *p = s;
  size_t i, digits = 0;
  if (s == NULL)
    return -1;
  while (*p >= '0' && *p <= '9')
    {
      if (whole > (UINT64_MAX - 9) / 10)
        return -1;
      whole = whole * 10 + (uint64_t) (*p - '0');
      p++;
      digits++;
    }
  if (*p == '.')
    {
      p++;
      while (*p >= '0' && *p <= '9')
        {
          if (frac_div < 1000000000ULL)
            {
              frac = frac * 10 + (uint64_t) (*p - '0');
              frac_div *= 10;
            }
          p++;
          digits++;
        }
    }
  if (digits == 0)
    return -1;
  if (*p == '\0')
    {
      if (unit_required)
        return -1;
    }
  else
    {
      for (i = 0; i < n_units; i++)
        if (strcasecmp (p, units[i].suffix) == 0)
          break;
      if (i == n_units)
        return -1;
      factor = units[i].factor;
    }
  if (whole != 0 && factor > UINT64_MAX / whole)
    return -1;
  *out = whole * factor + (frac * factor) / frac_div;
  return 0;
}

int
rc_parse_duration_ms (const char *s, uint64_t *out_ms)
{
  static const struct unit units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60000 } };
  uint64_t v;
  if (parse_with_units (s, units, sizeof units / sizeof units[0], true, &v) < 0 || v == 0)
    return -1;
  *out_ms = v;
  return 0;
}

int
rc_parse_size (const char *s, uint64_t *out_bytes)
{
  static const struct unit units[] = {
    { "k", 1ULL << 10 },  { "kb", 1ULL << 10 }, { "kib", 1ULL << 10 }, { "m", 1ULL << 20 },
    { "mb", 1ULL << 20 }, { "mib", 1ULL << 20 }, { "g", 1ULL << 30 },  { "gb", 1ULL << 30 },
    { "gib", 1ULL << 30 }, { "b", 1 },
  };
  return parse_with_units (s, units, sizeof units / sizeof units[0], false, out_bytes);
}

int
rc_parse_bool (const char *s, bool *out)
{
  static const char *const yes[] = { "1", "true", "yes", "on" };
  static const char *const no[] = { "0", "false", "no", "off" };
  size_t i;
  if (s == NULL)
    return -1;
  for (i = 0; i < 4; i++)
    {
      if (strcasecmp (s, yes[i]) == 0)
        {
          *out = true;
          return 0;
        }
      if (strcasecmp (s, no[i]) == 0)
        {
          *out = false;
          return 0;
        }
    }
  return -1;
}

static const char *
env_getenv (const char *name, void *userdata)
{
  (void) userdata;
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
                         (unsigned long long) min, (unsigned long long) max, v);
  *out = n;
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
                             name, (unsigned long long) min, v);
      return rc_error_set (err, 0, "%s: expected a size such as 1048576, 64k, 256m or 1g, got '%s'",
                           name, v);
    }
  *out = n;
  return 0;
}

static int
load_bool (rc_getenv_fn get, void *ud, const char *name, bool empty_means, bool *out,
           rc_err_t *err)
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
  if (len == 0 || (!isalpha ((unsigned char) s[0]) && s[0] != '_'))
    return false;
  for (i = 0; i < len; i++)
    if (!isalnum ((unsigned char) s[i]) && s[i] != '_')
      return false;
  return true;
}

/* Appends a copy of s[0..len) to the NULL-terminated *v. */
static int
strv_push (char ***v, size_t *n, const char *s, size_t len)
{
  char **grown = realloc (*v, (*n + 2) * sizeof **v);
  if (grown == NULL)
    return -1;
  *v = grown;
  grown[*n] = strndup (s, len);
  if (grown[*n] == NULL)
    return -1;
  (*n)++;
  grown[*n] = NULL;
  return 0;
}

/* RUN_ENV_ALLOW: "KEY1,KEY2"; spaces around keys are tolerated. */
static int
load_env_allow (rc_getenv_fn get, void *ud, char ***out, rc_err_t *err)
{
  const char *v = get ("RUN_ENV_ALLOW", ud), *p;
  size_t n = 0;
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
      if (!is_env_key (start, (size_t) (end - start)))
        {
          rc_strv_free (list);
          return rc_error_set (err, 0, "RUN_ENV_ALLOW: '%.*s' is not a valid variable name",
                               (int) (end - start), start);
        }
      if (strv_push (&list, &n, start, (size_t) (end - start)) < 0)
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
      uint64_t *field = (uint64_t *) ((char *) &cfg->limit_max + f->off);
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
  size_t n = 0;
  char *kv = NULL;

  if (strv_push (&cfg->job_env, &n, "PATH=" RC_JOB_PATH, strlen ("PATH=" RC_JOB_PATH)) < 0)
    goto nomem;
  if (asprintf (&kv, "LANG=%s", lang && *lang ? lang : "C.UTF-8") < 0)
    goto nomem;
  if (strv_push (&cfg->job_env, &n, kv, strlen (kv)) < 0)
    goto nomem;
  free (kv);
  kv = NULL;
  for (size_t i = 0; i < sizeof copied / sizeof copied[0]; i++)
    {
      const char *v = get (copied[i], ud);
      if (v == NULL || asprintf (&kv, "%s=%s", copied[i], v) < 0)
        continue;
      if (strv_push (&cfg->job_env, &n, kv, strlen (kv)) < 0)
        goto nomem;
      free (kv);
      kv = NULL;
    }
  for (char **k = cfg->env_allow; k && *k; k++)
    {
      const char *v = get (*k, ud);
      bool dup = strcmp (*k, "HOME") == 0;
      for (size_t i = 0; i < n && !dup; i++)
        dup = strncmp (cfg->job_env[i], *k, strlen (*k)) == 0
              && cfg->job_env[i][strlen (*k)] == '=';
      if (v == NULL || dup)
        continue;
      if (asprintf (&kv, "%s=%s", *k, v) < 0)
        goto nomem;
      if (strv_push (&cfg->job_env, &n, kv, strlen (kv)) < 0)
        goto nomem;
      free (kv);
      kv = NULL;
    }
  return 0;
nomem:
  free (kv);
  return rc_error_set (err, ENOMEM, "job environment");
}

int
rc_config_load (struct rc_config *cfg, rc_getenv_fn get, void *ud, rc_err_t *err)
{
  uint64_t n;
  const char *v;

  memset (cfg, 0, sizeof *cfg);
  cfg->concurrency = 10;
  cfg->spare_workers = 2;
  cfg->input_max = 1048576;
  cfg->output_max = 1048576;
  cfg->uid_base = 10001;
  cfg->port = 4040;
  cfg->timeout_default_ms = 30000;
  cfg->timeout_max_ms = 600000;
  cfg->pids_max = 512;
  cfg->sandbox = true;
  cfg->max_files = 64;
  cfg->limit_max.wall_ms = 300000;
  cfg->limit_max.idle_ms = 300000;
  cfg->limit_max.cpu_ms = 300000;
  cfg->limit_max.memory_bytes = 4096ULL << 20;
  cfg->limit_max.pids = 1024;
  cfg->limit_max.output_bytes = 64ULL << 20;

  n = cfg->concurrency;
  if (rc_config_env_u64 (get, ud, "RUN_CONCURRENCY", 1, 1024, &n, err) < 0)
    goto fail;
  cfg->concurrency = (unsigned) n;
  n = cfg->spare_workers;
  if (rc_config_env_u64 (get, ud, "RUN_SPARE_WORKERS", 1, 64, &n, err) < 0)
    goto fail;
  cfg->spare_workers = (unsigned) n;
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
  n = cfg->uid_base;
  /* Slot uids must not collide with root or system accounts and must fit
   * below the 32-bit overflow uid. */
  if (rc_config_env_u64 (get, ud, "RUN_UID_BASE", 1000, 4000000000ULL, &n, err) < 0)
    goto fail;
  cfg->uid_base = (unsigned) n;
  if (load_env_allow (get, ud, &cfg->env_allow, err) < 0
      || load_job_env (get, ud, cfg, err) < 0)
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
  n = cfg->port;
  if (rc_config_env_u64 (get, ud, "PORT", 1, 65535, &n, err) < 0)
    goto fail;
  cfg->port = (unsigned) n;
  v = get ("RUN_TIMEOUT_MAX", ud);
  if (v != NULL && rc_parse_duration_ms (v, &cfg->timeout_max_ms) < 0)
    {
      rc_error_set (err, 0, "RUN_TIMEOUT_MAX: expected a duration such as 30s or 10m, got '%s'", v);
      goto fail;
    }
  n = cfg->pids_max;
  if (rc_config_env_u64 (get, ud, "RUN_PIDS_MAX", 8, 1000000, &n, err) < 0)
    goto fail;
  cfg->pids_max = n;
  if (load_ceilings (get, ud, cfg, err) < 0)
    goto fail;
  n = cfg->max_files;
  if (rc_config_env_u64 (get, ud, "RUN_MAX_FILES", 1, 100000, &n, err) < 0)
    goto fail;
  cfg->max_files = (unsigned) n;
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
  return 0;

fail:
  rc_config_free (cfg);
  return -1;
}

int
rc_config_load_env (struct rc_config *cfg, rc_err_t *err)
{
  return rc_config_load (cfg, env_getenv, NULL, err);
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
  memset (cfg, 0, sizeof *cfg);
}
