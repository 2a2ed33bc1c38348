/* session_config.h - configuration of the sessions API (/sessions,
 * /execute), read once at start from the environment.
 *
 * The variable names are those of the sessions document
 * (../shared/reference/001_*.txt) where it applies to runcell, so an
 * operator's existing settings keep their meaning; RUN_SESSIONS_DIR and
 * SESSION_QUOTA are runcell's own.  As in common/config.c, a malformed value
 * refuses to start with a message naming the variable.  The concurrency
 * limit (MAX_CONCURRENT_EXECUTIONS in the document) is RUN_CONCURRENCY: the
 * sessions API shares the job slots with /run.
 */
#ifndef RUNCELL_FCGI_SESSION_CONFIG_H
#define RUNCELL_FCGI_SESSION_CONFIG_H

#include "common/config.h"
#include "common/error.h"

#include <stdbool.h>
#include <stdint.h>

enum rc_session_quota
{
  RC_SESSION_QUOTA_TMPFS = 0, /* a tmpfs per session: size= and nr_inodes= */
  RC_SESSION_QUOTA_NONE,      /* a plain directory: limits not enforced (development) */
};

struct rc_session_config
{
  char *sessions_dir;           /* RUN_SESSIONS_DIR (NULL: <RUN_STATE_DIR>/sessions) */
  enum rc_session_quota quota;  /* SESSION_QUOTA: tmpfs (default when root) | none */
  bool quota_set;               /* SESSION_QUOTA given explicitly */
  uint64_t max_sessions;        /* MAX_SESSIONS (64) */
  uint64_t max_session_size;    /* MAX_SESSION_SIZE (104857600 bytes) */
  uint64_t max_session_entries; /* MAX_SESSION_ENTRIES (32768 inodes) */
  uint64_t max_attachments;     /* MAX_RESULT_ATTACHMENTS (256) */
  uint64_t max_output;          /* MAX_OUTPUT_SIZE (10485760): truncated past it */
  uint64_t max_code;            /* MAX_CODE_LENGTH (65536) */
  uint64_t timeout_s;           /* EXECUTION_TIMEOUT (20 s of wall clock) */
  uint64_t memory;              /* MAX_MEMORY (256M): the job's memory cgroup limit */
  uint64_t pids;                /* CONTAINER_PIDS_LIMIT (128) */
  uint64_t nofile;              /* CONTAINER_ULIMIT_NOFILE (1024): the job's RLIMIT_NOFILE */
  uint64_t fsize;               /* CONTAINER_ULIMIT_FSIZE (268435456): the job's RLIMIT_FSIZE */
  uint64_t tmp_size;            /* CONTAINER_TMPFS_SIZE (64m): the job's /tmp */
  uint64_t inactivity_s;        /* SESSION_INACTIVITY_TIMEOUT_SECONDS (1800) */
  uint64_t sweep_s;             /* SESSION_SWEEP_INTERVAL_SECONDS (60) */
  uint64_t lock_wait_s;         /* SESSION_LOCK_WAIT_TIMEOUT_SECONDS (30) */
};

/* Reads the variables with getenv(3).  Also records sc as the process's
 * sessions configuration (rc_session_config_get), so sc must outlive the
 * process's use of the API: pass a static or main()'s own variable. */
int rc_session_config_load (struct rc_session_config *sc, rc_err_t *err);
/* Same with a custom lookup (unit tests); does not record sc. */
int rc_session_config_parse (struct rc_session_config *sc, rc_getenv_fn get, void *userdata,
                             rc_err_t *err);
void rc_session_config_free (struct rc_session_config *sc);

/* The recorded configuration; when nobody called rc_session_config_load
 * yet, loads it now (NULL when the environment is malformed: the caller
 * answers 500 and the log names the variable). */
const struct rc_session_config *rc_session_config_get (void);

/* The sessions root for this service: sessions_dir or <state_dir>/sessions
 * (static storage, computed once). */
const char *rc_session_root (const struct rc_config *cfg, const struct rc_session_config *sc);

#endif
