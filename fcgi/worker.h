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
  /* This worker's epoll set on listen_fd (rc_worker_listen_wait_open),
   * made by the master for each index in order, or -1: the worker makes
   * its own. */
  int listen_wait;
  unsigned index;
  pid_t master;
};

/* An epoll set holding listen_fd with EPOLLEXCLUSIVE (worker.c has why);
 * -1 on failure. */
int rc_worker_listen_wait_open (int listen_fd);
/* Never returns: serves until SIGTERM (drain) and _exits. */
void rc_worker_main (const struct rc_worker_ctx *ctx) __attribute__ ((noreturn));

#endif
