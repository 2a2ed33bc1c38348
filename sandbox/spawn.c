/* spawn.c - the isolated mode: one job from clone to the last reap.
 *
 * The worker (root, host namespaces) creates every pipe the job needs, then
 * clones the namespace init into fresh mount, pid, ipc, uts, net and cgroup
 * namespaces: on cgroup v1 on the worker's own memory, through a shim
 * ("The init on the worker's memory", below), elsewhere as a fork.  The
 * init (pid 1 of its pid namespace, root) builds the mount view (mounts.c)
 * and then, for each step the worker releases, vforks the user child,
 * which drops to the slot uid and execs.  The protocol on the control
 * socket is in the theory of operation in sandbox.c.
 */
#include "config.h"

#include "common/log.h"
#include "sandbox/libmount_lazy.h"
#include "sandbox/sandbox_internal.h"
#include "sandbox/syscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RC_SETUP_TIMEOUT_MS 10000
/* A resident init clears a job in well under a millisecond; one that takes
 * longer than this (a process stuck in the kernel) is killed instead. */
#define RC_RESIDENT_CLEAN_MS 2000
/* Inputs bigger than this take the cold path (virtual size; only what a
 * job writes is backed). */
#define RC_JOB_ARENA_BYTES (64u << 20)

enum rc_ctl_type
{
  /* worker -> init */
  RC_CTL_GO = 2,     /* run step .step */
  RC_CTL_GO_JOB = 3, /* to a pre-started init: the job is in the arena, its
                      * slot is .step, its pipe ends ride along (SCM_RIGHTS) */
  RC_CTL_END = 4,    /* to a resident init: the job is over, clear it away */
  /* init -> worker */
  RC_CTL_READY = 10, /* mount view built */
  RC_CTL_FAIL,       /* setup failed: text is "sandbox: <step> errno=N" */
  RC_CTL_STARTED,    /* step .step exec'd */
  RC_CTL_EXITED,     /* step .step ended: value is the wait status */
  RC_CTL_CLEAN,      /* resident: the job's processes and mounts are gone */
};

struct rc_ctl
{
  uint32_t type;
  uint32_t step;
  int32_t value;
  char text[160];
};

struct rc_step_fds
{
  int in_r, in_w; /* -1 when stdin is /dev/null */
  int out_r, out_w;
  int err_r, err_w;
};

struct rc_job
{
  struct rc_sandbox *sb;
  const struct rc_job_spec *spec;
  struct rc_cgroup_slot *slot;
  struct rc_mount_plan plan;
  struct rc_step_fds fds[RC_SANDBOX_MAX_STEPS];
  int ctl_w, ctl_i; /* worker and init ends of the control socket */
  pid_t init_pid;
  uint64_t t0, started_us;
  unsigned cur_step;
  bool init_dead;
  /* The init is a resident one ("The resident init", below): reused, it
   * served an earlier job; keep, the job ended cleanly and the init goes
   * back to the sandbox for the next one; key, what its view holds. */
  bool resident, reused, keep;
  bool intruder; /* the slot held another process's resident (slot_take_over) */
  bool batch;    /* the init is a SCHED_BATCH task: its children are not */
  char *key;
  /* Set when init_pid is the shim of an init on the worker's memory
   * (below): the init's own pid is in the area once it is cloned. */
  struct rc_init_area *shim_area;
};

/* An init on the worker's memory works from this copy of its job, at the
 * top of its slot's stack ("The init on the worker's memory", below). */
#define INIT_STACK_BYTES (1u << 20) /* ASan frames included; touched pages only */

struct rc_init_area
{
  struct rc_job job;
  bool need_attach;
  struct rc_clone_args init_args; /* the shim's clone of the init */
  volatile pid_t init_pid;        /* CLONE_PARENT_SETTID: set before it runs */
  volatile int clone_errno;       /* the shim's clone failed */
};

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

static int
ctl_send (int fd, uint32_t type, uint32_t step, int32_t value, const char *text)
{
  struct rc_ctl m = { .type = type, .step = step, .value = value };
  if (text)
    {
      size_t n = strlen (text);
      if (n >= sizeof m.text)
        n = sizeof m.text - 1;
      memcpy (m.text, text, n);
    }
  for (;;)
    {
      ssize_t k = send (fd, &m, sizeof m, MSG_NOSIGNAL);
      if (k == (ssize_t)sizeof m)
        return 0;
      if (k < 0 && errno == EINTR)
        continue;
      return -1;
    }
}

