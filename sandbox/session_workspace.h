/* session_workspace.h - the privileged host work of the sessions API.
 *
 * A session keeps its files between requests in a directory of its own;
 * with RUN_SESSION_QUOTA=tmpfs that directory is a tmpfs whose size and
 * inode count are the session's quotas.  Mounting it, the mount namespace
 * it lives in, and handing its tree to the slot's uid before a job runs
 * are root's work on the host, so they live here, in the sandbox layer;
 * fcgi/sessions/ only decides when to call them.
 */
#ifndef RUNCELL_SANDBOX_SESSION_WORKSPACE_H
#define RUNCELL_SANDBOX_SESSION_WORKSPACE_H

#include "common/config.h"
#include "common/error.h"

#include <stdint.h>
#include <sys/types.h>

/* Moves the calling process (the service, before it forks its workers)
 * into a mount namespace of its own with private propagation, so that
 * session mounts vanish with its last process however it ends and never
 * leak into the host's namespace. */
int rc_session_ws_host_namespace (rc_err_t *err);

/* Mounts a tmpfs on dir holding at most max_bytes and max_entries entries
 * (the root directory not counted). */
int rc_session_ws_mount_quota (const char *dir, uint64_t max_bytes, uint64_t max_entries,
                               rc_err_t *err);

/* Detaches whatever is mounted on dir; 0 also when nothing is. */
int rc_session_ws_unmount (const char *dir, rc_err_t *err);

/* Gives every entry of the tree below rootfd (the root included, at most
 * max_depth levels down) to uid:gid, without following symlinks; entries
 * already owned are not touched (their ctime stays, which change
 * detection relies on).  -1 with errno when some entry keeps its owner. */
int rc_session_ws_chown_tree (int rootfd, uid_t uid, gid_t gid, unsigned max_depth);

/* Lets only the web server's group (www-data) connect to the service's
 * unix socket; mode 0600 for root alone when there is no such group. */
void rc_host_restrict_unix_socket (const char *path);

#endif
