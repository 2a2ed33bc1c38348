/* init.c - a slot's init: pid 1 of the slot's pid namespace, root, the one
 * process that builds the job's view and starts each step's first process.
 *
 * Its keeper clones it into fresh mount, pid, ipc and uts namespaces
 * (keeper.c).  It then, once:
 *   - makes itself what it must be beside hostile code: dies with its
 *     keeper, non-dumpable, every signal at its default (SIGCHLD blocked
 *     and read from a signalfd), never the OOM killer's choice;
 *   - joins its slot's cgroups (v1; on v2 it was born in its own leaf);
 *   - listens on <state>/slot<N>.sock for claimers (ctl.h), from the
 *     host's file system and network namespace, before it leaves them;
 *   - makes the jobs' network namespace, brings lo up there and notes how
 *     a fresh one looks (reset.c);
 *   - builds the root every job of the slot gets and pivots into it
 *     (root/root.c);
 *   - checks no process of its slot's uid exists outside it;
 * and says READY in the slot table.  Then, for each claim: a connection,
 * a JOB with its spec and pipes, the job's mounts (root/workspace.c), and
 * for each GO the step's cgroup (cgroup/), its view at /sys/fs/cgroup and
 * its first process, cloned CLONE_VM | CLONE_VFORK onto this process's
 * stack (and on v2 into the step's leaf) to run process/child.c until it
 * execs.  When the claimer says END (or its connection closes) the init
 * kills and reaps every other process of its pid namespace and resets, off
 * the next job's path, everything a job can observe (docs/sandbox.md has
 * the table): its mounts and /tmp, its cgroups, its IPC namespace, its
 * network namespace when the job touched it, the pid counter.  Then READY
 * again.  Any failure it cannot undo ends the init: the keeper sees the
 * slot BROKEN and starts a fresh one.
 */
#include "config.h"

#include "common/fds.h"
#include "common/log.h"
#include "sandbox/host/syscalls.h"
#include "sandbox/process/process.h"
#include "sandbox/slot/ctl.h"
#include "sandbox/slot/slot.h"
#include "sandbox/slot/slot_table.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_STEPS 16

struct init
{
  const struct rc_slot_init_args *a;
  struct rc_root root;
  struct rc_net_state net;
  int listen; /* claimers connect here */
  int sigfd;  /* SIGCHLD */
  int ns_last_pid;
  /* The job being served. */
  int conn;
  uint32_t seq;
  struct rc_ctl_decoded job;
  int in[MAX_STEPS], out[MAX_STEPS], err[MAX_STEPS];
  int session_fd;
  int tmp_fd;    /* the job's build directory (RC_TMP_BIND, RC_TMP_OVERLAY) */
  pid_t child;   /* the current step's first process, 0: none */
  unsigned step; /* its index */
};

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

/* A failure of the init itself: the slot is broken, a fresh init will
 * take its place (the claimer, if any, sees its connection close). */
static void __attribute__ ((noreturn)) die (struct init *in, const char *step, int errnum)
{
  char why[128];
  snprintf (why, sizeof why, "%s errno=%d (%s)", step, errnum, strerror (errnum));
  rc_slot_set_failure (in->a->slot, why);
  rc_log (RC_LOG_ERROR, "slot_init_failed", "slot %u: %s", in->a->slot, why);
  if (in->conn >= 0)
    {
      char msg[160];
      snprintf (msg, sizeof msg, "sandbox: %s errno=%d", step, errnum);
      (void)rc_ctl_send_simple (in->conn, RC_CTL_FAIL, in->step, errnum, msg);
    }
  rc_slot_mark_broken (in->a->slot);
  _exit (127);
}

static int
write_file (const char *path, const char *data)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  ssize_t k;
  if (fd < 0)
    return -1;
  k = write (fd, data, strlen (data));
  close (fd);
  return k < 0 ? -1 : 0;
}

/* It was forked from its keeper: it keeps stdio and its slot's cgroup
 * handle, nothing else (no listen socket, no other slot's files). */
static void
close_inherited (const struct rc_slot_init_args *a)
{
  int keep[64];
  size_t n = rc_cgroup_slot_fds (a->cg, keep, 63);

  keep[n++] = a->keeper_fd;
  rc_close_fds_except (keep, n);
}

/* Every signal at its default, so that what a job's first process
 * inherits (ignored signals survive exec) is what a fresh process has;
 * SIGCHLD blocked and read from a signalfd. */