/* 1 with a message, 0 on EOF, -1 on error. */
static int
ctl_recv (int fd, struct rc_ctl *m)
{
  for (;;)
    {
      ssize_t k = recv (fd, m, sizeof *m, 0);
      if (k == (ssize_t)sizeof *m)
        {
          m->text[sizeof m->text - 1] = '\0';
          return 1;
        }
      if (k == 0)
        return 0;
      if (k < 0 && errno == EINTR)
        continue;
      if (k > 0)
        errno = EPROTO;
      return -1;
    }
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

/* ---- the user child (forked by the init) ------------------------------- */

static void __attribute__ ((noreturn)) user_child (struct rc_job *job, unsigned i, int errpipe)
{
  const struct rc_step *st = &job->spec->steps[i];
  struct rc_step_fds *f = &job->fds[i];
  uid_t uid = job->plan.uid, ru, eu, su;
  gid_t gid = job->plan.gid, rg, eg, sg;
  int errfd, r;

  errfd = fcntl (errpipe, F_DUPFD_CLOEXEC, 3);
  if (errfd < 0)
    rc_child_fail (errpipe, "error pipe", errno);
  /* No controlling tty, own session: a TIOCSTI on an inherited terminal
   * would need one, and kill(-pgid) from the job cannot reach the init. */
  if (setsid () < 0)
    rc_child_fail (errfd, "setsid", errno);
  if (rc_child_setup_stdio (f->in_r, f->out_w, f->err_w) < 0)
    rc_child_fail (errfd, "stdio", errno);
  if (rc_child_set_rlimits (&st->limits) < 0)
    rc_child_fail (errfd, "rlimits", errno);
  /* A resident init is a batch task (warm_init_main); the job runs under
   * the normal policy, as it would in any other init. */
  if (job->batch)
    {
      struct sched_param normal = { 0 };
      if (sched_setscheduler (0, SCHED_OTHER, &normal) < 0)
        rc_child_fail (errfd, "sched_setscheduler", errno);
    }
  if (rc_child_lock_caps (job->sb->cap_last) < 0)
    rc_child_fail (errfd, "capability bounding set", errno);
  /* setgroups first: root's supplementary groups (disk, adm) must not
   * survive the uid change. */
  if (setgroups (0, NULL) < 0)
    rc_child_fail (errfd, "setgroups", errno);
  if (setresgid (gid, gid, gid) < 0)
    rc_child_fail (errfd, "setresgid", errno);
  if (setresuid (uid, uid, uid) < 0)
    rc_child_fail (errfd, "setresuid", errno);
  if (getresuid (&ru, &eu, &su) < 0 || getresgid (&rg, &eg, &sg) < 0 || ru == 0 || eu == 0
      || su == 0 || rg == 0 || eg == 0 || sg == 0 || getgroups (0, NULL) != 0)
    rc_child_fail (errfd, "verify uid", EPERM);
  /* The uid change reset the mm's dumpable flag to fs.suid_dumpable
   * (commit_creds), and this mm is still the init's (vfork), which may be
   * the worker's own: make it
   * non-dumpable again so no process of the slot uid can open
   * /proc/<pid>/mem on it before the exec.  With suid_dumpable 0 or 2 it
   * never became ptraceable by the slot uid; `runcell --check-host` refuses
   * 1, where a microsecond between setresuid and this call remains.  The
   * exec gives the program a fresh mm, dumpable as usual. */
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    rc_child_fail (errfd, "dumpable", errno);
  if (rc_child_clear_caps () < 0)
    rc_child_fail (errfd, "clear capabilities", errno);
  /* The init builds the view with umask 0 (modes are explicit there);
   * the program gets the usual 022. */
  umask (022);
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    rc_child_fail (errfd, "no_new_privs", errno);
  /* Only 0-2 may reach the program; errfd is CLOEXEC and goes at exec. */
  if (rc_close_range (3, (unsigned)errfd - 1, 0) < 0
      || rc_close_range ((unsigned)errfd + 1, ~0U, 0) < 0)
    {
      int fd;
      if (errno != ENOSYS)
        rc_child_fail (errfd, "close_range", errno);
      for (fd = 3; fd < 65536; fd++)
        if (fd != errfd)
          close (fd);
    }
  if (chdir ("/sandbox") < 0)
    rc_child_fail (errfd, "chdir /sandbox", errno);
  if (job->sb->have_seccomp)
    {
      r = rc_seccomp_load (&job->sb->seccomp);
      if (r < 0)
        rc_child_fail (errfd, "seccomp", -r);
    }
  /* On the job's PATH; environ is the worker's and stays so. */
  rc_child_exec (st->argv, job->spec->envp);
}

/* ---- the namespace init -------------------------------------------------- */

/* Exits after a FAIL message.  Whatever the worker sent that the init
 * never read is drained first: a unix socket closed with unread data
 * makes the peer's next read fail with ECONNRESET before it sees the FAIL
 * message, and the step name would be lost. */
static void __attribute__ ((noreturn)) init_exit_after_fail (struct rc_job *job)
{
  char sink[512];
  while (recv (job->ctl_i, sink, sizeof sink, MSG_DONTWAIT) > 0)
    ;
  _exit (127);
}

static void
init_fail (struct rc_job *job, const char *step, int errnum)
{
  char msg[160];
  snprintf (msg, sizeof msg, "sandbox: %s errno=%d", step, errnum);
  ctl_send (job->ctl_i, RC_CTL_FAIL, job->cur_step, errnum, msg);
  init_exit_after_fail (job);
}

/* What the init does whatever the job: dies with the worker, hides its
 * memory, goes first under memory pressure, names the host. */
static void
init_common (struct rc_job *job)
{
  /* The worker dying must take the namespace with it. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
    init_fail (job, "pdeathsig", errno);
  /* Non-dumpable: the user child is vforked and shares this memory until
   * it execs; between its setresuid and its execve, a process of the slot
   * uid (a daemon of an earlier step) must not reach that memory through
   * /proc/<pid>/mem, whatever fs.suid_dumpable says.  execve gives the
   * program a fresh, dumpable mm of its own. */
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    init_fail (job, "dumpable", errno);
  /* Under global memory pressure the job goes first, never the service. */
  if (write_file ("/proc/self/oom_score_adj", "1000") < 0)
    init_fail (job, "oom_score_adj", errno);
  if (sethostname ("runcell", 7) < 0 || setdomainname ("runcell", 7) < 0)
    init_fail (job, "sethostname", errno);
  umask (0);
}

/* Joins the slot: its network namespace, its cgroup, then a cgroup
 * namespace rooted there. */
static void
init_join_slot (struct rc_job *job, bool need_attach)
{
  /* The slot's pre-made network namespace: only lo.  Joined, not
   * created, because creating one per job costs more than the rest of the
   * namespaces together (docs/sandbox.md has the figures). */
  if (setns (job->sb->netns[job->spec->slot], CLONE_NEWNET) < 0)
    init_fail (job, "setns net", errno);
  /* v1: the init moves itself into the slot's hierarchies before anything
   * of the job runs in it.  Moving itself by thread id 0 spares the
   * kernel's global threadgroup lock, whose write side costs an RCU grace
   * period when the worker moves a pid (docs/sandbox.md, "Changes made for speed"), and
   * it saves the worker a round trip on the control socket. */
  if (need_attach && rc_cgroup_slot_attach (job->slot, 0, NULL) < 0)
    init_fail (job, "cgroup attach", errno);
  /* The cgroup namespace is made here, once we are in the slot, so it is
   * rooted there: one code path for v2 and for v1, where we move only
   * after the clone. */
  if (unshare (CLONE_NEWCGROUP) < 0)
    init_fail (job, "unshare cgroup namespace", errno);
}

/* The view is built: say so, then run each step the worker releases.
 * Returns only in a resident init, when the worker ends the job. */
static void
init_serve (struct rc_job *job, bool resident)
{
  const struct rc_job_spec *spec = job->spec;
  struct rc_ctl m;

  if (ctl_send (job->ctl_i, RC_CTL_READY, 0, 0, NULL) < 0)
    _exit (127);

  for (;;)
    {
      int errp[2], st = 0, r;
      pid_t child, w;
      char buf[160];
      ssize_t k;

      /* Orphans of earlier steps (daemons) are reaped as they die.  Raw
       * waits here and below: with no child left, wait4 fails (ECHILD),
       * and errno may be the worker's (rc_raw_syscall4). */
      while (rc_raw_syscall4 (SYS_wait4, -1, 0, WNOHANG, 0) > 0)
        ;
      r = ctl_recv (job->ctl_i, &m);
      if (r <= 0)
        _exit (0); /* the worker is done with us: the kernel kills the rest */
      if (resident && m.type == RC_CTL_END)
        return;
      if (m.type != RC_CTL_GO || m.step >= spec->n_steps)
        _exit (127);
      job->cur_step = m.step;
      if (pipe2 (errp, O_CLOEXEC) < 0)
        init_fail (job, "error pipe", errno);
      /* vfork: the child only makes system calls until it execs or
       * _exits, and sharing the init's memory spares copying page tables
       * and the copy-on-write faults after it (fork is expensive on
       * paravirtualised hosts).  errp[0] is CLOEXEC, so the child never
       * needs to close it. */
      child = vfork ();
      if (child < 0)
        init_fail (job, "fork", errno);
      if (child == 0)
        user_child (job, m.step, errp[1]);
      close (errp[1]);
      close_fd (&job->fds[m.step].in_r);
      close_fd (&job->fds[m.step].out_w);
      close_fd (&job->fds[m.step].err_w);
      /* EOF: exec succeeded (the pipe is CLOEXEC); data: setup failed. */
      do
        k = read (errp[0], buf, sizeof buf - 1);
      while (k < 0 && errno == EINTR);
      close (errp[0]);
      if (k > 0)
        {
          buf[k] = '\0';
          ctl_send (job->ctl_i, RC_CTL_FAIL, m.step, 0, buf);
          init_exit_after_fail (job);
        }
      ctl_send (job->ctl_i, RC_CTL_STARTED, m.step, 0, NULL);
      for (;;)
        {
          w = (pid_t)rc_raw_syscall4 (SYS_wait4, -1, (long)&st, 0, 0);
          if (w == child)
            break;
          if (w < 0 && w != -EINTR)
            _exit (127);
        }
      if (ctl_send (job->ctl_i, RC_CTL_EXITED, m.step, st, NULL) < 0)
        _exit (0);
    }
}

/* The init of a job cloned for it (the cold path). */
static void __attribute__ ((noreturn)) init_main (struct rc_job *job, bool need_attach)
{
  const struct rc_job_spec *spec = job->spec;
  const char *step = NULL;
  unsigned i;

  close_fd (&job->ctl_w);
  for (i = 0; i < spec->n_steps; i++)
    {
      close_fd (&job->fds[i].in_w);
      close_fd (&job->fds[i].out_r);
      close_fd (&job->fds[i].err_r);
    }
  init_common (job);
  init_join_slot (job, need_attach);
  if (rc_mounts_build (&job->plan, &step) < 0)
    init_fail (job, step, errno);
  init_serve (job, false);
  _exit (127);
}

/* ---- the pre-started init ------------------------------------------------
 *
 * A caller that enables it (rc_sandbox_set_prestart) keeps one init
 * started ahead of the next job: cloned with its mount, pid, ipc and uts
 * namespaces, with the half of the view that owes nothing to the job built
 * (rc_mounts_build_base), waiting on its control socket.  The clone, the
 * copy-on-write faults after it and most mount calls then happen while the
 * worker has nothing else to do (after its reply) or on the core a running
 * job leaves free, not on the next request's path.  A GO_JOB message
 * hands it the job: its spec in the shared arena (job_arena.c), its slot,
 * and its pipe ends; the init then joins the slot's network namespace and
 * cgroup, builds the job's half of the view and goes on exactly as a cold
 * init.  It has run nothing of anyone before
 * that message, and it serves that job only, unless the sandbox keeps it
 * as a resident init (below) for the next job of the same slot and
 * language.  Sessions (a host directory as workspace) always take the
 * cold path.
 */

static int
cmp_int (const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* It was forked from a worker in the middle of its work: it keeps stdio,
 * its control socket and what joining a slot needs, nothing else (no pipe
 * of another job, no FastCGI connection). */
#define KEEP_PER_SLOT 33 /* its netns, and room for every hierarchy's fds */

static void
warm_close_others (struct rc_sandbox *sb, int ctl, int root_fd)
{
  size_t cap = 2 + (size_t)sb->n_slots * KEEP_PER_SLOT, n = 0, i;
  int *keep = malloc (cap * sizeof (int));
  unsigned from = 3;

  /* Only this process runs here (no thread shares it): malloc is safe. */
  if (keep == NULL)
    _exit (127); /* the worker sees it dead and takes the cold path */
  keep[n++] = ctl;
  if (root_fd >= 0)
    keep[n++] = root_fd;
  for (i = 0; i < sb->n_slots; i++)
    {
      if (sb->netns[i] >= 0)
        keep[n++] = sb->netns[i];
      if (sb->slots[i])
        n += rc_cgroup_slot_attach_fds (sb->slots[i], keep + n, cap - n);
    }
  qsort (keep, n, sizeof keep[0], cmp_int);
  for (i = 0; i < n; i++)
    {
      if (keep[i] < 3 || (unsigned)keep[i] < from)
        continue;
      if ((unsigned)keep[i] > from)
        (void)rc_close_range (from, (unsigned)keep[i] - 1, 0);
      from = (unsigned)keep[i] + 1;
    }
  (void)rc_close_range (from, ~0U, 0);
  free (keep);
}

/* ---- the resident init ------------------------------------------------------
 *
 * A caller that runs many jobs (a worker, `runcell exec --repeat`) keeps a
 * slot's namespace init from one job to the next (rc_sandbox_set_resident,
 * RUN_RESIDENT_INIT).  It is a pre-started init (above) that, once its job
 * ended cleanly, is not killed: the worker sends END, the init clears the
 * job away and answers CLEAN, and the next job of the same slot, template
 * and host paths is handed to it with GO_JOB as to any pre-started init.
 * What a job costs then is its own part of the view (a /tmp, a workspace
 * overlay, an IPC namespace) and its processes; the namespaces' creation
 * and teardown, /proc with its masks, /sys, the cgroup view, the root
 * attach and the pivot are paid once per resident, not per job.
 *
 * What one job could leave for the next, and why nothing is left:
 * - processes: the init is pid 1 of the job's pid namespace; its
 *   kill(-1, SIGKILL) reaches every other process there, and a fork that
 *   races it either finished first (its child is signalled too) or fails
 *   on the parent's pending SIGKILL.  The init then reaps until ECHILD:
 *   orphans of the namespace are its children, so nothing is left.  Only
 *   then does it answer CLEAN, and the worker checks the slot's cgroup
 *   holds the init alone before the slot is used again.
 * - files: /tmp and the workspace overlay are unmounted (their tmpfs goes
 *   with them); everything else of the view is read-only or the job's own
 *   namespace (/proc, /sys), and the job has no capability to mount.
 * - SysV IPC and POSIX queues: every job after the first gets a new IPC
 *   namespace (unshare), the one of the job before goes with it.
 * - the host name, the cgroup namespace, the network namespace (the slot's
 *   own, shared by all its jobs in any case): not writable without a
 *   capability.
 * A job whose clock fired, whose init died or whose sandbox failed kills
 * its init as a cold job does; the next job gets a fresh one.  Sessions
 * (a host directory as workspace) and languages with cache overlays never
 * get a resident.
 */

/* Ends the job in a resident init: every process of the namespace killed
 * and reaped, its pipe ends closed, /tmp and the workspace unmounted.
 * What the next job needs whatever it is, a new IPC namespace and a fresh
 * /tmp (mounted with tmp_opts, this job's options), is made now, before
 * CLEAN, off the next job's path. */
static void
resident_clear (struct rc_job *job, const char *tmp_opts)
{
  const char *step = NULL;
  size_t i;
  long r;

  (void)kill (-1, SIGKILL);
  for (;;)
    {
      r = rc_raw_syscall4 (SYS_wait4, -1, 0, __WALL, 0);
      if (r == -ECHILD)
        break;
      if (r < 0 && r != -EINTR)
        _exit (127);
    }
  for (i = 0; i < RC_SANDBOX_MAX_STEPS; i++)
    {
      close_fd (&job->fds[i].in_r);
      close_fd (&job->fds[i].out_w);
      close_fd (&job->fds[i].err_w);
    }
  if (unshare (CLONE_NEWIPC) < 0)
    init_fail (job, "unshare ipc namespace", errno);
  if (rc_mounts_job_clear (tmp_opts, &step) < 0)
    init_fail (job, step, errno);
  if (ctl_send (job->ctl_i, RC_CTL_CLEAN, 0, 0, NULL) < 0)
    _exit (0);
}

/* Takes a GO_JOB: the job from the arena, its pipe ends from the message.
 * Returns the slot the worker named; exits when the worker is gone. */
static unsigned
warm_receive (struct rc_sandbox *sb, struct rc_job *job)
{
  int fds[RC_SANDBOX_MAX_STEPS * 3];
  char cbuf[CMSG_SPACE (sizeof fds)];
  struct rc_ctl m;
  struct iovec iov = { .iov_base = &m, .iov_len = sizeof m };
  struct msghdr mh
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  const struct rc_mount_plan *plan;
  struct cmsghdr *c;
  size_t n = 0, i, used = 0;
  ssize_t k;

  do
    k = recvmsg (job->ctl_i, &mh, MSG_CMSG_CLOEXEC);
  while (k < 0 && errno == EINTR);
  if (k == 0)
    _exit (0); /* the worker is gone or closed us: nobody needs us */
  if (k != (ssize_t)sizeof m || m.type != RC_CTL_GO_JOB)
    _exit (127);
  for (c = CMSG_FIRSTHDR (&mh); c; c = CMSG_NXTHDR (&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      {
        n = (c->cmsg_len - CMSG_LEN (0)) / sizeof (int);
        memcpy (fds, CMSG_DATA (c), n * sizeof (int));
      }
  plan = rc_job_arena_plan (sb->arena);
  job->plan = *plan;
  job->spec = plan->spec;
  job->cur_step = 0;
  memset (job->fds, 0xff, sizeof job->fds);
  if (m.step >= sb->n_slots || (int)m.step != job->spec->slot || sb->slots[m.step] == NULL)
    init_fail (job, "pre-started init: slot", EINVAL);
  /* The fds come in step order: stdin's read end if the step has stdin,
   * then stdout's and stderr's write ends. */
  for (i = 0; i < job->spec->n_steps; i++)
    {
      if (job->spec->steps[i].stdin_data)
        job->fds[i].in_r = used < n ? fds[used++] : -1;
      job->fds[i].out_w = used < n ? fds[used++] : -1;
      job->fds[i].err_w = used < n ? fds[used++] : -1;
      if (job->fds[i].out_w < 0 || job->fds[i].err_w < 0
          || (job->spec->steps[i].stdin_data && job->fds[i].in_r < 0))
        init_fail (job, "pre-started init: pipes", EPROTO);
    }
  return m.step;
}

static void __attribute__ ((noreturn)) warm_init_main (struct rc_sandbox *sb, int ctl, int root_fd)
{
  struct rc_job job = { .sb = sb, .ctl_w = -1, .ctl_i = ctl, .init_pid = -1 };
  int lowers[2] = { -1, -1 };
  char tmp_opts[RC_TMP_OPTS_MAX];
  const char *step = NULL;
  bool root_cloned = root_fd >= 0;
  unsigned slot, first_slot = 0;

  memset (job.fds, 0xff, sizeof job.fds);
  warm_close_others (sb, ctl, root_fd);
  init_common (&job);
  {
    /* It works between the worker's answer and its next wait for a
     * connection (the END of a job): as a batch task it does not preempt
     * the worker on its wake-up, so the worker reaches that wait first and
     * stays first in line (fcgi/worker.c).  The user child goes back to
     * the normal policy (user_child). */
    struct sched_param none = { 0 };
    job.batch = sched_setscheduler (0, SCHED_BATCH, &none) == 0;
  }
  if (rc_mounts_build_base (root_fd, rc_slot_uid (sb->cfg, 0), sb->n_slots, &step) < 0)
    init_fail (&job, step, errno);

  slot = first_slot = warm_receive (sb, &job);
  job.slot = sb->slots[slot];
  init_join_slot (&job, true);
  if (rc_mounts_build_job (&job.plan, root_cloned, lowers, &step) < 0)
    init_fail (&job, step, errno);
  for (;;)
    {
      /* Before the job can end: its spec lives in the worker's arena. */
      rc_mounts_tmp_options (job.spec, tmp_opts);
      init_serve (&job, true);
      resident_clear (&job, tmp_opts);
      /* The worker hands a resident only a job of its slot, template and
       * host paths (warm_take); the slot is checked here too. */
      slot = warm_receive (sb, &job);
      if (slot != first_slot)
        init_fail (&job, "resident init: slot", EINVAL);
      if (rc_mounts_job_again (&job.plan, lowers, tmp_opts, &step) < 0)
        init_fail (&job, step, errno);
    }
}

/* Starts the worker's next init ahead of its job.  Best effort: on any
 * failure the next job simply takes the cold path. */
static void
warm_start (struct rc_sandbox *sb)
{
  struct rc_clone_args args = { .flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS,
                                .exit_signal = SIGCHLD };
  struct rc_cgroup_slot *unused;
  int sp[2], root_fd;
  pid_t pid;

  if (sb->warm_pid > 0)
    return;
  {
    rc_err_t err = NULL;
    if (rc_sandbox_drop_bounding (sb, &err) < 0)
      {
        rc_error_free (&err);
        return;
      }
  }
  if (sb->arena == NULL && (sb->arena = rc_job_arena_new (RC_JOB_ARENA_BYTES)) == NULL)
    return;
  /* Every slot's cgroup handle and network namespace must exist before
   * the fork: the init can join any of them, and opens nothing itself. */
  for (unsigned i = 0; i < sb->n_slots; i++)
    {
      rc_err_t err = NULL;
      if (rc_sandbox_get_slot (sb, (int)i, &unused, &err) < 0)
        {
          rc_error_free (&err);
          return;
        }
    }
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
    return;
  root_fd = rc_root_template_clone (sb);
  pid = rc_clone3 (&args);
  if (pid == 0)
    warm_init_main (sb, sp[1], root_fd);
  if (root_fd >= 0)
    close (root_fd);
  close (sp[1]);
  if (pid < 0)
    {
      close (sp[0]);
      return;
    }
  sb->warm_pid = pid;
  sb->warm_ctl = sp[0];
  sb->warm_root_cloned = root_fd >= 0;
}

void
rc_sandbox_prestart (struct rc_sandbox *sb)
{
  if (sb->prestart != RC_PRESTART_OFF)
    warm_start (sb);
}

void
rc_sandbox_warm_stop (struct rc_sandbox *sb)
{
  if (sb->warm_pid > 0)
    {
      kill (sb->warm_pid, SIGKILL);
      while (waitpid (sb->warm_pid, NULL, 0) < 0 && errno == EINTR)
        ;
    }
  sb->warm_pid = 0;
  if (sb->warm_ctl >= 0)
    close (sb->warm_ctl);
  sb->warm_ctl = -1;
  sb->warm_resident = false;
  sb->warm_cleaning = false;
  sb->warm_end_pending = false;
  free (sb->warm_key);
  sb->warm_key = NULL;
}

/* Whether the warm init still lives; a dead one is reaped and forgotten
 * (never killed: its pid may be another process's by now). */
static bool
warm_alive (struct rc_sandbox *sb)
{
  if (sb->warm_pid > 0 && waitpid (sb->warm_pid, NULL, WNOHANG) != 0)
    {
      sb->warm_pid = 0;
      rc_sandbox_warm_stop (sb);
    }
  return sb->warm_pid > 0;
}

/* Before a job that its slot's resident init (of this process) does not
 * serve: the slot may hold another worker's resident, idle between its
 * jobs (service workers share the slots, each keeps its own resident).
 * It is left there, as the job's own init would be: root, in a pid
 * namespace of its own, its few pages in the slot's cgroup; this job
 * runs in a cold init and starts no resident of its own there, and the
 * owner finds its resident when it gets the slot back.  Anything else in
 * the slot is killed first. */
static int
slot_take_over (struct rc_job *job, rc_err_t *err)
{
  struct rc_sandbox *sb = job->sb;
  bool empty = false, only_inits = false;
  if (warm_alive (sb) && sb->warm_resident && sb->warm_slot == job->spec->slot)
    return 0;
  if (rc_cgroup_slot_is_empty (job->slot, &empty, err) < 0)
    return -1;
  if (empty)
    return 0;
  if (rc_cgroup_slot_holds_only_inits (job->slot, 0, &only_inits, err) < 0)
    return -1;
  if (only_inits)
    job->intruder = true;
  else if (rc_cgroup_slot_kill_all (job->slot, 2000, err) < 0)
    return -1;
  return 0;
}

/* What a resident's view was built for: the template and the host paths
 * (the slot is compared apart).  NULL for a job that gets no resident: a
 * session's workspace is a host directory, cache overlays name host
 * directories the entered root no longer reaches. */
static char *
resident_key (const struct rc_job_spec *spec)
{
  struct rc_buf b = { 0 };
  size_t i;
  if (spec->workspace != RC_WORKSPACE_TEMPLATE || spec->n_overlay_paths > 0)
    return NULL;
  int r = rc_buf_printf (&b, "%s", spec->template_dir ? spec->template_dir : "");
  for (i = 0; r == 0 && i < spec->n_host_paths; i++)
    r = rc_buf_printf (&b, "\n%s", spec->host_paths[i]);
  if (r < 0)
    {
      rc_buf_free (&b);
      return NULL;
    }
  return b.data; /* rc_buf_printf keeps it terminated */
}

/* Tells the resident its job is over (END), once. */
static int
resident_end (struct rc_sandbox *sb)
{
  if (!sb->warm_end_pending)
    return 0;
  sb->warm_end_pending = false;
  return ctl_send (sb->warm_ctl, RC_CTL_END, 0, 0, NULL);
}

/* Waits for the resident's CLEAN after END (resident_clear).  -1 when it
 * failed or did not answer in time: the caller stops it. */
static int
resident_settle (struct rc_sandbox *sb)
{
  struct pollfd pfd = { .fd = sb->warm_ctl, .events = POLLIN };
  struct rc_ctl m;
  int r;
  if (!sb->warm_cleaning)
    return 0;
  if (resident_end (sb) < 0)
    return -1;
  do
    r = poll (&pfd, 1, RC_RESIDENT_CLEAN_MS);
  while (r < 0 && errno == EINTR);
  if (r != 1 || ctl_recv (sb->warm_ctl, &m) <= 0 || m.type != RC_CTL_CLEAN)
    return -1;
  sb->warm_cleaning = false;
  return 0;
}

int
rc_sandbox_clean_wait_fd (struct rc_sandbox *sb, int slot)
{
  if (sb->warm_pid <= 0 || !sb->warm_resident || !sb->warm_cleaning || sb->warm_slot != slot)
    return -1;
  if (resident_end (sb) < 0)
    {
      rc_sandbox_warm_stop (sb);
      return -1;
    }
  return sb->warm_ctl;
}

pid_t
rc_sandbox_resident_settle (struct rc_sandbox *sb, int slot)
{
  if (sb->warm_pid <= 0 || !sb->warm_resident || sb->warm_slot != slot)
    return 0;
  if (resident_settle (sb) < 0)
    {
      rc_log (RC_LOG_WARN, "resident_stopped", "slot %d: the resident init did not clear its job",
              slot);
      rc_sandbox_warm_stop (sb);
      return 0;
    }
  return sb->warm_pid;
}

/* Hands the job to the warm init: the slot's resident init when it was
 * built for this job's template and host paths, else a pre-started one,
 * else (residents on) one started now.  1 when it took the job
 * (job->init_pid and job->ctl_w are then its), 0 when the job takes the
 * cold path. */
static int
warm_take (struct rc_job *job)
{
  struct rc_sandbox *sb = job->sb;
  const struct rc_job_spec *spec = job->spec;
  int fds[RC_SANDBOX_MAX_STEPS * 3];
  char cbuf[CMSG_SPACE (sizeof fds)];
  struct rc_ctl m = { .type = RC_CTL_GO_JOB, .step = (uint32_t)spec->slot };
  struct iovec iov = { .iov_base = &m, .iov_len = sizeof m };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
  struct cmsghdr *c;
  size_t n = 0, i;
  ssize_t k;

  if (spec->workspace != RC_WORKSPACE_TEMPLATE)
    return 0;
  if (sb->resident_on && !job->intruder)
    job->key = resident_key (spec);
  /* A resident serves only the job its view was built for.  One in
   * another slot may wait there for a later job, unless this job is to
   * start a resident of its own (a worker keeps one). */
  if (sb->warm_pid > 0 && sb->warm_resident)
    {
      if (sb->warm_slot != spec->slot)
        {
          if (job->key == NULL)
            return 0;
          rc_sandbox_warm_stop (sb);
        }
      else if (job->key == NULL || strcmp (job->key, sb->warm_key) != 0 || resident_settle (sb) < 0)
        rc_sandbox_warm_stop (sb);
    }
  if (sb->warm_pid <= 0 && job->key != NULL)
    warm_start (sb);
  /* One that died waiting (or cannot be waited for): start over, cold. */
  if (!warm_alive (sb))
    return 0;
  if (rc_job_arena_fill (sb->arena, spec, &job->plan) < 0)
    return 0; /* too big for the arena: cold, and the warm init waits on */
  for (i = 0; i < spec->n_steps; i++)
    {
      if (spec->steps[i].stdin_data)
        fds[n++] = job->fds[i].in_r;
      fds[n++] = job->fds[i].out_w;
      fds[n++] = job->fds[i].err_w;
    }
  m.value = (int32_t)n;
  memset (cbuf, 0, sizeof cbuf);
  mh.msg_control = cbuf;
  mh.msg_controllen = CMSG_SPACE (n * sizeof (int));
  c = CMSG_FIRSTHDR (&mh);
  if (c == NULL)
    return 0;
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (n * sizeof (int));
  memcpy (CMSG_DATA (c), fds, n * sizeof (int));
  do
    k = sendmsg (sb->warm_ctl, &mh, MSG_NOSIGNAL);
  while (k < 0 && errno == EINTR);
  if (k != (ssize_t)sizeof m)
    {
      rc_sandbox_warm_stop (sb);
      return 0;
    }
  job->init_pid = sb->warm_pid;
  job->ctl_w = sb->warm_ctl;
  job->resident = job->key != NULL;
  job->reused = sb->warm_resident;
  sb->warm_pid = 0;
  sb->warm_ctl = -1;
  sb->warm_resident = false;
  return 1;
}

/* ---- the worker's side ---------------------------------------------------- */

/* The process to kill to end the job: the init, whose death tears the pid
 * namespace down; the shim when its init is not cloned yet. */
static pid_t
job_kill_target (const struct rc_job *job)
{
  if (job->shim_area && job->shim_area->init_pid > 0)
    return job->shim_area->init_pid;
  return job->init_pid;
}

static void
job_kill (void *ctx)
{
  struct rc_job *job = ctx;
  rc_err_t err = NULL;
  /* The init's death tears the pid namespace down at once; the cgroup
   * kill is the belt to those braces. */
  if (job->init_pid > 0)
    kill (job_kill_target (job), SIGKILL);
  (void)rc_cgroup_slot_kill_all (job->slot, 0, &err);
  rc_error_free (&err);
}

static int
job_cpu_us (void *ctx, uint64_t *us)
{
  struct rc_job *job = ctx;
  rc_err_t err = NULL;
  int r = rc_cgroup_slot_cpu_usage_us (job->slot, us, &err);
  rc_error_free (&err);
  return r;
}

static int
job_memory_sample (void *ctx, struct rc_memory_sample *ms)
{
  struct rc_job *job = ctx;
  rc_err_t err = NULL;
  int r = rc_cgroup_slot_memory_sample (job->slot, ms, &err);
  rc_error_free (&err);
  return r;
}

static int
job_oom_kills (void *ctx, uint64_t *n, rc_err_t *err)
{
  struct rc_job *job = ctx;
  return rc_cgroup_slot_oom_kills (job->slot, n, err);
}

static int
job_read_exit (void *ctx, int *wstatus, rc_err_t *err)
{
  struct rc_job *job = ctx;
  struct rc_ctl m;
  int r = ctl_recv (job->ctl_w, &m);
  if (r < 0)
    return rc_error_sys (err, "sandbox: control socket errno=%d", errno);
  if (r == 0)
    {
      /* The init is gone: killed by us (a clock fired) or by the OOM
       * killer (the caller checks the cgroup's count); either way the
       * step's processes died with the pid namespace. */
      job->init_dead = true;
      *wstatus = SIGKILL;
      return 1;
    }
  switch (m.type)
    {
    case RC_CTL_STARTED:
      if (job->started_us == 0)
        job->started_us = rc_now_us ();
      return 0;
    case RC_CTL_EXITED:
      *wstatus = m.value;
      return 1;
    case RC_CTL_FAIL:
      return rc_error_set (err, m.value, "%s", m.text);
    default:
      return rc_error_set (err, EPROTO, "sandbox: control message %u errno=%d", m.type, EPROTO);
    }
}

static int
job_pipes (struct rc_job *job, rc_err_t *err)
{
  size_t i;
  for (i = 0; i < job->spec->n_steps; i++)
    {
      struct rc_step_fds *f = &job->fds[i];
      int p[2];
      if (job->spec->steps[i].stdin_data)
        {
          if (pipe2 (p, O_CLOEXEC) < 0)
            return rc_error_sys (err, "sandbox: pipe errno=%d", errno);
          f->in_r = p[0];
          f->in_w = p[1];
          if (fcntl (f->in_w, F_SETFL, O_NONBLOCK) < 0)
            return rc_error_sys (err, "sandbox: pipe errno=%d", errno);
        }
      if (pipe2 (p, O_CLOEXEC) < 0)
        return rc_error_sys (err, "sandbox: pipe errno=%d", errno);
      f->out_r = p[0];
      f->out_w = p[1];
      if (pipe2 (p, O_CLOEXEC) < 0)
        return rc_error_sys (err, "sandbox: pipe errno=%d", errno);
      f->err_r = p[0];
      f->err_w = p[1];
      if (fcntl (f->out_r, F_SETFL, O_NONBLOCK) < 0 || fcntl (f->err_r, F_SETFL, O_NONBLOCK) < 0)
        return rc_error_sys (err, "sandbox: pipe errno=%d", errno);
    }
  return 0;
}

/* Kills the init (the kernel then kills the whole pid namespace).  Its
 * reap waits for that teardown, so it is left to rc_sandbox_slot_clean
 * where nothing of the job can reach the host any more: a template
 * workspace lives in the job's own tmpfs.  A session's directory is the
 * host's, so there the init is reaped before the worker reads it. */
static void
job_release (struct rc_job *job)
{
  struct rc_sandbox *sb = job->sb;
  size_t i;
  /* A resident init whose job ended cleanly goes back to the sandbox; it
   * is told to clear the job away once the worker has answered
   * (resident_end: its work would otherwise compete with the answer for
   * the CPU), and rc_sandbox_slot_clean waits for its CLEAN.  Not when
   * another warm init took its place meanwhile (--prestart). */
  if (job->init_pid > 0 && job->keep && sb->warm_pid <= 0)
    {
      sb->warm_pid = job->init_pid;
      sb->warm_ctl = job->ctl_w;
      sb->warm_resident = true;
      sb->warm_cleaning = true;
      sb->warm_end_pending = true;
      sb->warm_slot = job->spec->slot;
      free (sb->warm_key);
      sb->warm_key = job->key;
      job->key = NULL;
      job->init_pid = -1;
      job->ctl_w = -1;
    }
  free (job->key);
  job->key = NULL;
  if (job->init_pid > 0)
    {
      /* init_pid is what is reaped: the init, or its shim, which exits
       * once the init and its namespaces are gone. */
      kill (job_kill_target (job), SIGKILL);
      if (job->spec->workspace == RC_WORKSPACE_BIND)
        while (waitpid (job->init_pid, NULL, 0) < 0 && errno == EINTR)
          ;
      else
        sb->dying_init[job->spec->slot] = job->init_pid;
      job->init_pid = -1;
    }
  close_fd (&job->ctl_w);
  close_fd (&job->ctl_i);
  for (i = 0; i < RC_SANDBOX_MAX_STEPS; i++)
    {
      close_fd (&job->fds[i].in_r);
      close_fd (&job->fds[i].in_w);
      close_fd (&job->fds[i].out_r);
      close_fd (&job->fds[i].out_w);
      close_fd (&job->fds[i].err_r);
      close_fd (&job->fds[i].err_w);
    }
}

/* ---- the init on the worker's memory ---------------------------------------
 *
 * A cold init shares the worker's memory (CLONE_VM), so the clone copies no
 * page tables, neither side takes copy-on-write faults after it, and its
 * exit unmaps nothing: on a paravirtualised host each of those is dear
 * (docs/sandbox.md has the figures).  The worker clones a shim onto the
 * slot's stack (CLONE_VM, in the worker's own cgroups); the shim clones the
 * init with CLONE_VM | CLONE_VFORK | CLONE_FILES and the namespaces, waits
 * for it to die and exits.  What sharing asks, and why each holds:
 *
 * - The OOM killer kills every process on its victim's mm, so no task on
 *   the worker's memory may ever be chosen.  The init and the user child
 *   are vfork children of a process on the same mm, which the badness
 *   scan skips (in_vfork); the shim is not in the job's cgroups.  A v2
 *   group kill (memory.oom.group) does not skip vfork children, so on
 *   cgroup v2 inits stay forked.
 * - Until READY the worker only waits on the control socket (poll), so the
 *   setup may allocate and free on the shared heap as a forked init did.
 *   After READY all three run beside the worker and make system calls
 *   only; those that fail in normal operation (wait4 with no child left,
 *   exec's search of PATH) go through rc_raw_syscall4, because errno is
 *   the worker's thread's variable; the bounding set is only read (the
 *   worker emptied its own, rc_sandbox_drop_bounding).
 * - CLONE_CLEAR_SIGHAND: no signal handler of the worker ever runs in the
 *   shim, the init or the child, where it would write the worker's state.
 * - The init works on its own copy of the job, in the slot's area above
 *   the stack, which the worker does not write again until the shim is
 *   reaped (rc_sandbox_reap_dying runs before the slot's next job).
 * - The user child does not assign environ (the worker's): rc_child_exec
 *   searches the job's PATH itself.
 * - The init's oom_score_adj is its own (a vfork child's score does not
 *   spread over the mm); PR_SET_DUMPABLE 0 is the mm's, so the worker
 *   becomes non-dumpable too (no core file of a crashed worker).
 * - CLONE_FILES: the init's closes of the job's pipe ends close the
 *   shim's references too; the shim holds the table until it exits.
 *
 * The pre-started init runs beside the worker for long stretches and stays
 * a fork; so does every init on cgroup v2, before Linux 5.5 (no
 * CLONE_CLEAR_SIGHAND), or with RUN_INIT_SHARED_MEMORY=0.
 */

static size_t
init_area_bytes (void)
{
  size_t page = (size_t)sysconf (_SC_PAGESIZE);
  return page + ((INIT_STACK_BYTES + sizeof (struct rc_init_area) + page - 1) & ~(page - 1));
}

/* The slot's area: a guard page, the stack, and the init's copy of the
 * job at the top; made on the slot's first job and kept. */
static struct rc_init_area *
init_area (struct rc_sandbox *sb, int slot, void **stack_lo, size_t *stack_size)
{
  size_t total = init_area_bytes (), page = (size_t)sysconf (_SC_PAGESIZE);
  char *base = sb->init_area[slot], *top;

  if (base == NULL)
    {
      base = mmap (NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1,
                   0);
      if (base == MAP_FAILED)
        return NULL;
      if (mprotect (base, page, PROT_NONE) < 0)
        {
          munmap (base, total);
          return NULL;
        }
      sb->init_area[slot] = base;
    }
  top = (char *)(((uintptr_t)(base + total - sizeof (struct rc_init_area))) & ~(uintptr_t)63);
  *stack_lo = base + page;
  *stack_size = (size_t)(((uintptr_t)top & ~(uintptr_t)15) - (uintptr_t)(base + page));
  return (struct rc_init_area *)top;
}

void
rc_sandbox_init_areas_free (struct rc_sandbox *sb)
{
  for (unsigned i = 0; sb->init_area && i < sb->n_slots; i++)
    if (sb->init_area[i])
      munmap (sb->init_area[i], init_area_bytes ());
  free (sb->init_area);
  sb->init_area = NULL;
}

static int
init_on_worker_memory (void *p)
{
  struct rc_init_area *a = p;
  init_main (&a->job, a->need_attach);
}

/* The shim: raw calls only, it runs beside the worker from the start. */
static int
init_shim (void *p)
{
  struct rc_init_area *a = p;
  long pid, r;
  int st;

  (void)rc_raw_syscall4 (SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0);
  /* Returns when the init is gone: a vfork parent waits for its child to
   * exec or exit, and the init never execs. */
  pid = rc_clone3_raw (&a->init_args, init_on_worker_memory, a);
  if (pid < 0)
    {
      a->clone_errno = (int)-pid;
      return 127;
    }
  do
    r = rc_raw_syscall4 (SYS_wait4, pid, (long)&st, 0, 0);
  while (r == -EINTR);
  return 0;
}

static void
init_shared_unavailable (struct rc_sandbox *sb, int errnum)
{
  sb->init_shared_unavailable = true;
  rc_log (RC_LOG_INFO, "init_forked",
          "namespace inits are forked: clone3(CLONE_VM|CLONE_CLEAR_SIGHAND) errno=%d", errnum);
}

/* AddressSanitizer keeps one stack per thread and takes the init, which
 * shares the worker's thread-local state, for the worker's thread on a
 * stack it does not know: its no-return hooks then report false overflows.
 * Sanitizer builds (the unit tests' second run, fuzzing) fork. */
#if defined(__SANITIZE_ADDRESS__)
#define RC_INIT_SHARED_BUILD 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RC_INIT_SHARED_BUILD 0
#endif
#endif
#ifndef RC_INIT_SHARED_BUILD
#define RC_INIT_SHARED_BUILD 1
#endif

/* The shim and its init (above); returns the shim's pid, the one to reap,
 * or -1 where this cannot be (the caller forks then). */
static pid_t
job_clone_shared (struct rc_job *job, const struct rc_clone_args *init_args, bool need_attach)
{
  struct rc_sandbox *sb = job->sb;
  struct rc_clone_args shim = { .flags = CLONE_VM | CLONE_CLEAR_SIGHAND, .exit_signal = SIGCHLD };
  struct rc_init_area *a;
  void *stack;
  size_t size;
  pid_t pid;

  if (!RC_INIT_SHARED_BUILD || !sb->cfg->init_shared_memory || sb->init_shared_unavailable
      || sb->cgmode == RC_CGROUP_UNIFIED)
    return -1;
  a = init_area (sb, job->spec->slot, &stack, &size);
  if (a == NULL)
    return -1;
  a->job = *job;
  a->need_attach = need_attach;
  a->init_pid = 0;
  a->clone_errno = 0;
  a->init_args = *init_args;
  a->init_args.flags |= CLONE_VM | CLONE_VFORK | CLONE_FILES | CLONE_PARENT_SETTID;
  a->init_args.parent_tid = (uint64_t)(uintptr_t)&a->init_pid;
  shim.stack = (uint64_t)(uintptr_t)stack;
  shim.stack_size = size;
  pid = rc_clone3_on_stack (&shim, init_shim, a);
  if (pid < 0 && (errno == EINVAL || errno == ENOSYS))
    init_shared_unavailable (sb, errno);
  if (pid > 0)
    job->shim_area = a;
  return pid;
}

static pid_t
job_clone (struct rc_job *job, bool *need_attach, rc_err_t *err)
{
  uint64_t flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
  int cgfd = rc_cgroup_slot_dirfd (job->slot);
  struct rc_clone_args args = { .exit_signal = SIGCHLD };
  pid_t pid;

  /* v2: born in the slot, no migration (which costs an RCU grace period
   * on the service's first write to cgroup.procs). */
  if (cgfd >= 0)
    {
      args.flags = flags | CLONE_INTO_CGROUP;
      args.cgroup = (uint64_t)cgfd;
      *need_attach = false;
    }
  else
    {
      args.flags = flags;
      *need_attach = true;
    }
  pid = job_clone_shared (job, &args, *need_attach);
  if (pid > 0)
    return pid;
  pid = rc_clone3 (&args);
  if (pid < 0 && errno == ENOSYS)
    {
      /* Pre-5.3 kernel (or clone3 filtered around us): plain clone acting
       * like fork, then the v1-style attach. */
      pid = (pid_t)syscall (SYS_clone, (unsigned long)(flags | SIGCHLD), NULL, NULL, NULL, NULL);
      *need_attach = true;
    }
  if (pid < 0)
    return rc_error_sys (err, "sandbox: clone errno=%d", errno);
  return pid;
}

static void
append_oom_line (struct rc_step_result *r, uint64_t memory_bytes)
{
  rc_buf_printf (&r->err, "runner: killed: memory limit (%llum) exceeded\n",
                 (unsigned long long)(memory_bytes / (1024 * 1024)));
  if (r->thrashed)
    rc_buf_printf (&r->err,
                   "runner: it thrashed at the limit: its own pages were read back at %llu MiB/s"
                   " for %u s\n",
                   (unsigned long long)(r->thrash_rate / (1024 * 1024)), RC_THRASH_SPAN_MS / 1000);
}

int
rc_isolated_run (struct rc_sandbox *sb, const struct rc_job_spec *spec, struct rc_job_result *res,
                 rc_err_t *err)
{
  struct rc_job job = { .sb = sb, .spec = spec, .ctl_w = -1, .ctl_i = -1, .init_pid = -1 };
  uint64_t output_used = 0;
  bool need_attach = false, taken, clean_end = true;
  int sp[2], ret = -1;
  size_t i;
  struct rc_ctl m;

  job.t0 = rc_now_us ();
  memset (job.fds, 0xff, sizeof job.fds); /* every fd -1 */
  if (rc_sandbox_drop_bounding (sb, err) < 0)
    return -1;
  if (rc_sandbox_get_slot (sb, spec->slot, &job.slot, err) < 0)
    return -1;
  /* Cache overlays mount through libmount: loaded here, in the worker, so
   * the init finds it ready (libmount_lazy.c). */
  if (spec->n_overlay_paths > 0 && rc_libmount_load (err) < 0)
    return -1;
  /* A caller that skipped rc_sandbox_slot_clean: the previous init of
   * this slot must be gone before the next one uses its cgroup. */
  rc_sandbox_reap_dying (sb, spec->slot);
  job.plan.spec = spec;
  job.plan.cgmode = sb->cgmode;
  job.plan.uid = rc_slot_uid (sb->cfg, spec->slot);
  job.plan.gid = job.plan.uid;
  job.plan.root_fd = -1;
  job.plan.first_uid = rc_slot_uid (sb->cfg, 0);
  job.plan.n_uids = sb->n_slots;
  if (spec->workspace == RC_WORKSPACE_TEMPLATE
      && rc_workspace_skeleton (sb, spec->template_dir, &job.plan.skel_dir, err) < 0)
    return -1;
  /* Before a pre-started init takes the job too: its clone shares the
   * template's mount points. */
  if (rc_root_template_prepare (sb, spec, err) < 0)
    return -1;
  if (sb->resident_on && slot_take_over (&job, err) < 0)
    return rc_error_wrap (err, "sandbox: slot take-over errno=%d", (*err)->status);
  if (rc_cgroup_slot_prepare (
          job.slot, spec->steps[0].limits.memory_bytes,
          spec->steps[0].limits.pids ? spec->steps[0].limits.pids : sb->cfg->pids_max, err)
      < 0)
    return rc_error_wrap (err, "sandbox: cgroup prepare errno=%d", (*err)->status);
  if (job_pipes (&job, err) < 0)
    goto out;
  taken = warm_take (&job) == 1;
  res->prestarted = taken && sb->prestart != RC_PRESTART_OFF;
  res->resident = taken && job.reused;
  res->root_cloned = taken && sb->warm_root_cloned;
  if (!taken)
    {
      if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
        {
          rc_error_sys (err, "sandbox: socketpair errno=%d", errno);
          goto out;
        }
      job.ctl_w = sp[0];
      job.ctl_i = sp[1];
      job.plan.root_fd = rc_root_template_clone (sb);
      res->root_cloned = job.plan.root_fd >= 0;
      job.init_pid = job_clone (&job, &need_attach, err);
      if (job.init_pid == 0)
        init_main (&job, need_attach);
      res->init_shared = job.shim_area != NULL;
      close_fd (&job.plan.root_fd);
      if (job.init_pid < 0)
        goto out;
    }
  close_fd (&job.ctl_i);
  for (i = 0; i < spec->n_steps; i++)
    {
      close_fd (&job.fds[i].in_r);
      close_fd (&job.fds[i].out_w);
      close_fd (&job.fds[i].err_w);
    }
  /* Step 0 is released at once: the init runs it as soon as the view is
   * built, without waiting for the worker to read READY first (one
   * process hand-off less on the critical path). */
  if (ctl_send (job.ctl_w, RC_CTL_GO, 0, 0, NULL) < 0)
    {
      rc_error_sys (err, "sandbox: control socket errno=%d", errno);
      goto out;
    }
  {
    /* A mount that hangs (a dead network filesystem below a template)
     * must not hang the worker: setup gets a deadline. */
    struct pollfd pfd = { .fd = job.ctl_w, .events = POLLIN };
    int r = poll (&pfd, 1, RC_SETUP_TIMEOUT_MS);
    if (r == 0)
      {
        rc_error_set (err, ETIMEDOUT, "sandbox: setup timeout errno=%d", ETIMEDOUT);
        goto out;
      }
    r = ctl_recv (job.ctl_w, &m);
    if (r == 0 && job.shim_area && job.shim_area->clone_errno)
      {
        int e = job.shim_area->clone_errno;
        /* A kernel that refuses the init's flags: this job fails, the
         * next ones fork. */
        if (e == EINVAL || e == ENOSYS)
          init_shared_unavailable (sb, e);
        rc_error_set (err, e, "sandbox: clone errno=%d", e);
        goto out;
      }
    if (r <= 0)
      {
        rc_error_set (err, r < 0 ? errno : EPIPE, "sandbox: init died errno=%d",
                      r < 0 ? errno : EPIPE);
        goto out;
      }
    if (m.type == RC_CTL_FAIL)
      {
        rc_error_set (err, m.value, "%s", m.text);
        goto out;
      }
    if (m.type != RC_CTL_READY)
      {
        rc_error_set (err, EPROTO, "sandbox: control message %u errno=%d", m.type, EPROTO);
        goto out;
      }
  }

  /* The next job's init starts now, on the core this job leaves free,
   * when the caller asked for that (it competes with the job for CPU, so
   * a worker rather starts it after its reply). */
  if (sb->prestart == RC_PRESTART_DURING_JOB && spec->workspace == RC_WORKSPACE_TEMPLATE)
    warm_start (sb);

  res->steps = calloc (spec->n_steps, sizeof (*res->steps));
  if (res->steps == NULL)
    {
      rc_error_set (err, ENOMEM, "sandbox: result errno=%d", ENOMEM);
      goto out;
    }
  res->n_steps = spec->n_steps;

  for (i = 0; i < spec->n_steps; i++)
    {
      const struct rc_step *st = &spec->steps[i];
      struct rc_step_result *r = &res->steps[i];
      struct rc_watch w = {
        .limits = &st->limits,
        .stdin_data = st->stdin_data,
        .stdin_len = st->stdin_len,
        .stdin_fd = job.fds[i].in_w,
        .out_fd = job.fds[i].out_r,
        .err_fd = job.fds[i].err_r,
        .exit_fd = job.ctl_w,
        .read_exit = job_read_exit,
        .cpu_us = job_cpu_us,
        .kill = job_kill,
        .oom_kills = job_oom_kills,
        .memory_sample = job_memory_sample,
        .ctx = &job,
        .res = r,
        .output_used = &output_used,
      };
      uint64_t peak = 0;

      if (i > 0
          && rc_cgroup_slot_prepare (job.slot, st->limits.memory_bytes,
                                     st->limits.pids ? st->limits.pids : sb->cfg->pids_max, err)
                 < 0)
        {
          rc_error_wrap (err, "sandbox: cgroup prepare errno=%d", (*err)->status);
          goto out;
        }
      /* rc_watch_run owns (and closes) these from here on. */
      job.fds[i].in_w = job.fds[i].out_r = job.fds[i].err_r = -1;
      if (i > 0 && ctl_send (job.ctl_w, RC_CTL_GO, (uint32_t)i, 0, NULL) < 0)
        {
          rc_error_sys (err, "sandbox: control socket errno=%d", errno);
          close_fd (&w.stdin_fd);
          close_fd (&w.out_fd);
          close_fd (&w.err_fd);
          goto out;
        }
      if (rc_watch_run (&w, err) < 0)
        goto out;
      if (r->outcome == RC_OUTCOME_MEMORY)
        append_oom_line (r, st->limits.memory_bytes);
      if (rc_cgroup_slot_memory_peak (job.slot, &peak, err) < 0)
        {
          rc_error_wrap (err, "sandbox: cgroup memory peak errno=%d", (*err)->status);
          goto out;
        }
      /* An OOM kill means usage reached the limit.  Where the peak cannot
       * be reset per job (cgroup v2 before 6.12) and an earlier step peaked
       * higher, the sampled fallback can miss the spike: report at least
       * the limit the kernel enforced. */
      if (r->outcome == RC_OUTCOME_MEMORY && peak < st->limits.memory_bytes)
        peak = st->limits.memory_bytes;
      r->memory_peak_kb = peak / 1024;
      if (w.killed || job.init_dead)
        {
          clean_end = false;
          break; /* the sandbox is gone: later steps do not run */
        }
      if (st->stop_on_failure && !(r->exited && r->exit_code == 0))
        break;
    }
  res->setup_us = job.started_us ? job.started_us - job.t0 : 0;
  job.keep = job.resident && clean_end;
  ret = 0;
out:
  job_release (&job);
  if (sb->arena)
    rc_job_arena_trim (sb->arena);
  if (ret < 0)
    rc_job_result_free (res);
  return ret;
}
