/* master.h - the pre-fork master: owns the listen socket and the workers. */
#ifndef RUNCELL_FCGI_MASTER_H
#define RUNCELL_FCGI_MASTER_H

#include "fcgi/worker.h"

/* Starts the slots' inits, forks the workers, reaps and respawns both, and
 * on SIGTERM/SIGINT drains (in-flight jobs finish) and returns 0. */
int rc_master_run (const struct rc_worker_ctx *proto, unsigned n_workers);

#endif
