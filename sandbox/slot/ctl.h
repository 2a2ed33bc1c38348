/* ctl.h - the control protocol between a slot's init and the process
 * that runs a job on the slot (a worker, `runcell exec`), and the job
 * spec's encoding for it.
 *
 * The init listens on a SOCK_SEQPACKET socket in the root-only state
 * directory (<state>/slot<N>.sock); the claimer connects, and one
 * connection carries one job:
 *
 *   claimer -> init  JOB seq, with SCM_RIGHTS: a memfd holding the spec
 *                    (rc_ctl_spec_encode), each step's stdin read end (when
 *                    the step has one), stdout and stderr write ends (none
 *                    for a tty step: the init makes its terminal), and
 *                    for a session its directory as a detached mount tree
 *                    GO step        run it (step 0 is sent with JOB)
 *                    KILL           kill every process of the job
 *                    SIGNAL sig     to the step's process group
 *                    END            the job is over: clear it away
 *   init -> claimer  STARTED step   exec'd; with SCM_RIGHTS the step's
 *                                   cgroup meter (cgroup.h) and its bases,
 *                                   and for a tty step (value 1) the
 *                                   terminal's master last
 *                    EXITED step    value: the wait status; flag UNMET:
 *                                   its memory limit could not be set,
 *                                   nothing ran
 *                    FAIL           "sandbox: <step> errno=N": the sandbox
 *                                   failed, no user code ran (or its result
 *                                   cannot be trusted)
 *
 * The connection closing is an END.  Each message is one datagram of
 * struct rc_ctl; the seq of a JOB is the slot's claim sequence
 * (slot_table.h), so a connection of a claim that is over is refused.
 */
#ifndef RUNCELL_SANDBOX_SLOT_CTL_H
#define RUNCELL_SANDBOX_SLOT_CTL_H

#include "common/job.h"
#include "sandbox/cgroup/cgroup.h"

#include <stddef.h>
#include <stdint.h>

enum rc_ctl_type
{
  /* claimer -> init */
  RC_CTL_JOB = 1,
  RC_CTL_GO,
  RC_CTL_KILL,
  RC_CTL_SIGNAL,
  RC_CTL_END,
  /* init -> claimer */
  RC_CTL_STARTED = 16,
  RC_CTL_EXITED,
  RC_CTL_FAIL,
};

#define RC_CTL_UNMET 1u /* EXITED: the step's memory limit could not be set */

struct rc_ctl
{
  uint32_t type;
  uint32_t step;
  int32_t value;
  uint32_t flags;
  uint64_t a, b, c; /* STARTED: the meter's bases */
  char text[160];
};

/* Most fds one message carries: three per step plus the spec and a
 * session tree (JOB), or a meter (STARTED). */
#define RC_CTL_MAX_FDS 64

/* 1 with a message (and *n_fds fds in fds, all O_CLOEXEC), 0 on EOF, -1
 * with errno. */
int rc_ctl_recv (int sock, struct rc_ctl *m, int *fds, size_t max_fds, size_t *n_fds);
int rc_ctl_send (int sock, const struct rc_ctl *m, const int *fds, size_t n_fds);
/* A message with only a type, a step and a value (and text for FAIL). */
int rc_ctl_send_simple (int sock, uint32_t type, uint32_t step, int32_t value, const char *text);

/* The meter of a STARTED message: bases in a, b, c and flags; the fds. */
void rc_ctl_put_meter (struct rc_ctl *m, const struct rc_cgroup_meter *meter, int *fds,
                       size_t *n_fds);
int rc_ctl_get_meter (const struct rc_ctl *m, const int *fds, size_t n_fds,
                      struct rc_cgroup_meter *meter);

/* The spec of a job, encoded into a memfd (claimer) and decoded from it
 * (init).  Stdin data stays with the claimer (it writes the pipe); the
 * slot is the claim's.  rc_ctl_spec_decode validates every offset and
 * points into the mapping, which rc_ctl_spec_free unmaps. */
int rc_ctl_spec_encode (const struct rc_job_spec *spec, int *memfd, rc_err_t *err);
struct rc_ctl_decoded
{
  struct rc_job_spec spec;
  void *map;
  size_t map_len;
  void *alloc; /* argv and env arrays, files, steps */
};
int rc_ctl_spec_decode (int memfd, struct rc_ctl_decoded *out);
void rc_ctl_spec_free (struct rc_ctl_decoded *d);

#endif
