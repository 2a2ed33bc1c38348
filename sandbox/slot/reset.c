/* reset.c - what a slot's init resets between two jobs beyond its mounts
 * and cgroups: the network namespace, and the probe for processes of a
 * slot uid outside the slot.
 *
 * A job runs in its slot's network namespace: only lo.  A fresh namespace
 * per job would cost 0.65 ms of CPU (its creation and its teardown in the
 * kernel's workqueue, measured here), more than the rest of the job's
 * overhead together.  But a job that used the network leaves what a later
 * job could see: sockets in TIME_WAIT (and the ports they hold), the
 * counters of lo and of every protocol.  So after each job the init reads
 * the namespace's counters and socket tables back and compares them with
 * their text in a fresh namespace: equal, nothing of the job is left (the
 * job's sockets died with its processes, and anything that sends or
 * receives a packet moves a counter: the IP, ICMP, TCP and UDP counters of
 * /proc/net/snmp and snmp6, lo's in /proc/net/dev); different, the init
 * unshares a new namespace, off the next job's path.  Reading the three
 * files back costs a few tens of microseconds.
 */
#include "config.h"

#include "sandbox/host/syscalls.h"
#include "sandbox/slot/slot.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Per network namespace, and moved by any packet: the protocol counters
 * and lo's.  (sockstat would not do: its orphan and memory figures are
 * host-wide.) */
#define NET_FILES 3
static const char *const net_files[NET_FILES]
    = { "/proc/self/net/snmp", "/proc/self/net/snmp6", "/proc/self/net/dev" };

static int
lo_up (void)
{
  struct ifreq ifr;
  int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;
  if (fd < 0)
    return -1;
  memset (&ifr, 0, sizeof ifr);
  memcpy (ifr.ifr_name, "lo", 3);
  r = ioctl (fd, SIOCGIFFLAGS, &ifr);
  if (r == 0 && !(ifr.ifr_flags & IFF_UP))
    {
      ifr.ifr_flags |= IFF_UP;
      r = ioctl (fd, SIOCSIFFLAGS, &ifr);
    }
  close (fd);
  return r;
}

/* The files' text, concatenated, into a malloc'ed buffer. */
static int
net_read (struct rc_net_state *n, char **text, size_t *len)
{
  size_t cap = 16384, used = 0;
  char *buf = malloc (cap);
  if (buf == NULL)
    return -1;
  for (int i = 0; i < NET_FILES; i++)
    {
      off_t off = 0;
      for (;;)
        {
          ssize_t k;
          if (used + 4096 > cap)
            {
              char *nb = realloc (buf, cap * 2);
              if (nb == NULL)
                {
                  free (buf);
                  return -1;
                }
              buf = nb;
              cap *= 2;
            }
          k = pread (n->fds[i], buf + used, cap - used, off);
          if (k < 0 && errno == EINTR)
            continue;
          if (k < 0)
            {
              free (buf);
              return -1;
            }
          if (k == 0)
            break;
          used += (size_t)k;
          off += k;
        }
    }
  *text = buf;
  *len = used;
  return 0;
}

int
rc_net_fresh (struct rc_net_state *n)
{
  if (lo_up () < 0)
    return -1;
  /* Opened now: /proc/self/net follows the opener's namespace at open. */
  for (int i = 0; i < NET_FILES; i++)
    {
      if (n->fds[i] >= 0)
        close (n->fds[i]);
      n->fds[i] = open (net_files[i], O_RDONLY | O_CLOEXEC);
      if (n->fds[i] < 0)
        return -1;
    }
  free (n->pristine);
  n->pristine = NULL;
  return net_read (n, &n->pristine, &n->pristine_len);
}

int
rc_net_reset (struct rc_net_state *n, bool *renewed)
{
  char *now = NULL;
  size_t len = 0;
  bool same;

  *renewed = false;
  if (net_read (n, &now, &len) < 0)
    return -1;
  same = len == n->pristine_len && memcmp (now, n->pristine, len) == 0;
  free (now);
  if (same)
    return 0;
  if (unshare (CLONE_NEWNET) < 0)
    return -1;
  *renewed = true;
  return rc_net_fresh (n);
}

/* A vfork child takes the uid (dropping every capability with root), caps
 * its RLIMIT_NPROC at 2 and vforks once more: the kernel counts the
 * processes of each real uid and refuses that fork (EAGAIN) exactly when a
 * third one exists besides the probe and the new child.  Per process a
 * counter the kernel keeps anyway, where a walk of /proc cost an fstatat
 * per process. */
int
rc_uid_has_processes (uid_t uid)
{
  int st = 0;
  pid_t pid = vfork ();
  if (pid == 0)
    {
      struct rlimit two = { 2, 2 };
      long r = rc_raw_syscall4 (SYS_setresuid, (long)uid, (long)uid, (long)uid, 0);
      if (r < 0 || rc_raw_syscall4 (SYS_prlimit64, 0, RLIMIT_NPROC, (long)&two, 0) < 0)
        _exit (2);
      r = rc_raw_syscall4 (SYS_vfork, 0, 0, 0, 0);
      if (r == 0)
        _exit (0);
      if (r > 0)
        {
          while (rc_raw_syscall4 (SYS_wait4, r, 0, 0, 0) == -EINTR)
            ;
          _exit (0);
        }
      _exit (r == -EAGAIN ? 1 : 2);
    }
  if (pid < 0)
    return -1;
  while (waitpid (pid, &st, 0) < 0)
    if (errno != EINTR)
      return -1;
  if (!WIFEXITED (st) || WEXITSTATUS (st) > 1)
    {
      errno = EPERM;
      return -1;
    }
  return WEXITSTATUS (st);
}