static int
signals_setup (void)
{
  struct sigaction dfl;
  sigset_t chld;

  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; s++)
    if (s != SIGKILL && s != SIGSTOP)
      (void)sigaction (s, &dfl, NULL);
  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  if (sigprocmask (SIG_SETMASK, &chld, NULL) < 0)
    return -1;
  return signalfd (-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
}

static int
listen_at (const char *path)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int fd;
  if (strlen (path) >= sizeof sa.sun_path)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  strcpy (sa.sun_path, path);
  fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  (void)unlink (path); /* an init before this one's */
  if (bind (fd, (struct sockaddr *)&sa, sizeof sa) < 0 || chmod (path, 0600) < 0
      || listen (fd, 64) < 0)
    {
      int saved = errno;
      close (fd);
      errno = saved;
      return -1;
    }
  return fd;
}

/* ---- one job ---------------------------------------------------------- */

static void
job_reset_fds (struct init *in)
{
  for (int i = 0; i < MAX_STEPS; i++)
    in->in[i] = in->out[i] = in->err[i] = -1;
  in->session_fd = in->tmp_fd = -1;
}

static void
job_close_fds (struct init *in)
{
  for (int i = 0; i < MAX_STEPS; i++)
    {
      close_fd (&in->in[i]);
      close_fd (&in->out[i]);
      close_fd (&in->err[i]);
    }
  close_fd (&in->session_fd);
  close_fd (&in->tmp_fd);
}

/* Takes JOB: the spec and the pipe ends.  0: a job to serve; 1: an END
 * of the current claim before any job (its claimer died before it could
 * send one: the keeper ends the claim); -1: a connection to drop (a stale
 * claim, a malformed message, or closed at once). */
static int
job_receive (struct init *in)
{
  int fds[RC_CTL_MAX_FDS];
  size_t n = 0, used = 1;
  struct rc_slot_view v;
  struct rc_ctl m;
  const struct rc_job_spec *spec;

  if (rc_ctl_recv (in->conn, &m, fds, RC_CTL_MAX_FDS, &n) <= 0)
    return -1;
  rc_slot_table_read (in->a->slot, &v);
  if (v.state != RC_SLOT_RUNNING || v.seq != ((uint32_t)m.value & 0xffffff))
    goto drop;
  if (m.type == RC_CTL_END)
    {
      in->seq = (uint32_t)m.value;
      for (size_t i = 0; i < n; i++)
        close (fds[i]);
      return 1;
    }
  if (m.type != RC_CTL_JOB || n == 0)
    goto drop;
  in->seq = (uint32_t)m.value;
  if (rc_ctl_spec_decode (fds[0], &in->job) < 0)
    goto drop;
  close (fds[0]);
  spec = &in->job.spec;
  /* The fds come in step order: stdin's read end when the step has
   * stdin, then stdout's and stderr's write ends; a session's tree, then
   * the build directory's, last. */
  for (size_t i = 0; i < spec->n_steps && i < MAX_STEPS; i++)
    {
      if (spec->steps[i].tty)
        continue; /* its stdio is the terminal the init makes */
      if (spec->steps[i].stdin_data)
        in->in[i] = used < n ? fds[used++] : -1;
      in->out[i] = used < n ? fds[used++] : -1;
      in->err[i] = used < n ? fds[used++] : -1;
    }
  if (spec->workspace == RC_WORKSPACE_BIND)
    in->session_fd = used < n ? fds[used++] : -1;
  if (spec->tmp != RC_TMP_FRESH)
    in->tmp_fd = used < n ? fds[used++] : -1;
  while (used < n)
    close (fds[used++]);
  return 0;
drop:
  for (size_t i = 0; i < n; i++)
    close (fds[i]);
  return -1;
}

/* The step's first process: cloned onto this stack, into the step's
 * cgroup (v2), until it execs (CLONE_VFORK).  A tty step gets a terminal
 * (root/workspace.c) whose master goes to the claimer with STARTED.  0
 * with STARTED sent; 1 with EXITED UNMET sent; -1: a sandbox failure (FAIL
 * sent). */
