/* syscall_probe.c - proves the job's seccomp filter from the inside, in the
 * style of bubblewrap's tests/try-syscall.c.
 *
 * Every denied call is made with arguments that make it fail harmlessly if
 * the filter let it through (bad pointers -> EFAULT, fd -1 -> EBADF,
 * invalid flags -> EINVAL, clone flags the kernel rejects before creating
 * anything), so the probe is safe even as root without a filter, and the
 * outcome tells the two apart: the filter answers with SIGSYS
 * (KILL_PROCESS) or its own errno (EPERM, ENOSYS for clone3), the kernel
 * with something else.  Each call runs in its own forked child (new
 * session, no core dumps, 5 s alarm) so a SIGSYS kill is seen by the
 * parent.  Three entry points: x86_64 numbers, x32 numbers (nr |
 * 0x40000000, through syscall()) and the i386 ABI (int $0x80).
 *
 * Lines tagged [deny] need the filter; lines tagged [allow] are controls
 * that must reach the kernel and get its normal answer, so the probe cannot
 * pass by killing everything.  TAP on stdout; exit 1 when any line fails.
 * Run it inside the sandbox (t/isolation/seccomp_probe.sh) or under the
 * bare filter (t/unit/seccomp_load_test.c, which also runs it without the
 * filter and expects every [deny] line to fail).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef __x86_64__
#error "the probe's x32 and i386 entries are x86_64-specific"
#endif

#define BAD 1L /* an address in the never-mapped page 0: EFAULT */
#define X32_BIT 0x40000000L
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
/* Numbers newer than some userland headers. */
#define NR_open_tree 428
#define NR_move_mount 429
#define NR_fsopen 430
#define NR_fsconfig 431
#define NR_fsmount 432
#define NR_fspick 433
#define NR_clone3 435
#define NR_pidfd_getfd 438
#define NR_process_madvise 440
#define NR_mount_setattr 442
#define NR_quotactl_fd 443
#define NR_open_tree_attr 467

enum abi
{
  X86_64,
  X32,
  I386
};

enum expect
{
  KILL,       /* [deny] SIGSYS */
  FILTER_ERR, /* [deny] the filter's errno */
  KERNEL_ERR, /* [allow] the kernel's errno */
  SUCCESS,    /* [allow] returns >= 0 */
};

struct probe
{
  enum abi abi;
  const char *name;
  long nr;
  long a[6];
  enum expect expect;
  int err;
};

/* clone flags the kernel refuses with EINVAL before creating anything:
 * CLONE_SIGHAND without CLONE_VM. */
#define CLONE_BAD CLONE_SIGHAND

