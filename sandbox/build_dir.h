/* build_dir.h - the judge's build directories: where a program compiled
 * once lives while its tests run.
 *
 * One directory per compile of a request, <RUN_STATE_DIR>/judge/<pid>.<n>,
 * with a tmpfs of its own mounted on it (size= the language's /tmp size,
 * mode 1777 like a /tmp), in the service's private mount namespace (the
 * sessions' one: it vanishes with the service however it ends).  The
 * compile job gets it as its /tmp (RC_TMP_BIND), each test as the
 * read-only lower of its /tmp (RC_TMP_OVERLAY).  Mounting and removing are
 * root's host work, so they live here; fcgi/judge/ decides when.
 */
#ifndef RUNCELL_SANDBOX_BUILD_DIR_H
#define RUNCELL_SANDBOX_BUILD_DIR_H

#include "common/config.h"
#include "common/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* At the service's start, before the workers: the judge directory, empty
 * (what a service killed before left is unmounted and removed), and, when
 * no one made one yet (private_ns false), the service's private mount
 * namespace. */
int rc_build_dirs_host_setup (const struct rc_config *cfg, bool private_ns, rc_err_t *err);

struct rc_build_dir
{
  char path[512];
  int fd; /* O_PATH | O_DIRECTORY of the tmpfs's root, -1: none */
  bool mounted;
};
/* A new directory of this process with a tmpfs of max_bytes on it. */
int rc_build_dir_create (const struct rc_config *cfg, uint64_t max_bytes, struct rc_build_dir *d,
                         rc_err_t *err);
/* Unmounts (lazily: a job's init may still hold a reference for a moment)
 * and removes it; nothing when it was never made. */
void rc_build_dir_remove (struct rc_build_dir *d);
/* Removes the directories a process left (owner 0: every one). */
void rc_build_dirs_sweep (const struct rc_config *cfg, pid_t owner);

#endif
