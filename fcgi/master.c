/* master.c - the pre-fork master, in the manner of nginx's.
 *
 * Signal handlers only set sig_atomic_t flags; the master keeps the signals
 * blocked and waits for them in sigsuspend, so a flag is never missed
 * between a check and the wait.  Dead workers are reaped with
 * waitpid(-1, WNOHANG) in a loop.  The master is also the slots' keeper:
 * it starts every slot's init before the workers (sandbox/slot/keeper.c),
 * reaps them with the workers, restarts a slot whose init died, and ends
 * the claims (and gives up the queue tickets) a dead worker held.
 *
 * Start: every slot's init is READY and a canary job ran (fcgi/canary.c),
 * or runcell does not start: a configuration under which no job can run
 * is found here, not as a 500 per job.
 *
 * The pool (fcgi/pool.h): RUN_CONCURRENCY + RUN_SPARE_WORKERS workers at
 * least.  When a worker takes a request and fewer than RUN_SPARE_WORKERS
 * are idle, it sends SIGUSR1 and the master forks more, up to
 * RUN_WORKERS_MAX; so requests waiting in the queue, or streams a client
 * reads slowly, never leave /health without a worker.  Idle workers above
 * twice the spares, for IDLE_RETIRE_MS, are retired one a second.  A
 * worker that dies of anything but a retirement is replaced at most
 * RESPAWN_BURST times per RESPAWN_WINDOW_S (a worker that dies at start
 * must not turn the master into a fork loop).
 *
 * SIGHUP: the configuration and the languages are read again
 * (fcgi/reload.c), the slots' roots renewed (idle inits at once, busy
 * ones after their job), and every worker replaced, one by one: a new one
 * is forked before an old one is told to leave, and an old one answers
 * the request it holds before it goes.
 *
 * The master is the subreaper of everything below it: a process's
 * supervisor, which a worker forks and leaves (fcgi/processes/), is
 * re-parented to it, reaped here, and its claim and table entry are ended
 * the same way.
 *
 * SIGTERM: no more forks; SIGTERM is passed on (the processes' programs
 * are ended too: a stream would otherwise hold its worker to the end of
 * the program), jobs in flight finish, and SIGKILL follows only after the
 * longest job could have ended.
 */
#include "config.h"

#include "fcgi/master.h"
#include "common/clock.h"
#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/metrics.h"
#include "fcgi/pool.h"
#include "fcgi/processes/processes.h"
#include "sandbox/build_dir.h"

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
#define IDLE_RETIRE_MS 5000
/* How long the slots have to become READY at start, and the start
 * canary's wait for one. */
#define START_READY_MS 60000

static volatile sig_atomic_t got_term, got_chld, got_alarm, got_hup, got_usr1;

static void
on_signal (int sig)
{
  if (sig == SIGTERM || sig == SIGINT)
    got_term = 1;
  else if (sig == SIGCHLD)
    got_chld = 1;
  else if (sig == SIGALRM)
    got_alarm = 1;
  else if (sig == SIGHUP)
    got_hup = 1;
  else if (sig == SIGUSR1)
    got_usr1 = 1;
}

struct master
{
  struct rc_worker_ctx proto; /* the current configuration and languages */
  struct rc_config *cfg;      /* after a reload: ours to free; else NULL (main's) */
  struct rc_lang_table *langs;
  const char *listen_override;
  struct rc_sandbox *sb;
  pid_t *pids;          /* per pool entry, 0: none */
  unsigned *generation; /* the reload a worker was forked after */
  unsigned max, min, alive, current_generation;
  time_t window_start;
  unsigned crashes;       /* in the current respawn window */
  uint64_t surplus_since; /* idle workers above the retire threshold since */
  uint64_t last_retire_ms;
  time_t drain_deadline;
};

