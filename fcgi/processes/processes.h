/* processes.h - the processes of /v1/processes as the rest of the service
 * sees them: the master's part (the table before the fork, the reaping
 * of supervisors, the drain).  The handlers are in app.h; how a process
 * lives is in supervisor.h. */
#ifndef RUNCELL_FCGI_PROCESSES_PROCESSES_H
#define RUNCELL_FCGI_PROCESSES_PROCESSES_H

#include "common/config.h"
#include "common/error.h"

#include <stdbool.h>
#include <sys/types.h>

/* Master, before forking (root): the shared table and the sockets'
 * directory, <RUN_STATE_DIR>/proc, emptied of an earlier run's. */
int rc_processes_setup (const struct rc_config *cfg, rc_err_t *err);
/* Master, for each child it reaps that is not a worker or an init: true
 * when it answered for a process (its entry is freed and its socket
 * removed; the caller ends its slot claim).  Also for a worker: the
 * processes it was starting are forgotten. */
bool rc_processes_reaped (const struct rc_config *cfg, pid_t pid);
/* Master's drain: sig to every supervisor; how many exist. */
void rc_processes_signal (int sig);
unsigned rc_processes_count (void);

#endif
