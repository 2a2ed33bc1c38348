/* master.c - the pre-fork master, in the manner of nginx's.
 *
 * Signal handlers only set sig_atomic_t flags; the master keeps the signals
 * blocked and waits for them in sigsuspend, so a flag is never missed
 * between a check and the wait.  Dead workers are reaped with
 * waitpid(-1, WNOHANG) in a loop and respawned, at most RESPAWN_BURST times
 * per RESPAWN_WINDOW_S (a worker that dies at start must not turn the master
 * into a fork loop).  The master is also the slots' keeper: it starts every
 * slot's init before the workers (sandbox/slot/keeper.c), reaps them with
 * the workers, restarts a slot whose init died, and ends the claims a dead
 * worker held (its slots' inits then clear its jobs away).  It is the
 * subreaper of everything below it: a process's supervisor, which a
 * worker forks and leaves (fcgi/processes/), is re-parented to it, reaped
 * here, and its claim and table entry are ended the same way.  On SIGTERM the master stops
 * respawning, passes SIGTERM on, lets jobs in flight finish, and escalates to SIGKILL only after
 * the longest job could have ended.
 */
#include "config.h"

#include "fcgi/master.h"
#include "common/clock.h"
#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/metrics.h"
#include "sandbox/build_dir.h"
#include "fcgi/processes/processes.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RESPAWN_BURST 10
#define RESPAWN_WINDOW_S 10

static volatile sig_atomic_t got_term, got_chld, got_alarm;

static void
on_signal (int sig)
{
  if (sig == SIGTERM || sig == SIGINT)
    got_term = 1;
  else if (sig == SIGCHLD)
    got_chld = 1;
  else if (sig == SIGALRM)
    got_alarm = 1;
}

static pid_t
spawn_worker (const struct rc_worker_ctx *proto, unsigned index)
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      struct rc_worker_ctx ctx = *proto;
      ctx.index = index;
      rc_worker_main (&ctx);
    }
  if (pid < 0)
    rc_log (RC_LOG_ERROR, "fork_failed", "worker %u: fork: %s", index, strerror (errno));
  return pid;
}

int
rc_master_run (const struct rc_worker_ctx *proto, unsigned n_workers)
{
  struct sigaction sa;
  sigset_t block, empty;
  pid_t *pids = calloc (n_workers, sizeof *pids);
  time_t window_start = rc_now_s (), drain_deadline = 0, next_sweep = 0;
  unsigned respawns = 0, alive = 0, i;
  struct rc_sandbox *sb = NULL;
  rc_err_t err = NULL;
  struct itimerval tick = { { 0, 200000 }, { 0, 200000 } };

  if (pids == NULL)
    return -1;
  /* Supervisors of processes outlive the worker that forked them. */
  (void)prctl (PR_SET_CHILD_SUBREAPER, 1);
  /* The slot table and every slot's init, before any worker exists. */
  if (rc_sandbox_open (&sb, proto->cfg, proto->mode, &err) < 0
      || rc_sandbox_keeper_start (sb, proto->langs, NULL, &err) < 0)
    {
      rc_log (RC_LOG_ERROR, "start_failed", "%s", rc_error_text (err));
      rc_error_free (&err);
      rc_sandbox_close (sb);
      free (pids);
      return -1;
    }
  sigemptyset (&block);
  sigaddset (&block, SIGTERM);
  sigaddset (&block, SIGINT);
  sigaddset (&block, SIGCHLD);
  sigaddset (&block, SIGALRM);
  sigprocmask (SIG_BLOCK, &block, NULL);
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGCHLD, &sa, NULL);
  sigaction (SIGALRM, &sa, NULL);
  sa.sa_handler = SIG_IGN;
  sigaction (SIGPIPE, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);

  for (i = 0; i < n_workers; i++)
    if ((pids[i] = spawn_worker (proto, i)) > 0)
      alive++;
  rc_log (RC_LOG_INFO, "started", "%u workers for %u slots", n_workers, rc_slot_table_size ());
  setitimer (ITIMER_REAL, &tick, NULL);
  sigemptyset (&empty);

  while (alive > 0 || (drain_deadline && rc_processes_count () > 0))
    {
      if (!got_term && !got_chld && !got_alarm)
        sigsuspend (&empty);
      if (got_term && drain_deadline == 0)
        {
          got_term = 0;
          /* Let the longest permitted job finish, plus a margin. */
          drain_deadline = rc_now_s () + (time_t)(proto->cfg->timeout_max_ms / 1000) + 15;
          rc_log (RC_LOG_INFO, "draining", "stopping %u workers", alive);
        }
      if (got_chld)
        {
          pid_t pid;
          int status;
          got_chld = 0;
          while ((pid = waitpid (-1, &status, WNOHANG)) > 0)
            {
              if (rc_sandbox_keeper_reaped (sb, pid, status))
                continue; /* a slot's init: restarted by the next tick */
              /* A process's supervisor, or a worker that was starting one:
               * what it held is given back. */
              if (rc_processes_reaped (proto->cfg, pid))
                rc_sandbox_keeper_tick (sb, pid);
              for (i = 0; i < n_workers && pids[i] != pid; i++)
                ;
              if (i == n_workers)
                continue;
              pids[i] = 0;
              alive--;
              /* Its claims end: their inits clear its jobs away; its
               * judge's build directories go. */
              rc_sandbox_keeper_tick (sb, pid);
              rc_build_dirs_sweep (proto->cfg, pid);
              if (drain_deadline)
                continue;
              rc_log (RC_LOG_WARN, "worker_exited", "worker %u (pid %ld) exited with status %d", i,
                      (long)pid, status);
              if (rc_now_s () - window_start >= RESPAWN_WINDOW_S)
                {
                  window_start = rc_now_s ();
                  respawns = 0;
                }
              if (respawns >= RESPAWN_BURST)
                continue; /* retried on a later tick */
              respawns++;
              rc_metrics_count_worker_restart ();
              if ((pids[i] = spawn_worker (proto, i)) > 0)
                alive++;
            }
        }
      if (got_alarm)
        {
          got_alarm = 0;
          rc_sandbox_keeper_tick (sb, 0);
          if (!drain_deadline && rc_now_s () >= next_sweep)
            {
              rc_sessions_sweep (proto->cfg);
              next_sweep = rc_now_s () + 1;
            }
          if (!drain_deadline)
            for (i = 0; i < n_workers; i++)
              if (pids[i] == 0 && respawns < RESPAWN_BURST)
                {
                  respawns++;
                  if ((pids[i] = spawn_worker (proto, i)) > 0)
                    alive++;
                }
        }
      got_term = 0; /* draining is remembered by drain_deadline */
      if (drain_deadline)
        {
          /* Repeat SIGTERM: a worker between two requests may have missed
           * the first one outside accept(). */
          int sig = rc_now_s () >= drain_deadline ? SIGKILL : SIGTERM;
          for (i = 0; i < n_workers; i++)
            if (pids[i] > 0)
              kill (pids[i], sig);
          /* Processes end (their programs killed): a stream would
           * otherwise hold its worker to the end of the program. */
          rc_processes_signal (sig);
        }
    }
  tick.it_value.tv_usec = tick.it_interval.tv_usec = 0;
  setitimer (ITIMER_REAL, &tick, NULL);
  rc_sandbox_keeper_stop (sb);
  rc_sandbox_close (sb);
  free (pids);
  rc_log (RC_LOG_INFO, "stopped", "all workers exited");
  return 0;
}