static void
spawn_worker (struct master *m, unsigned index)
{
  pid_t pid;
  rc_pool_set (index, RC_WORKER_STARTING);
  pid = fork ();
  if (pid == 0)
    {
      struct rc_worker_ctx ctx = m->proto;
      ctx.index = index;
      rc_worker_main (&ctx);
    }
  if (pid < 0)
    {
      rc_log (RC_LOG_ERROR, "fork_failed", "worker %u: fork: %s", index, strerror (errno));
      rc_pool_set (index, RC_WORKER_EMPTY);
      return;
    }
  m->pids[index] = pid;
  m->generation[index] = m->current_generation;
  m->alive++;
}

static int
free_entry (const struct master *m)
{
  for (unsigned i = 0; i < m->max; i++)
    if (m->pids[i] == 0)
      return (int)i;
  return -1;
}

/* Forks while the pool is below its floor, or while too few workers are
 * idle (and the ceiling allows). */
static void
grow (struct master *m)
{
  unsigned spare = m->proto.cfg->spare_workers;
  if (m->drain_deadline)
    return;
  if (rc_now_s () - m->window_start >= RESPAWN_WINDOW_S)
    {
      m->window_start = rc_now_s ();
      m->crashes = 0;
    }
  if (m->crashes >= RESPAWN_BURST)
    return; /* workers die at start: retried in a later window */
  rc_pool_heard ();
  while (m->alive < m->max
         && (m->alive < m->min
             || rc_pool_count (RC_WORKER_IDLE) + rc_pool_count (RC_WORKER_STARTING) < spare))
    {
      int i = free_entry (m);
      if (i < 0)
        break;
      spawn_worker (m, (unsigned)i);
    }
}

/* Tells an idle worker to leave once the pool has had more idle ones than
 * it needs for a while. */
static void
shrink (struct master *m)
{
  unsigned idle = rc_pool_count (RC_WORKER_IDLE), spare = m->proto.cfg->spare_workers;
  uint64_t now = rc_now_ms ();
  if (m->drain_deadline || m->alive <= m->min || idle <= 2 * spare)
    {
      m->surplus_since = 0;
      return;
    }
  if (m->surplus_since == 0)
    m->surplus_since = now;
  if (now - m->surplus_since < IDLE_RETIRE_MS || now - m->last_retire_ms < 1000)
    return;
  /* The highest entry: the pool keeps its low entries, which were there
   * first. */
  for (unsigned i = m->max; i-- > 0;)
    if (m->pids[i] > 0 && rc_pool_state (i) == RC_WORKER_IDLE)
      {
        rc_pool_set (i, RC_WORKER_LEAVING);
        kill (m->pids[i], SIGTERM);
        m->last_retire_ms = now;
        break;
      }
}

/* Workers forked before the last reload leave, one by one, each after a
 * new one was forked in its place. */
static void
replace_old_workers (struct master *m)
{
  for (unsigned i = 0; i < m->max && !m->drain_deadline; i++)
    {
      int fresh;
      if (m->pids[i] <= 0 || m->generation[i] == m->current_generation
          || rc_pool_state (i) == RC_WORKER_LEAVING)
        continue;
      if ((fresh = free_entry (m)) >= 0)
        spawn_worker (m, (unsigned)fresh);
      rc_pool_set (i, RC_WORKER_LEAVING);
      kill (m->pids[i], SIGTERM);
    }
}

static void
reload (struct master *m)
{
  struct rc_config *cfg = NULL;
  struct rc_lang_table *langs = NULL;
  rc_err_t err = NULL;

  rc_log (RC_LOG_INFO, "reloading", "SIGHUP: reading the configuration and languages again");
  if (rc_reload_load (m->proto.cfg, m->proto.langs, m->listen_override, m->proto.mode, &cfg, &langs,
                      &err)
          < 0
      || rc_sandbox_keeper_reload (m->sb, cfg, langs, &err) < 0)
    {
      rc_log (RC_LOG_ERROR, "reload_failed", "%s; the running configuration is kept",
              rc_error_text (err));
      rc_error_free (&err);
      if (cfg && cfg != m->proto.cfg)
        {
          /* The keeper may point at it already: put the old one back. */
          (void)rc_sandbox_keeper_reload (m->sb, m->proto.cfg, m->proto.langs, NULL);
          rc_lang_table_free (langs);
          free (langs);
          rc_config_free (cfg);
          free (cfg);
        }
      return;
    }
  rc_metrics_add_langs (langs);
  if (m->cfg)
    {
      rc_lang_table_free (m->langs);
      free (m->langs);
      rc_config_free (m->cfg);
      free (m->cfg);
    }
  m->cfg = cfg;
  m->langs = langs;
  m->proto.cfg = cfg;
  m->proto.langs = langs;
  m->current_generation++;
  replace_old_workers (m);
  rc_log (RC_LOG_INFO, "reloaded", "%zu languages; workers replaced one by one", langs->n);
}