static int
step_start (struct init *in, unsigned i)
{
  const struct rc_job_spec *spec = &in->job.spec;
  const struct rc_step *st = &spec->steps[i];
  struct rc_cgroup_meter meter;
  struct rc_clone_args args = { .flags = CLONE_VM | CLONE_VFORK, .exit_signal = SIGCHLD };
  struct rc_child_ctx c;
  int errp[2], clone_fd = -1, join_fd = -1, fds[RC_CG_METER_FDS + 1], master = -1, slave = -1;
  size_t n_fds = 0;
  int r;
  bool unmet = false;
  char buf[160];
  rc_err_t err = NULL;
  struct rc_ctl m = { .type = RC_CTL_STARTED, .step = i };
  long pid;
  ssize_t k;

  in->step = i;
  if (rc_cgroup_step_prepare (in->a->cg, i, st->limits.memory_bytes, st->limits.pids, &meter,
                              &clone_fd, &join_fd, &unmet, &err)
      < 0)
    goto fail;
  if (unmet)
    {
      struct rc_ctl x = { .type = RC_CTL_EXITED, .step = i, .flags = RC_CTL_UNMET };
      return rc_ctl_send (in->conn, &x, NULL, 0) < 0 ? -1 : 1;
    }
  {
    char mask[32];
    snprintf (mask, sizeof mask, "/proc/self/fd/%d", in->root.mask_file);
    if (rc_cgroup_step_view (in->a->cg, i, "/sys/fs/cgroup", mask, &err) < 0)
      goto fail;
  }
  if (st->tty)
    {
      const char *what = NULL;
      if (rc_root_job_tty (&in->root, in->a->uid, in->a->gid, &master, &slave, &what) < 0)
        {
          rc_error_sys (&err, "%s", what);
          goto fail;
        }
    }
  if (pipe2 (errp, O_CLOEXEC) < 0)
    {
      rc_error_sys (&err, "error pipe");
      goto fail;
    }
  c = (struct rc_child_ctx){ .step = st,
                             .envp = spec->envp,
                             .in = st->tty ? slave : in->in[i],
                             .out = st->tty ? slave : in->out[i],
                             .err = st->tty ? slave : in->err[i],
                             .ctty = st->tty,
                             .errpipe = errp[1],
                             .uid = in->a->uid,
                             .gid = in->a->gid,
                             .cap_last = in->a->cap_last,
                             .cgroup_join = join_fd,
                             .new_cgroupns = clone_fd >= 0 || join_fd >= 0,
                             .seccomp = in->a->seccomp };
  if (clone_fd >= 0)
    {
      args.flags |= CLONE_INTO_CGROUP;
      args.cgroup = (uint64_t)clone_fd;
    }
  /* Returns once the child has exec'd or exited: the vfork parent waits,
   * and the child runs below this frame, on this stack. */
  pid = rc_clone3_raw (&args, rc_child_main, &c);
  close (errp[1]);
  close_fd (&slave);
  close_fd (&in->in[i]);
  close_fd (&in->out[i]);
  close_fd (&in->err[i]);
  if (pid < 0)
    {
      close (errp[0]);
      rc_error_set (&err, (int)-pid, "clone errno=%d", (int)-pid);
      goto fail;
    }
  in->child = (pid_t)pid;
  /* EOF: the exec succeeded (the pipe is CLOEXEC); data: setup failed. */
  do
    k = read (errp[0], buf, sizeof buf - 1);
  while (k < 0 && errno == EINTR);
  close (errp[0]);
  if (k > 0)
    {
      buf[k] = '\0';
      close_fd (&master);
      (void)rc_ctl_send_simple (in->conn, RC_CTL_FAIL, i, 0, buf);
      return -1;
    }
  rc_ctl_put_meter (&m, &meter, fds, &n_fds);
  if (master >= 0)
    {
      m.value = 1;
      fds[n_fds++] = master;
    }
  r = rc_ctl_send (in->conn, &m, fds, n_fds) < 0 ? -1 : 0;
  close_fd (&master);
  return r;
fail:
  close_fd (&master);
  close_fd (&slave);
  snprintf (buf, sizeof buf, "sandbox: step %u: %s errno=%d", i, rc_error_text (err),
            err ? err->status : EIO);
  rc_error_free (&err);
  (void)rc_ctl_send_simple (in->conn, RC_CTL_FAIL, i, 0, buf);
  return -1;
}

/* Reaps what died; EXITED for the step's first process. */
static int
reap (struct init *in)
{
  struct signalfd_siginfo si;
  int st;
  pid_t pid;

  while (read (in->sigfd, &si, sizeof si) > 0)
    ;
  while ((pid = waitpid (-1, &st, WNOHANG | __WALL)) > 0)
    if (pid == in->child)
      {
        in->child = 0;
        if (rc_ctl_send_simple (in->conn, RC_CTL_EXITED, in->step, st, NULL) < 0)
          return -1;
      }
  return 0;
}

/* After a FAIL: what the claimer sent meanwhile (a GO) is read until it
 * ends the job, so the connection never closes with a message unread (the
 * claimer would then read ECONNRESET, not the FAIL).  Bounded: a claimer
 * that neither ends nor closes within 5 s is dropped. */
