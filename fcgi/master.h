/* master.h - the pre-fork master: owns the listen socket and the workers. */
#ifndef RUNCELL_FCGI_MASTER_H
#define RUNCELL_FCGI_MASTER_H

#include "fcgi/worker.h"

/* Starts the slots' inits, runs the canary job, forks the workers (a pool
 * that grows and shrinks between RUN_CONCURRENCY + RUN_SPARE_WORKERS and
 * RUN_WORKERS_MAX), reaps and respawns them, reloads on SIGHUP, and on
 * SIGTERM/SIGINT drains (in-flight jobs finish) and returns 0.  < 0 when
 * the service could not start (the reason is logged).  listen_override:
 * the --listen of the command line, which a reload keeps. */
int rc_master_run (const struct rc_worker_ctx *proto, const char *listen_override);

/* The configuration and languages of a reload (fcgi/reload.c): 0 with
 * fresh copies the caller owns, < 0 with err and nothing changed. */
int rc_reload_load (const struct rc_config *old, const struct rc_lang_table *old_langs,
                    const char *listen_override, enum rc_sandbox_mode mode, struct rc_config **cfg,
                    struct rc_lang_table **langs, rc_err_t *err);

#endif