static const struct probe probes[] = {
  /* mounts, old and new API */
  { X86_64, "mount", SYS_mount, { BAD, BAD, BAD, 0, BAD }, KILL, 0 },
  { X86_64, "umount2", SYS_umount2, { BAD, 0 }, KILL, 0 },
  { X86_64, "pivot_root", SYS_pivot_root, { BAD, BAD }, KILL, 0 },
  { X86_64, "chroot", SYS_chroot, { BAD }, KILL, 0 },
  { X86_64, "open_tree", NR_open_tree, { -1, BAD, 0 }, KILL, 0 },
  { X86_64, "move_mount", NR_move_mount, { -1, BAD, -1, BAD, 0 }, KILL, 0 },
  { X86_64, "fsopen", NR_fsopen, { BAD, 0 }, KILL, 0 },
  { X86_64, "fsconfig", NR_fsconfig, { -1, 0, 0, 0, 0 }, KILL, 0 },
  { X86_64, "fsmount", NR_fsmount, { -1, 0, 0 }, KILL, 0 },
  { X86_64, "fspick", NR_fspick, { -1, BAD, 0 }, KILL, 0 },
  { X86_64, "mount_setattr", NR_mount_setattr, { -1, BAD, 0, 0, 0 }, KILL, 0 },
  { X86_64, "open_tree_attr", NR_open_tree_attr, { -1, BAD, 0, 0, 0 }, KILL, 0 },
  /* namespaces, filters, keyrings */
  { X86_64, "unshare", SYS_unshare, { -1L }, KILL, 0 },
  { X86_64, "setns", SYS_setns, { -1, 0 }, KILL, 0 },
  { X86_64, "seccomp", SYS_seccomp, { 0xffff, 0, 0 }, KILL, 0 },
  { X86_64, "bpf", SYS_bpf, { 0xffff, 0, 0 }, KILL, 0 },
  { X86_64, "keyctl", SYS_keyctl, { 0xffff, 0, 0, 0, 0 }, KILL, 0 },
  { X86_64, "add_key", SYS_add_key, { BAD, BAD, 0, 0, 0 }, KILL, 0 },
  { X86_64, "request_key", SYS_request_key, { BAD, BAD, 0, 0 }, KILL, 0 },
  /* kernel and host control */
  { X86_64, "init_module", SYS_init_module, { BAD, 0, BAD }, KILL, 0 },
  { X86_64, "finit_module", SYS_finit_module, { -1, BAD, 0 }, KILL, 0 },
  { X86_64, "delete_module", SYS_delete_module, { BAD, 0 }, KILL, 0 },
  { X86_64, "kexec_load", SYS_kexec_load, { 0, 0, 0, 0xffffffffL }, KILL, 0 },
  { X86_64, "kexec_file_load", SYS_kexec_file_load, { -1, -1, 0, 0, 0xffffffffL }, KILL, 0 },
  { X86_64, "swapon", SYS_swapon, { BAD, 0 }, KILL, 0 },
  { X86_64, "swapoff", SYS_swapoff, { BAD }, KILL, 0 },
  { X86_64, "reboot", SYS_reboot, { 0, 0, 0, 0 }, KILL, 0 }, /* bad magic: EINVAL */
  { X86_64, "acct", SYS_acct, { BAD }, KILL, 0 },
  { X86_64, "quotactl", SYS_quotactl, { 0xffffffffL, BAD, 0, 0 }, KILL, 0 },
  { X86_64, "quotactl_fd", NR_quotactl_fd, { -1, 0, 0, 0 }, KILL, 0 },
  { X86_64, "perf_event_open", SYS_perf_event_open, { BAD, 0, -1, -1, 0 }, KILL, 0 },
  /* other processes */
  { X86_64, "ptrace", SYS_ptrace, { 0xffff, -1, 0, 0 }, KILL, 0 },
  { X86_64, "process_vm_readv", SYS_process_vm_readv, { 0, 0, 0, 0, 0, 1 }, KILL, 0 },
  { X86_64, "process_vm_writev", SYS_process_vm_writev, { 0, 0, 0, 0, 0, 1 }, KILL, 0 },
  { X86_64, "process_madvise", NR_process_madvise, { -1, 0, 0, 0, 0 }, KILL, 0 },
  { X86_64, "pidfd_getfd", NR_pidfd_getfd, { -1, -1, 0 }, KILL, 0 },
  { X86_64, "kcmp", SYS_kcmp, { 0, 0, 0xffff, 0, 0 }, KILL, 0 },
  /* modify_ldt(read, NULL, 0): harmless when allowed (returns 0). */
  { X86_64, "modify_ldt", SYS_modify_ldt, { 0, 0, 0, 0, 0 }, KILL, 0 },
  { X86_64, "userfaultfd", SYS_userfaultfd, { 0xffffffffL }, KILL, 0 },
  /* raw I/O, handles, obsolete */
  { X86_64, "iopl", SYS_iopl, { 4 }, KILL, 0 },
  { X86_64, "ioperm", SYS_ioperm, { 0x10000, 1, 1 }, KILL, 0 },
  { X86_64, "name_to_handle_at", SYS_name_to_handle_at, { -1, BAD, BAD, BAD, 0 }, KILL, 0 },
  { X86_64, "open_by_handle_at", SYS_open_by_handle_at, { -1, BAD, 0 }, KILL, 0 },
  { X86_64, "lookup_dcookie", SYS_lookup_dcookie, { 0, BAD, 0 }, KILL, 0 },
  { X86_64, "nfsservctl", SYS_nfsservctl, { 0, 0, 0 }, KILL, 0 },
  { X86_64, "uselib", SYS_uselib, { BAD }, KILL, 0 },
  { X86_64, "vhangup", SYS_vhangup, { 0 }, KILL, 0 }, /* no ctty after setsid */
  { X86_64, "personality(PER_LINUX32)", SYS_personality, { 0x0008 }, KILL, 0 },
  { X86_64, "personality(ADDR_NO_RANDOMIZE)", SYS_personality, { 0x0040000 }, KILL, 0 },
  /* argument filters: the filter's errno */
  { X86_64, "clone(CLONE_NEWUSER)", SYS_clone, { CLONE_NEWUSER | CLONE_BAD }, FILTER_ERR, EPERM },
  { X86_64, "clone(CLONE_NEWNS)", SYS_clone, { CLONE_NEWNS | CLONE_BAD }, FILTER_ERR, EPERM },
  { X86_64, "clone(CLONE_NEWPID)", SYS_clone, { CLONE_NEWPID | CLONE_BAD }, FILTER_ERR, EPERM },
  { X86_64, "clone(CLONE_NEWNET)", SYS_clone, { CLONE_NEWNET | CLONE_BAD }, FILTER_ERR, EPERM },
  { X86_64, "clone(CLONE_NEWUTS)", SYS_clone, { CLONE_NEWUTS | CLONE_BAD }, FILTER_ERR, EPERM },
  { X86_64, "clone(CLONE_NEWIPC)", SYS_clone, { CLONE_NEWIPC | CLONE_BAD }, FILTER_ERR, EPERM },
  { X86_64,
    "clone(CLONE_NEWCGROUP)",
    SYS_clone,
    { CLONE_NEWCGROUP | CLONE_BAD },
    FILTER_ERR,
    EPERM },
  { X86_64,
    "clone(CLONE_NEWUSER | 1<<32)",
    SYS_clone,
    { (long)(CLONE_NEWUSER | CLONE_BAD | 0x100000000UL) },
    FILTER_ERR,
    EPERM },
  { X86_64, "clone3", NR_clone3, { BAD, 88 }, FILTER_ERR, ENOSYS },
  { X86_64, "inotify_init1", SYS_inotify_init1, { 0x7fffffff }, FILTER_ERR, ENOSYS },
  { X86_64, "inotify_add_watch", SYS_inotify_add_watch, { -1, BAD, 0 }, FILTER_ERR, ENOSYS },
  { X86_64, "fanotify_init", SYS_fanotify_init, { 0x100, 0 }, FILTER_ERR, ENOSYS },
  { X86_64, "io_uring_setup", SYS_io_uring_setup, { 1, BAD }, FILTER_ERR, EPERM },
  { X86_64, "io_uring_enter", SYS_io_uring_enter, { -1, 0, 0, 0, 0, 0 }, FILTER_ERR, EPERM },
  { X86_64, "io_uring_register", SYS_io_uring_register, { -1, 0, 0, 0 }, FILTER_ERR, EPERM },
  { X86_64, "ioctl(TIOCSTI)", SYS_ioctl, { -1, TIOCSTI, BAD }, FILTER_ERR, EPERM },
  { X86_64,
    "ioctl(TIOCSTI | 1<<32)",
    SYS_ioctl,
    { -1, (long)(TIOCSTI | 0x100000000UL), BAD },
    FILTER_ERR,
    EPERM },
  { X86_64, "ioctl(TIOCLINUX)", SYS_ioctl, { -1, TIOCLINUX, BAD }, FILTER_ERR, EPERM },
  { X86_64,
    "ioctl(TIOCLINUX | 1<<33)",
    SYS_ioctl,
    { -1, (long)(TIOCLINUX | 0x200000000UL), BAD },
    FILTER_ERR,
    EPERM },
  { X86_64, "socket(AF_VSOCK)", SYS_socket, { AF_VSOCK, SOCK_STREAM, 0 }, FILTER_ERR, EPERM },
  /* x32 entry: same numbers with bit 30, plus x32-only compat numbers */
  { X32, "getpid", SYS_getpid, { 0 }, KILL, 0 },
  { X32, "write", SYS_write, { -1, BAD, 1 }, KILL, 0 },
  { X32, "mount", SYS_mount, { BAD, BAD, BAD, 0, BAD }, KILL, 0 },
  { X32, "unshare", SYS_unshare, { -1L }, KILL, 0 },
  { X32, "setns", SYS_setns, { -1, 0 }, KILL, 0 },
  { X32, "keyctl", SYS_keyctl, { 0xffff, 0, 0, 0, 0 }, KILL, 0 },
  { X32, "clone(CLONE_NEWUSER)", SYS_clone, { CLONE_NEWUSER | CLONE_BAD }, KILL, 0 },
  { X32, "ioctl(TIOCSTI) (x32 nr 514)", 514, { -1, TIOCSTI, BAD }, KILL, 0 },
  { X32, "ptrace (x32 nr 521)", 521, { 0xffff, -1, 0, 0 }, KILL, 0 },
  /* i386 entry: int $0x80 with i386 numbers */
  { I386, "getpid", 20, { 0 }, KILL, 0 },
  { I386, "write", 4, { -1, BAD, 1 }, KILL, 0 },
  { I386, "mount", 21, { BAD, BAD, BAD, 0, BAD }, KILL, 0 },
  { I386, "unshare", 310, { 0x7fffffff }, KILL, 0 },
  { I386, "socketcall", 102, { 0xffff, BAD }, KILL, 0 },
  { I386, "keyctl", 288, { 0xffff, 0, 0, 0, 0 }, KILL, 0 },
  { I386, "ptrace", 26, { 0xffff, -1, 0, 0 }, KILL, 0 },
  /* controls: allowed calls reach the kernel */
  { X86_64, "getpid", SYS_getpid, { 0 }, SUCCESS, 0 },
  { X86_64, "write(-1)", SYS_write, { -1, BAD, 1 }, KERNEL_ERR, EBADF },
  { X86_64, "read(-1)", SYS_read, { -1, BAD, 1 }, KERNEL_ERR, EBADF },
  { X86_64, "openat(bad path)", SYS_openat, { AT_FDCWD, BAD, O_RDONLY }, KERNEL_ERR, EFAULT },
  { X86_64, "ioctl(-1, TCGETS)", SYS_ioctl, { -1, TCGETS, BAD }, KERNEL_ERR, EBADF },
  { X86_64, "personality(query)", SYS_personality, { 0xffffffffL }, SUCCESS, 0 },
  { X86_64, "personality(PER_LINUX)", SYS_personality, { 0 }, SUCCESS, 0 },
  { X86_64, "clone(SIGCHLD)", SYS_clone, { SIGCHLD }, SUCCESS, 0 },
  { X86_64, "socket(AF_UNIX)", SYS_socket, { AF_UNIX, SOCK_STREAM, 0 }, SUCCESS, 0 },
};