static void
drain_until_end (struct init *in)
{
  struct pollfd p = { .fd = in->conn, .events = POLLIN };
  struct rc_ctl m;
  while (poll (&p, 1, 5000) > 0 && rc_ctl_recv (in->conn, &m, NULL, 0, NULL) > 0
         && m.type != RC_CTL_END)
    ;
}

/* Serves the job until its claimer ends it. */
static void
job_serve (struct init *in)
{
  const char *step = NULL;
  struct rc_root_job rj = { .spec = &in->job.spec,
                            .lower = rc_root_lower_of (&in->root, in->job.spec.template_dir),
                            .lang = rc_root_lang_of (&in->root, in->job.spec.lang),
                            .session_fd = in->session_fd,
                            .tmp_fd = in->tmp_fd,
                            .uid = in->a->uid,
                            .gid = in->a->gid };

  if (rc_root_job_mount (&in->root, &rj, &step) < 0)
    {
      char msg[160];
      snprintf (msg, sizeof msg, "sandbox: %s errno=%d", step, errno);
      (void)rc_ctl_send_simple (in->conn, RC_CTL_FAIL, 0, errno, msg);
      drain_until_end (in);
      return;
    }
  close_fd (&in->session_fd);
  close_fd (&in->tmp_fd);
  for (;;)
    {
      struct pollfd pfd[2]
          = { { .fd = in->conn, .events = POLLIN }, { .fd = in->sigfd, .events = POLLIN } };
      struct rc_ctl m;
      int r;

      if (poll (pfd, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return;
        }
      if (pfd[1].revents && reap (in) < 0)
        return;
      if (!pfd[0].revents)
        continue;
      r = rc_ctl_recv (in->conn, &m, NULL, 0, NULL);
      if (r <= 0)
        return; /* the claimer is gone: an END */
      switch (m.type)
        {
        case RC_CTL_GO:
          if (in->child != 0 || m.step >= in->job.spec.n_steps || m.step >= MAX_STEPS)
            return;
          if (step_start (in, m.step) < 0)
            {
              drain_until_end (in);
              return;
            }
          break;
        case RC_CTL_KILL:
          /* pid 1 reaches every other process of its namespace; a fork
           * racing it either finished first (its child is signalled too)
           * or fails on the parent's pending SIGKILL. */
          (void)kill (-1, SIGKILL);
          break;
        case RC_CTL_SIGNAL:
          if (in->child > 0 && m.value > 0 && m.value < NSIG)
            (void)kill (-in->child, m.value);
          break;
        case RC_CTL_END:
          return;
        default:
          return;
        }
    }
}

/* Everything the job could leave for the next one, reset; see the top. */
static void
job_clear (struct init *in)
{
  const char *step = NULL;
  rc_err_t err = NULL;
  bool new_memcg = false, new_netns = false;
  long r;

  (void)kill (-1, SIGKILL);
  for (;;)
    {
      r = rc_raw_syscall4 (SYS_wait4, -1, 0, __WALL, 0);
      if (r == -ECHILD)
        break;
      if (r < 0 && r != -EINTR)
        die (in, "reap", (int)-r);
    }
  in->child = 0;
  {
    struct signalfd_siginfo si;
    while (read (in->sigfd, &si, sizeof si) > 0)
      ;
  }
  job_close_fds (in);
  rc_ctl_spec_free (&in->job);
  close_fd (&in->conn);
  in->step = 0;
  if (rc_root_job_clear (&in->root, &step) < 0)
    die (in, step, errno);
  if (rc_cgroup_job_clear (in->a->cg, &new_memcg, &err) < 0)
    die (in, "cgroup clear", err ? err->status : EIO);
  /* SysV IPC and POSIX queues: a new namespace, ids counting from where a
   * fresh one starts. */
  if (unshare (CLONE_NEWIPC) < 0)
    die (in, "unshare ipc namespace", errno);
  if (rc_net_reset (&in->net, &new_netns) < 0)
    die (in, "network namespace", errno);
  if (new_memcg || new_netns)
    rc_log (RC_LOG_DEBUG, "slot_renewed", "slot %u:%s%s", in->a->slot,
            new_memcg ? " a new memory cgroup" : "", new_netns ? " a new network namespace" : "");
  /* Pid numbering: the next process is pid 2, as in a fresh namespace. */
  if (pwrite (in->ns_last_pid, "1", 1, 0) != 1)
    die (in, "ns_last_pid", errno);
}

void
rc_slot_init_main (const struct rc_slot_init_args *a)
{
  struct init in = { .a = a, .listen = -1, .sigfd = -1, .ns_last_pid = -1, .conn = -1 };
  const char *step = NULL;
  rc_err_t err = NULL;

  for (int i = 0; i < 3; i++)
    in.net.fds[i] = -1;
  job_reset_fds (&in);
  /* The keeper dying must take the slot with it; one that died before
   * the prctl shows on its pidfd (getppid says 0 across the pid
   * namespace). */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
    _exit (1);
  {
    struct pollfd p = { .fd = a->keeper_fd, .events = POLLIN };
    if (a->keeper_fd < 0 || poll (&p, 1, 0) != 0)
      _exit (1);
  }
  close_inherited (a);
  close (a->keeper_fd);
  in.sigfd = signals_setup ();
  if (in.sigfd < 0)
    die (&in, "signals", errno);
  /* The bounding set of every process of every job: empty, once here
   * (each step's first process only checks it, rc_child_lock_caps). */
  for (unsigned long c = 0; c <= a->cap_last && c < 64; c++)
    if (prctl (PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && !(errno == EINVAL && c > 0))
      die (&in, "capability bounding set", errno);
  /* Non-dumpable: a step's first process runs on this memory until it
   * execs; between its setresuid and its execve no process of the slot
   * uid may reach it through /proc/<pid>/mem. */
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    die (&in, "dumpable", errno);
  /* Never a job's: the OOM killer takes the job, not its init (each job's
   * first process sets 1000).  -1000 needs CAP_SYS_RESOURCE, which a
   * container may have dropped: then the init stays at what it inherited,
   * and on v1, where it shares its slot's memory cgroup with the job, an
   * OOM kill may take it with the job; the keeper restarts the slot. */
  if (write_file ("/proc/self/oom_score_adj", "-1000") < 0 && errno != EACCES)
    die (&in, "oom_score_adj", errno);
  if (sethostname ("runcell", 7) < 0 || setdomainname ("runcell", 7) < 0)
    die (&in, "sethostname", errno);
  umask (0);
  if (rc_cgroup_slot_enter (a->cg, &err) < 0)
    die (&in, "cgroup enter", err ? err->status : EIO);
  in.listen = listen_at (a->sock_path);
  if (in.listen < 0)
    die (&in, "listen", errno);
  /* The jobs' network namespace, made after the control socket, which
   * stays in the host's (none of theirs shows it). */
  if (unshare (CLONE_NEWNET) < 0)
    die (&in, "unshare network namespace", errno);
  if (rc_root_build (a->plan, a->cg, &in.root, &step) < 0)
    die (&in, step, errno);
  in.ns_last_pid = in.root.ns_last_pid;
  if (rc_net_fresh (&in.net) < 0)
    die (&in, "lo up", errno);
  {
    int n = rc_uid_has_processes (a->uid);
    if (n != 0)
      die (&in,
           n < 0 ? "look for processes of the slot's uid"
                 : "processes of the slot's uid outside its cgroup (another runcell or runner "
                   "on the same RUN_UID_BASE?)",
           n < 0 ? errno : EBUSY);
  }
  if (pwrite (in.ns_last_pid, "1", 1, 0) != 1)
    die (&in, "ns_last_pid", errno);
  if (!rc_slot_mark_ready (a->slot, getpid ()))
    die (&in, "slot state", EPROTO);

  for (;;)
    {
      struct ucred cred;
      socklen_t len = sizeof cred;
      in.conn = accept4 (in.listen, NULL, NULL, SOCK_CLOEXEC);
      if (in.conn < 0)
        {
          if (errno == EINTR || errno == ECONNABORTED)
            continue;
          die (&in, "accept", errno);
        }
      /* The socket is in a root-only directory; the peer is checked all
       * the same. */
      int r = -1;
      if (getsockopt (in.conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == 0)
        r = job_receive (&in);
      if (r < 0)
        {
          close_fd (&in.conn);
          continue;
        }
      if (r == 0)
        job_serve (&in);
      if (!rc_slot_mark_cleaning (a->slot, in.seq))
        die (&in, "slot state", EPROTO);
      job_clear (&in);
      /* The keeper wants a fresh init here (the host's files changed under
       * the root, or a reload): leave, it starts one. */
      if (rc_slot_take_retire (a->slot))
        _exit (0);
      if (!rc_slot_mark_ready (a->slot, getpid ()))
        _exit (0);
    }
}
