/* abuse: P5-P7 ptrace the init and the parent, process_vm_readv, kill(pid,0) scan, SIGKILL pid 1, kill(-1) */
/* limits: wallTimeMs=5000 */
/* expect: probe */
#include "probe.h"
#include <sys/ptrace.h>
#include <sys/uio.h>

static long
t_ptrace (void *pid)
{
  return ptrace (PTRACE_ATTACH, (pid_t) (long) pid, 0, 0);
}

static long
t_vm_read (void *pid)
{
  char buf[16];
  struct iovec l = { buf, sizeof buf }, r = { (void *) 0x400000, sizeof buf };
  return process_vm_readv ((pid_t) (long) pid, &l, 1, &r, 1, 0);
}

int
main (void)
{
  int seen = 0;
  probe ("ptrace(ATTACH, 1)", t_ptrace, (void *) 1L);
  probe ("ptrace(ATTACH, ppid)", t_ptrace, (void *) (long) getppid ());
  probe ("process_vm_readv(1)", t_vm_read, (void *) 1L);
  /* signal every pid that exists: only this pid namespace answers */
  for (pid_t p = 2; p < 65536; p++)
    if (p != getpid () && !probe_is_ancestor (p) && kill (p, 0) == 0)
      seen++;
  probe_report ("kill(pid,0) finds no process outside the job", seen > 0, "%d answered", seen);
  printf ("kill(1, SIGKILL): %s\n", kill (1, SIGKILL) == 0 ? "sent" : probe_errname (errno));
  /* the big one: SIGKILL everything we may signal; only this job may die */
  signal (SIGTERM, SIG_IGN);
  printf ("kill(-1): %s\n", kill (-1, SIGTERM) == 0 ? "sent" : probe_errname (errno));
  return probe_done ();
}