static long
int80 (long nr, const long *a)
{
  long ret;
  /* The 32-bit ABI: eax = nr, ebx, ecx, edx, esi, edi = args.  The kernel
   * may clobber r8-r11 on this path in some versions. */
  __asm__ volatile("int $0x80"
                   : "=a"(ret)
                   : "a"(nr), "b"(a[0]), "c"(a[1]), "d"(a[2]), "S"(a[3]), "D"(a[4])
                   : "memory", "cc", "r8", "r9", "r10", "r11");
  return ret;
}

struct outcome
{
  long ret;
  int err;
};

/* outcome.ret when int $0x80 itself faulted: the kernel has no i386 entry
 * (IA32 emulation off, as on this development VM), so it cannot be a way
 * around the filter either. */
#define NO_I386_ENTRY (-2L)

static int result_fd = -1;

/* SIGSEGV in an i386 probe: only a #GP raised by our own int $0x80
 * instruction (bytes cd 80 at the faulting ip) counts as "no i386 entry";
 * any other fault is reported as a failure. */
static void
on_segv (int sig, siginfo_t *si, void *ucv)
{
  const ucontext_t *uc = ucv;
  const unsigned char *ip = (const unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
  struct outcome o = { NO_I386_ENTRY, 0 };

  (void)sig;
  (void)si;
  if (ip[0] == 0xcd && ip[1] == 0x80 && write (result_fd, &o, sizeof (o)) == (ssize_t)sizeof (o))
    _exit (0);
  _exit (102);
}

/* In the child: make the call, report ret/errno, exit. */
static void
run_child (const struct probe *p, int out)
{
  struct rlimit no_core = { 0, 0 };
  struct outcome o = { 0, 0 };

  setsid ();
  setrlimit (RLIMIT_CORE, &no_core);
  alarm (5);
  errno = 0;
  switch (p->abi)
    {
    case X86_64:
      o.ret = syscall (p->nr, p->a[0], p->a[1], p->a[2], p->a[3], p->a[4], p->a[5]);
      o.err = errno;
      break;
    case X32:
      o.ret = syscall (p->nr | X32_BIT, p->a[0], p->a[1], p->a[2], p->a[3], p->a[4], p->a[5]);
      o.err = errno;
      break;
    case I386:
      {
        struct sigaction sa;
        int r;
        memset (&sa, 0, sizeof (sa));
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO;
        result_fd = out;
        sigaction (SIGSEGV, &sa, NULL);
        r = (int)int80 (p->nr, p->a);
        o.ret = r < 0 && r > -4096 ? -1 : r;
        o.err = r < 0 && r > -4096 ? -r : 0;
        break;
      }
    }
  if (p->nr == SYS_clone && p->abi == X86_64 && o.ret == 0)
    _exit (0); /* the grandchild of the clone(SIGCHLD) control */
  if (p->nr == SYS_clone && o.ret > 0)
    waitpid ((pid_t)o.ret, NULL, 0);
  if (p->nr == SYS_socket && o.ret >= 0)
    close ((int)o.ret);
  if (write (out, &o, sizeof (o)) != (ssize_t)sizeof (o))
    _exit (101);
  _exit (0);
}

static const char *
abi_name (enum abi abi)
{
  return abi == X86_64 ? "x86_64" : abi == X32 ? "x32" : "i386";
}

static bool
check (const struct probe *p, int *test_no)
{
  int fds[2], status = 0;
  struct outcome o = { 0, 0 };
  bool got = false, pass = false;
  char what[128];
  pid_t pid;

  if (pipe2 (fds, O_CLOEXEC) < 0)
    return false;
  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    {
      close (fds[0]);
      run_child (p, fds[1]);
    }
  close (fds[1]);
  if (pid > 0)
    waitpid (pid, &status, 0);
  got = pid > 0 && read (fds[0], &o, sizeof (o)) == (ssize_t)sizeof (o);
  close (fds[0]);

  if (pid < 0)
    snprintf (what, sizeof (what), "fork failed: %s", strerror (errno));
  else if (WIFSIGNALED (status))
    snprintf (what, sizeof (what), "%s",
              WTERMSIG (status) == SIGSYS ? "SIGSYS" : strsignal (WTERMSIG (status)));
  else if (!got)
    snprintf (what, sizeof (what), "no result (exit %d)", WEXITSTATUS (status));
  else if (o.ret == NO_I386_ENTRY)
    snprintf (what, sizeof (what), "#GP on int $0x80 (no i386 entry on this kernel)");
  else if (o.ret == -1)
    snprintf (what, sizeof (what), "errno %s",
              strerrorname_np (o.err) ? strerrorname_np (o.err) : "?");
  else
    snprintf (what, sizeof (what), "returned %ld", o.ret);

  switch (p->expect)
    {
    case KILL:
      pass = pid > 0 && WIFSIGNALED (status) && WTERMSIG (status) == SIGSYS;
      /* A kernel without the i386 entry faults on int $0x80 before seccomp
       * runs: nothing to bypass there either. */
      if (p->abi == I386 && got && o.ret == NO_I386_ENTRY)
        pass = true;
      break;
    case FILTER_ERR:
    case KERNEL_ERR:
      pass = got && o.ret == -1 && o.err == p->err;
      break;
    case SUCCESS:
      pass = got && o.ret >= 0;
      break;
    }
  printf ("%sok %d - %s %s: %s [%s]\n", pass ? "" : "not ", ++*test_no, abi_name (p->abi), p->name,
          what, p->expect == KILL || p->expect == FILTER_ERR ? "deny" : "allow");
  return pass;
}

/* The status lines the filter and the sandbox set. */
static bool
check_status (int *test_no)
{
  FILE *f = fopen ("/proc/self/status", "re");
  char line[256];
  int seccomp = -1, nnp = -1;
  bool pass;

  while (f != NULL && fgets (line, sizeof (line), f) != NULL)
    {
      sscanf (line, "Seccomp: %d", &seccomp);
      sscanf (line, "NoNewPrivs: %d", &nnp);
    }
  if (f != NULL)
    fclose (f);
  pass = seccomp == 2 && nnp == 1;
  printf ("%sok %d - status Seccomp: %d, NoNewPrivs: %d [deny]\n", pass ? "" : "not ", ++*test_no,
          seccomp, nnp);
  return pass;
}

int
main (void)
{
  int test_no = 0, failed = 0;
  size_t n = sizeof (probes) / sizeof (probes[0]);

  printf ("1..%zu\n", n + 1);
  if (!check_status (&test_no))
    failed++;
  for (size_t i = 0; i < n; i++)
    if (!check (&probes[i], &test_no))
      failed++;
  fflush (stdout);
  return failed ? 1 : 0;
}