static void
reap (struct master *m)
{
  pid_t pid;
  int status;
  while ((pid = waitpid (-1, &status, WNOHANG)) > 0)
    {
      unsigned i;
      bool retired;
      if (rc_sandbox_keeper_reaped (m->sb, pid, status))
        continue; /* a slot's init: restarted by the next tick */
      /* A process's supervisor, or a worker that was starting one: what
       * it held is given back. */
      if (rc_processes_reaped (m->proto.cfg, pid))
        rc_sandbox_keeper_tick (m->sb, pid);
      for (i = 0; i < m->max && m->pids[i] != pid; i++)
        ;
      if (i == m->max)
        continue;
      retired = rc_pool_state (i) == RC_WORKER_LEAVING;
      m->pids[i] = 0;
      m->alive--;
      rc_pool_set (i, RC_WORKER_EMPTY);
      /* Its queue tickets and claims end: their inits clear its jobs; its
       * judge's build directories go. */
      rc_slot_queue_forget (pid);
      rc_sandbox_keeper_tick (m->sb, pid);
      rc_build_dirs_sweep (m->proto.cfg, pid);
      if (m->drain_deadline || (retired && WIFEXITED (status) && WEXITSTATUS (status) == 0))
        continue;
      rc_log (RC_LOG_WARN, "worker_exited", "worker %u (pid %ld) exited with status %d", i,
              (long)pid, status);
      m->crashes++;
      rc_metrics_count_worker_restart ();
    }
}

/* The canary job in a child of its own, before any worker exists: a
 * worker's setup, one job, its verdict as the exit status. */
static int
start_canary (struct master *m)
{
  int status = 0;
  pid_t pid = fork ();
  if (pid == 0)
    {
      struct rc_app app = { .cfg = m->proto.cfg, .langs = m->proto.langs };
      rc_err_t err = NULL;
      if (rc_sandbox_open (&app.sandbox, app.cfg, m->proto.mode, &err) < 0
          || rc_sandbox_drop_bounding (app.sandbox, &err) < 0
          || rc_app_canary (&app, START_READY_MS, &err) < 0)
        {
          rc_log (RC_LOG_ERROR, "start_failed", "no job can run: %s", rc_error_text (err));
          _exit (1);
        }
      rc_sandbox_end_claims (app.sandbox, true);
      _exit (0);
    }
  if (pid < 0)
    return -1;
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : -1;
}

static int
start (struct master *m)
{
  rc_err_t err = NULL;
  /* The slot table and every slot's init, before any worker exists. */
  if (rc_sandbox_open (&m->sb, m->proto.cfg, m->proto.mode, &err) < 0
      || rc_sandbox_keeper_start (m->sb, m->proto.langs, NULL, &err) < 0
      || rc_sandbox_keeper_wait_ready (m->sb, START_READY_MS, &err) < 0)
    {
      rc_log (RC_LOG_ERROR, "start_failed", "%s", rc_error_text (err));
      rc_error_free (&err);
      return -1;
    }
  if (rc_pool_create (m->max) < 0)
    {
      rc_log (RC_LOG_ERROR, "start_failed", "worker scoreboard: %s", strerror (errno));
      return -1;
    }
  return start_canary (m);
}

