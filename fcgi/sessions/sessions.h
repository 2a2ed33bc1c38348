/* sessions.h - the session store: persistent working directories on disk.
 *
 * Pre-forked workers share nothing in memory, so a session is only what is
 * on disk below the sessions root (RUN_SESSIONS_DIR):
 *
 *   <root>/.lock          flock'd while creating (MAX_SESSIONS is counted
 *                         under it)
 *   <root>/meta/<id>      one file per session: its flock is the session
 *                         lock, its mtime the last activity (idle expiry),
 *                         its content the name of the data directory
 *   <root>/data/<name>    the session's files; with SESSION_QUOTA=tmpfs a
 *                         tmpfs of its own (size=MAX_SESSION_SIZE,
 *                         nr_inodes=MAX_SESSION_ENTRIES+1) is mounted here
 *
 * <id> is 128 bits from getrandom(2) in hex; <name> is another, unrelated
 * 128 bits, so nothing a job can see (the directory it is given, mountinfo)
 * leads back to the id.  Only the API and the master's sweep touch the
 * store; a job sees its data directory at /sandbox and nothing else.
 */
#ifndef RUNCELL_FCGI_SESSIONS_H
#define RUNCELL_FCGI_SESSIONS_H

#include "common/config.h"
#include "common/error.h"
#include "common/job.h"

#include <stdbool.h>

#define RC_SESSION_ID_LEN 32

struct rc_session
{
  char id[RC_SESSION_ID_LEN + 1];
  int lockfd; /* <root>/meta/<id>, flock LOCK_EX held */
  int dirfd;  /* the data directory, O_RDONLY|O_DIRECTORY */
  char *data_path;
};

/* Writes the JSON listing {"path": ..., "entries": [...]} of a directory
 * (session_list.c). */
int rc_session_list_json (int dirfd, const char *path, struct rc_buf *out);

/* True for 32 lowercase hex digits. */
bool rc_session_id_valid (const char *id, size_t len);

/* Creates a session and returns it locked.  wanted_id, when it is a
 * valid id not in use, becomes the session's id: nginx passes its random
 * 128-bit $request_id, so that behind an upstream hashed on it the session
 * is created on the host its later requests (hashed on the id) reach.
 * Otherwise the id comes from getrandom. */
int rc_session_create (const struct rc_config *cfg, const char *wanted_id, struct rc_session *s,
                       rc_err_t *err);
/* True when a session with this id exists (no lock taken). */
bool rc_session_exists (const struct rc_config *cfg, const char *id);
/* Opens and locks a session, waiting up to SESSION_LOCK_WAIT_TIMEOUT_SECONDS. */
int rc_session_open (const struct rc_config *cfg, const char *id, struct rc_session *s,
                     rc_err_t *err);
/* Records activity (the idle clock restarts), unlocks, closes. */
void rc_session_release (struct rc_session *s);
/* Removes a locked session (files, quota mount, record) and closes it.
 * Works whatever a job left: modes, FIFOs, deep trees. */
int rc_session_destroy (const struct rc_config *cfg, struct rc_session *s, rc_err_t *err);

/* Master, before forking the workers (root): creates the root, removes
 * sessions left by an earlier run and, with SESSION_QUOTA=tmpfs, moves the
 * service into a private mount namespace so that every session mount
 * disappears with the service, even after SIGKILL.  Workers inherit it. */
int rc_sessions_host_setup (const struct rc_config *cfg, rc_err_t *err);
/* Master, at exit: removes every session. */
void rc_sessions_host_teardown (const struct rc_config *cfg);

/* Number of live sessions (for tests and metrics). */
int rc_sessions_count (const struct rc_config *cfg);

#endif
