/* worker.h - a pre-forked worker: accepts FastCGI requests one at a time. */
#ifndef RUNCELL_FCGI_WORKER_H
#define RUNCELL_FCGI_WORKER_H

#include "common/config.h"
#include "common/lang.h"
#include "sandbox/sandbox.h"

#include <sys/types.h>

struct rc_worker_ctx
{
  const struct rc_config *cfg;
  const struct rc_lang_table *langs;
  enum rc_sandbox_mode mode;
  int listen_fd;
  unsigned index;
  pid_t master;
};

/* Never returns: serves until SIGTERM (drain) and _exits. */
void rc_worker_main (const struct rc_worker_ctx *ctx) __attribute__ ((noreturn));

#endif
