/* abuse: P16/T5/P21/R4 personality(READ_IMPLIES_EXEC|ADDR_NO_RANDOMIZE), SCHED_FIFO, nice(-20), mlockall, modify_ldt, iopl */
/* expect: probe */
#include "probe.h"
#include <sched.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>

static long
t_pers (void *a)
{
  (void) a;
  if (personality (READ_IMPLIES_EXEC | ADDR_NO_RANDOMIZE) < 0)
    return -1;
  /* success only if the persona really changed */
  return (personality (0xffffffff) & ADDR_NO_RANDOMIZE) ? 0 : (errno = EINVAL, -1);
}
static long
t_fifo (void *a)
{
  struct sched_param sp;
  (void) a;
  sp.sched_priority = 50;
  return sched_setscheduler (0, SCHED_FIFO, &sp);
}
static long
t_nice (void *a)
{
  (void) a;
  return setpriority (PRIO_PROCESS, 0, -20);
}
static long
t_mlock (void *a)
{
  /* mlockall itself may succeed within RLIMIT_MEMLOCK; locking 100 MiB must not */
  size_t n = 100u << 20;
  char *p;
  (void) a;
  if (mlockall (MCL_CURRENT | MCL_FUTURE) < 0)
    return -1;
  p = (char *) mmap (0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return -1;
  memset (p, 1, n);
  return 0;
}
static long
t_mlock_big (void *a)
{
  size_t n = 100u << 20;
  void *p = mmap (0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  (void) a;
  if (p == MAP_FAILED)
    return -1;
  return mlock (p, n);
}
static long
t_ldt (void *a)
{
  char buf[16];
  (void) a;
  return syscall (__NR_modify_ldt, 1, buf, sizeof buf) < 0 ? -1 : 0;
}
static long
t_iopl (void *a)
{
  (void) a;
  return syscall (__NR_iopl, 3);
}

int
main (void)
{
  probe ("personality(READ_IMPLIES_EXEC|ADDR_NO_RANDOMIZE)", t_pers, 0);
  probe ("sched_setscheduler(SCHED_FIFO)", t_fifo, 0);
  probe ("setpriority(-20)", t_nice, 0);
  probe ("mlockall + 100 MiB", t_mlock, 0);
  probe ("mlock 100 MiB", t_mlock_big, 0);
  probe ("modify_ldt(write)", t_ldt, 0);
  probe ("iopl(3)", t_iopl, 0);
  return probe_done ();
}
