/* session_config.c - parses the sessions API's environment variables.
 *
 * Same strictness as common/config.c: a value that does not parse, or lies
 * outside its range, fails start-up naming the variable, instead of turning
 * into a surprising limit later.
 */
#include "config.h"

#include "fcgi/sessions/session_config.h"
#include "common/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static struct rc_session_config *recorded;

static const char *
env_get (const char *name, void *ud)
{
  (void)ud;
  return getenv (name);
}

int
rc_session_config_parse (struct rc_session_config *sc, rc_getenv_fn get, void *ud, rc_err_t *err)
{
  const char *v;

  memset (sc, 0, sizeof *sc);
  sc->quota = geteuid () == 0 ? RC_SESSION_QUOTA_TMPFS : RC_SESSION_QUOTA_NONE;
  sc->max_sessions = 64;
  sc->max_session_size = 104857600;
  sc->max_session_entries = 32768;
  sc->max_attachments = 256;
  sc->max_output = 10485760;
  sc->max_code = 65536;
  sc->timeout_s = 20;
  sc->memory = 256ULL << 20;
  sc->pids = 128;
  sc->nofile = 1024;
  sc->fsize = 268435456;
  sc->tmp_size = 64ULL << 20;
  sc->inactivity_s = 1800;
  sc->sweep_s = 60;
  sc->lock_wait_s = 30;

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
      sc->sessions_dir = strdup (v);
      if (sc->sessions_dir == NULL)
        return rc_error_set (err, ENOMEM, "RUN_SESSIONS_DIR");
    }
  return 0;
}

int
rc_session_config_load (struct rc_session_config *sc, rc_err_t *err)
{
  if (rc_session_config_parse (sc, env_get, NULL, err) < 0)
    {
      rc_session_config_free (sc);
      return -1;
    }
  recorded = sc;
  if (sc->quota == RC_SESSION_QUOTA_NONE)
    rc_log (RC_LOG_WARN, "sessions_unbounded",
            "SESSION_QUOTA=none: MAX_SESSION_SIZE and MAX_SESSION_ENTRIES are not enforced");
  return 0;
}

void
rc_session_config_free (struct rc_session_config *sc)
{
  free (sc->sessions_dir);
  sc->sessions_dir = NULL;
}

const struct rc_session_config *
rc_session_config_get (void)
{
  static struct rc_session_config lazy;
  static bool tried;
  rc_err_t err = NULL;

  if (recorded)
    return recorded;
  if (tried)
    return NULL;
  tried = true;
  if (rc_session_config_load (&lazy, &err) < 0)
    {
      rc_log (RC_LOG_ERROR, "session_config", "%s", rc_error_text (err));
      rc_error_free (&err);
      return NULL;
    }
  return recorded;
}

const char *
rc_session_root (const struct rc_config *cfg, const struct rc_session_config *sc)
{
  static char *root;
  if (root)
    return root;
  if (sc->sessions_dir)
    root = strdup (sc->sessions_dir);
  else if (asprintf (&root, "%s/sessions", cfg->state_dir ? cfg->state_dir : "/run/runcell") < 0)
    root = NULL;
  return root;
}