static void
install_signals (void)
{
  struct sigaction sa;
  sigset_t block;
  static const int caught[] = { SIGTERM, SIGINT, SIGCHLD, SIGALRM, SIGHUP, SIGUSR1 };

  sigemptyset (&block);
  for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
    sigaddset (&block, caught[i]);
  sigprocmask (SIG_BLOCK, &block, NULL);
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
    sigaction (caught[i], &sa, NULL);
  sa.sa_handler = SIG_IGN;
  sigaction (SIGPIPE, &sa, NULL);
}

int
rc_master_run (const struct rc_worker_ctx *proto, const char *listen_override)
{
  struct master m = { .proto = *proto, .listen_override = listen_override };
  struct itimerval tick = { { 0, 200000 }, { 0, 200000 } };
  sigset_t empty;
  time_t next_sweep = 0;
  int ret = 0;

  m.max = proto->cfg->workers_max;
  m.min = proto->cfg->concurrency + proto->cfg->spare_workers;
  m.window_start = rc_now_s ();
  m.pids = calloc (m.max, sizeof *m.pids);
  m.generation = calloc (m.max, sizeof *m.generation);
  /* Signals first: the canary and the inits are children (SIGCHLD), and a
   * SIGTERM during the start is kept for the loop. */
  install_signals ();
  /* Supervisors of processes outlive the worker that forked them. */
  (void)prctl (PR_SET_CHILD_SUBREAPER, 1);
  if (m.pids == NULL || m.generation == NULL || start (&m) < 0)
    {
      ret = -1;
      goto out;
    }
  grow (&m);
  rc_log (RC_LOG_INFO, "started", "%u workers for %u slots (at most %u workers)", m.alive,
          rc_slot_table_size (), m.max);
  setitimer (ITIMER_REAL, &tick, NULL);
  sigemptyset (&empty);

  while (m.alive > 0 || !m.drain_deadline || rc_processes_count () > 0)
    {
      if (!got_term && !got_chld && !got_alarm && !got_hup && !got_usr1)
        sigsuspend (&empty);
      if (got_term && m.drain_deadline == 0)
        {
          /* Let the longest permitted job finish, plus a margin. */
          m.drain_deadline = rc_now_s () + (time_t)(m.proto.cfg->timeout_max_ms / 1000) + 15;
          rc_log (RC_LOG_INFO, "draining", "stopping %u workers", m.alive);
        }
      got_term = 0; /* draining is remembered by drain_deadline */
      if (got_chld)
        {
          got_chld = 0;
          reap (&m);
        }
      if (got_hup)
        {
          got_hup = 0;
          if (!m.drain_deadline)
            reload (&m);
        }
      if (got_usr1)
        {
          got_usr1 = 0;
          grow (&m);
        }
      if (got_alarm)
        {
          got_alarm = 0;
          rc_sandbox_keeper_tick (m.sb, 0);
          if (!m.drain_deadline && rc_now_s () >= next_sweep)
            {
              rc_sessions_sweep (m.proto.cfg);
              next_sweep = rc_now_s () + 1;
            }
          grow (&m);
          shrink (&m);
        }
      if (m.drain_deadline)
        {
          /* Repeat SIGTERM: a worker between two requests may have missed
           * the first one outside accept(). */
          int sig = rc_now_s () >= m.drain_deadline ? SIGKILL : SIGTERM;
          for (unsigned i = 0; i < m.max; i++)
            if (m.pids[i] > 0)
              kill (m.pids[i], sig);
          rc_processes_signal (sig);
        }
    }
  tick.it_value.tv_usec = tick.it_interval.tv_usec = 0;
  setitimer (ITIMER_REAL, &tick, NULL);
  rc_log (RC_LOG_INFO, "stopped", "all workers exited");
out:
  if (m.sb)
    {
      rc_sandbox_keeper_stop (m.sb);
      rc_sandbox_close (m.sb);
    }
  if (m.cfg)
    {
      rc_lang_table_free (m.langs);
      free (m.langs);
      rc_config_free (m.cfg);
      free (m.cfg);
    }
  free (m.pids);
  free (m.generation);
  return ret;
}
