/* seccomp_test.c - checks the decisions of the exported seccomp program
 * without the kernel: a small classic-BPF interpreter (below) runs the
 * program rc_seccomp_build() produced on hand-made struct seccomp_data
 * values, the way the kernel would.  Debian ships no libseccomp simulator
 * (scmp_bpf_sim is not packaged), hence our own.
 *
 * Covered: every KILL_PROCESS call, clone with each CLONE_NEW* flag (also
 * with high bits set), clone3, io_uring, ioctl TIOCSTI/TIOCLINUX with and
 * without bits above 32, socket(AF_VSOCK), personality (edge values and a
 * random sample against the intended predicate), x32 numbers, i386 and a
 * foreign arch, and ordinary calls that must pass.  TAP output.
 */
#include "config.h"

#include "t/unit/tap.h"

#include "sandbox/seccomp/seccomp_filter.h"
#include "sandbox/seccomp/seccomp_rules.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef AUDIT_ARCH_X86_64
#define AUDIT_ARCH_X86_64 0xc000003eu
#endif
#ifndef AUDIT_ARCH_I386
#define AUDIT_ARCH_I386 0x40000003u
#endif
#define AUDIT_ARCH_AARCH64_VALUE 0xc00000b7u
#define X32_BIT 0x40000000
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif


/* --- a classic BPF interpreter, enough for any seccomp program --- */

#define RUN_ERROR 0xdeadbeefu /* not a valid seccomp return value */

static uint32_t
bpf_run (const struct sock_filter *prog, size_t len, const struct seccomp_data *d)
{
  uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
  const unsigned char *data = (const unsigned char *)d;
  size_t steps = 0;

  for (size_t pc = 0; pc < len && steps < 100000; pc++, steps++)
    {
      const struct sock_filter *f = &prog[pc];
      uint32_t src = BPF_SRC (f->code) == BPF_X ? x : f->k;
      switch (BPF_CLASS (f->code))
        {
        case BPF_LD:
          if (f->code == (BPF_LD | BPF_W | BPF_ABS))
            {
              if (f->k % 4 != 0 || f->k + 4 > sizeof (*d))
                return RUN_ERROR;
              memcpy (&a, data + f->k, 4);
            }
          else if (f->code == (BPF_LD | BPF_W | BPF_LEN))
            a = sizeof (*d);
          else if (f->code == (BPF_LD | BPF_IMM))
            a = f->k;
          else if (f->code == (BPF_LD | BPF_MEM) && f->k < BPF_MEMWORDS)
            a = mem[f->k];
          else
            return RUN_ERROR;
          break;
        case BPF_LDX:
          if (f->code == (BPF_LDX | BPF_W | BPF_LEN))
            x = sizeof (*d);
          else if (f->code == (BPF_LDX | BPF_IMM))
            x = f->k;
          else if (f->code == (BPF_LDX | BPF_MEM) && f->k < BPF_MEMWORDS)
            x = mem[f->k];
          else
            return RUN_ERROR;
          break;
        case BPF_ST:
        case BPF_STX:
          if (f->k >= BPF_MEMWORDS)
            return RUN_ERROR;
          mem[f->k] = BPF_CLASS (f->code) == BPF_ST ? a : x;
          break;
        case BPF_ALU:
          switch (BPF_OP (f->code))
            {
            case BPF_ADD:
              a += src;
              break;
            case BPF_SUB:
              a -= src;
              break;
            case BPF_MUL:
              a *= src;
              break;
            case BPF_DIV:
              if (src == 0)
                return RUN_ERROR;
              a /= src;
              break;
            case BPF_MOD:
              if (src == 0)
                return RUN_ERROR;
              a %= src;
              break;
            case BPF_OR:
              a |= src;
              break;
            case BPF_AND:
              a &= src;
              break;
            case BPF_XOR:
              a ^= src;
              break;
            case BPF_LSH:
              a = src < 32 ? a << src : 0;
              break;
            case BPF_RSH:
              a = src < 32 ? a >> src : 0;
              break;
            case BPF_NEG:
              a = (uint32_t) - (int32_t)a;
              break;
            default:
              return RUN_ERROR;
            }
          break;
        case BPF_JMP:
          {
            int taken;
            if (BPF_OP (f->code) == BPF_JA)
              {
                pc += f->k;
                continue;
              }
            switch (BPF_OP (f->code))
              {
              case BPF_JEQ:
                taken = a == src;
                break;
              case BPF_JGT:
                taken = a > src;
                break;
              case BPF_JGE:
                taken = a >= src;
                break;
              case BPF_JSET:
                taken = (a & src) != 0;
                break;
              default:
                return RUN_ERROR;
              }
            pc += taken ? f->jt : f->jf;
            break;
          }
        case BPF_RET:
          if (BPF_RVAL (f->code) == BPF_K)
            return f->k;
          if (BPF_RVAL (f->code) == BPF_A)
            return a;
          return RUN_ERROR;
        case BPF_MISC:
          if (BPF_MISCOP (f->code) == BPF_TAX)
            x = a;
          else
            a = x;
          break;
        default:
          return RUN_ERROR;
        }
    }
  return RUN_ERROR; /* fell off the end: the kernel rejects such programs */
}

/* --- helpers --- */

static struct rc_seccomp_program prog;

static uint32_t
decide (uint32_t arch, int nr, uint64_t a0, uint64_t a1)
{
  struct seccomp_data d;
  memset (&d, 0, sizeof (d));
  d.arch = arch;
  d.nr = nr;
  d.instruction_pointer = 0x401000;
  d.args[0] = a0;
  d.args[1] = a1;
  return bpf_run (prog.insns, prog.len, &d);
}

static uint32_t
native (int nr, uint64_t a0, uint64_t a1)
{
  return decide (AUDIT_ARCH_X86_64, nr, a0, a1);
}

static const char *
describe (uint32_t ret)
{
  static char buf[64];
  switch (ret & SECCOMP_RET_ACTION_FULL)
    {
    case SECCOMP_RET_KILL_PROCESS:
      return "KILL_PROCESS";
    case SECCOMP_RET_KILL_THREAD:
      return "KILL_THREAD";
    case SECCOMP_RET_ALLOW:
      return "ALLOW";
    case SECCOMP_RET_ERRNO:
      snprintf (buf, sizeof (buf), "ERRNO(%s)", strerrorname_np ((int)(ret & SECCOMP_RET_DATA)));
      return buf;
    default:
      snprintf (buf, sizeof (buf), "0x%08x", ret);
      return buf;
    }
}

#define IS_KILL(r) ((r) == SECCOMP_RET_KILL_PROCESS)
#define IS_ALLOW(r) ((r) == SECCOMP_RET_ALLOW)
#define IS_ERRNO(r, e) ((r) == (SECCOMP_RET_ERRNO | (uint32_t)(e)))

/* The intended personality rule: allowed iff the low 32 bits (what the
 * kernel reads) are PER_LINUX or the 0xffffffff query. */
static int
personality_allowed (uint64_t v)
{
  uint32_t low = (uint32_t)v;
  return low == 0 || low == 0xffffffffu;
}

static const char *const kill_names[] = {
  "mount",
  "umount2",
  "pivot_root",
  "chroot",
  "open_tree",
  "move_mount",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "mount_setattr",
  "unshare",
  "setns",
  "seccomp",
  "bpf",
  "keyctl",
  "add_key",
  "request_key",
  "init_module",
  "finit_module",
  "delete_module",
  "kexec_load",
  "kexec_file_load",
  "swapon",
  "swapoff",
  "reboot",
  "acct",
  "quotactl",
  "quotactl_fd",
  "perf_event_open",
  "ptrace",
  "process_vm_readv",
  "process_vm_writev",
  "process_madvise",
  "pidfd_getfd",
  "kcmp",
  "modify_ldt",
  "userfaultfd",
  "iopl",
  "ioperm",
  "name_to_handle_at",
  "open_by_handle_at",
  "lookup_dcookie",
  "nfsservctl",
  "uselib",
  "vhangup",
};

int
main (void)
{
  rc_err_t err = NULL;
  uint32_t r;

  {
    int built = rc_seccomp_build (&prog, &err);
    tap_ok (built == 0 && prog.len > 0 && prog.len <= BPF_MAXINSNS,
        "build and export (%u instructions)", prog.len);
  }
  if (err != NULL || prog.len == 0)
    {
      printf ("Bail out! %s\n", err ? rc_error_text (err) : "empty program");
      return 1;
    }

  /* The context of rc_seccomp_context_new exports the program after the
   * hand-written personality prelude, byte for byte. */
  {
    void *ctx = rc_seccomp_context_new (&err);
    int fd = memfd_create ("t", MFD_CLOEXEC);
    struct stat st;
    int same = 0;
    if (ctx != NULL && fd >= 0 && seccomp_export_bpf (ctx, fd) == 0 && fstat (fd, &st) == 0
        && (size_t)st.st_size == (prog.len - RC_SECCOMP_PRELUDE_LEN) * sizeof (struct sock_filter))
      {
        struct sock_filter *copy = malloc ((size_t)st.st_size);
        same = copy != NULL && pread (fd, copy, (size_t)st.st_size, 0) == st.st_size
               && memcmp (copy, prog.insns + RC_SECCOMP_PRELUDE_LEN, (size_t)st.st_size) == 0;
        free (copy);
      }
    tap_ok (same,
        "rc_seccomp_context_new has the same rules as the exported program after its prelude");
    if (ctx != NULL)
      seccomp_release (ctx);
    if (fd >= 0)
      close (fd);
    rc_error_free (&err);
  }

  /* The build-time program (seccomp_program.h, linked into every binary)
   * is what the rules compile to now: a stale header or a different
   * libseccomp would show here. */
  {
    struct sock_filter *fresh = NULL;
    size_t n = 0;
    int r2 = rc_seccomp_compile (&fresh, &n, &err);
    tap_ok (r2 == 0 && n == prog.len && memcmp (fresh, prog.insns, n * sizeof *fresh) == 0
            && memcmp (prog.insns, rc_seccomp_prelude,
                       sizeof (struct sock_filter) * RC_SECCOMP_PRELUDE_LEN)
                   == 0,
        "the build-time program equals a fresh compile of the rules (%zu instructions)", n);
    free (fresh);
    rc_error_free (&err);
  }

  /* Killed calls.  open_tree_attr (467, Linux 6.15) is newer than Debian
   * 12's libseccomp, so the filter adds it by number. */
  for (size_t i = 0; i < sizeof (kill_names) / sizeof (kill_names[0]); i++)
    {
      int nr = seccomp_syscall_resolve_name (kill_names[i]);
      r = native (nr, 0, 0);
      tap_ok (nr >= 0 && IS_KILL (r), "%s (%d) -> %s", kill_names[i], nr, describe (r));
    }
  r = native (467, 0, 0);
  tap_ok (IS_KILL (r), "open_tree_attr (467) -> %s", describe (r));

  /* Ordinary calls pass. */
  {
    static const int allowed[] = { SYS_read, SYS_write,      SYS_openat, SYS_getpid, SYS_execve,
                                   SYS_mmap, SYS_exit_group, SYS_fork,   SYS_wait4,  SYS_prctl };
    int all = 1;
    for (size_t i = 0; i < sizeof (allowed) / sizeof (allowed[0]); i++)
      all &= IS_ALLOW (native (allowed[i], 0, 0));
    tap_ok (all, "read, write, openat, getpid, execve, mmap, exit_group, fork, wait4, prctl allowed");
  }
  r = native (SYS_write, 1, 0x1000);
  tap_ok (IS_ALLOW (r), "write -> %s", describe (r));

  /* clone */
  r = native (SYS_clone, SIGCHLD, 0);
  tap_ok (IS_ALLOW (r), "clone(SIGCHLD) -> %s", describe (r));
  r = native (SYS_clone,
              CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM
                  | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID,
              0);
  tap_ok (IS_ALLOW (r), "clone(pthread_create flags) -> %s", describe (r));
  {
    static const struct
    {
      const char *name;
      uint64_t flag;
    } news[] = {
      { "CLONE_NEWNS", CLONE_NEWNS },     { "CLONE_NEWCGROUP", CLONE_NEWCGROUP },
      { "CLONE_NEWUTS", CLONE_NEWUTS },   { "CLONE_NEWIPC", CLONE_NEWIPC },
      { "CLONE_NEWUSER", CLONE_NEWUSER }, { "CLONE_NEWPID", CLONE_NEWPID },
      { "CLONE_NEWNET", CLONE_NEWNET },
    };
    for (size_t i = 0; i < sizeof (news) / sizeof (news[0]); i++)
      {
        r = native (SYS_clone, news[i].flag | SIGCHLD, 0);
        tap_ok (IS_ERRNO (r, EPERM), "clone(%s|SIGCHLD) -> %s", news[i].name, describe (r));
      }
  }
  r = native (SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | 0xffffffff00000000ull, 0);
  tap_ok (IS_ERRNO (r, EPERM), "clone(CLONE_NEWUSER|CLONE_NEWNS|high bits) -> %s", describe (r));
  r = native (SYS_clone3, 0x1000, 88);
  tap_ok (IS_ERRNO (r, ENOSYS), "clone3 -> %s", describe (r));

  /* io_uring */
  r = native (SYS_io_uring_setup, 8, 0x1000);
  tap_ok (IS_ERRNO (r, EPERM), "io_uring_setup -> %s", describe (r));
  r = native (SYS_io_uring_enter, 3, 1);
  tap_ok (IS_ERRNO (r, EPERM), "io_uring_enter -> %s", describe (r));
  r = native (SYS_io_uring_register, 3, 0);
  tap_ok (IS_ERRNO (r, EPERM), "io_uring_register -> %s", describe (r));

  /* ioctl: the request is compared on its low 32 bits only. */
  r = native (SYS_ioctl, 0, TIOCSTI);
  tap_ok (IS_ERRNO (r, EPERM), "ioctl(0, TIOCSTI) -> %s", describe (r));
  r = native (SYS_ioctl, 0, TIOCSTI | 0x100000000ull);
  tap_ok (IS_ERRNO (r, EPERM), "ioctl(0, TIOCSTI | 1 << 32) -> %s", describe (r));
  r = native (SYS_ioctl, 0, TIOCLINUX);
  tap_ok (IS_ERRNO (r, EPERM), "ioctl(0, TIOCLINUX) -> %s", describe (r));
  r = native (SYS_ioctl, 0, TIOCLINUX | 0xdead00000000ull);
  tap_ok (IS_ERRNO (r, EPERM), "ioctl(0, TIOCLINUX | high bits) -> %s", describe (r));
  r = native (SYS_ioctl, 0, TCGETS);
  tap_ok (IS_ALLOW (r), "ioctl(0, TCGETS) -> %s", describe (r));
  r = native (SYS_ioctl, 0, FIONREAD);
  tap_ok (IS_ALLOW (r), "ioctl(0, FIONREAD) -> %s", describe (r));

  /* sockets */
  r = native (SYS_socket, AF_VSOCK, SOCK_STREAM);
  tap_ok (IS_ERRNO (r, EPERM), "socket(AF_VSOCK) -> %s", describe (r));
  r = native (SYS_socket, AF_INET, SOCK_STREAM);
  tap_ok (IS_ALLOW (r), "socket(AF_INET) -> %s", describe (r));
  r = native (SYS_socket, AF_UNIX, SOCK_STREAM);
  tap_ok (IS_ALLOW (r), "socket(AF_UNIX) -> %s", describe (r));

  /* RLIMIT_CORE is fixed (a piped core_pattern) */
  r = native (SYS_setrlimit, RLIMIT_CORE, 0x1000);
  tap_ok (IS_ERRNO (r, EPERM), "setrlimit(RLIMIT_CORE) -> %s", describe (r));
  r = native (SYS_setrlimit, RLIMIT_NOFILE, 0x1000);
  tap_ok (IS_ALLOW (r), "setrlimit(RLIMIT_NOFILE) -> %s", describe (r));
  {
    struct seccomp_data d;
    memset (&d, 0, sizeof (d));
    d.arch = AUDIT_ARCH_X86_64;
    d.nr = SYS_prlimit64;
    d.args[1] = RLIMIT_CORE;
    d.args[2] = 0x1000;
    r = bpf_run (prog.insns, prog.len, &d);
    tap_ok (IS_ERRNO (r, EPERM), "prlimit64(0, RLIMIT_CORE, new) -> %s", describe (r));
    d.args[2] = 0;
    r = bpf_run (prog.insns, prog.len, &d);
    tap_ok (IS_ALLOW (r), "prlimit64(0, RLIMIT_CORE, NULL) -> %s", describe (r));
    d.args[1] = RLIMIT_NOFILE;
    d.args[2] = 0x1000;
    r = bpf_run (prog.insns, prog.len, &d);
    tap_ok (IS_ALLOW (r), "prlimit64(0, RLIMIT_NOFILE, new) -> %s", describe (r));
  }

  /* personality */
  {
    static const struct
    {
      uint64_t v;
      const char *what;
    } cases[] = {
      { 0, "PER_LINUX" },
      { 0xffffffffull, "query" },
      { 0x100000000ull, "PER_LINUX with high bits (kernel reads 0)" },
      { 0xffffffffffffffffull, "query with high bits" },
      { 0x0008, "PER_LINUX32" },
      { 0x0040000, "ADDR_NO_RANDOMIZE" },
      { 0x0400000, "READ_IMPLIES_EXEC" },
      { 1, "1" },
      { 0x80000000ull, "0x80000000" },
      { 0xfffffffeull, "0xfffffffe" },
      { 0x7fffffffull, "0x7fffffff" },
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
      {
        int want = personality_allowed (cases[i].v);
        r = native (SYS_personality, cases[i].v, 0);
        tap_ok (want ? IS_ALLOW (r) : IS_KILL (r), "personality(%s) -> %s", cases[i].what,
            describe (r));
      }
  }
  {
    /* A fixed-seed sample of 20000 values, half of them with one or two
     * bits set, against the predicate. */
    unsigned long long state = 0x9e3779b97f4a7c15ull;
    int bad = 0;
    uint64_t first_bad = 0;
    for (int i = 0; i < 20000; i++)
      {
        uint64_t v;
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v = state;
        if (i % 2)
          v = (1ull << (state >> 58)) | (i % 4 == 1 ? (1ull << ((state >> 52) & 63)) : 0);
        r = native (SYS_personality, v, 0);
        if ((personality_allowed (v) ? IS_ALLOW (r) : IS_KILL (r)) == 0 && bad++ == 0)
          first_bad = v;
      }
    tap_ok (bad == 0, "personality: 20000 sampled values decided as intended (%d wrong, first 0x%llx)",
        bad, (unsigned long long)first_bad);
  }

  /* Other ABIs: x32 numbers (bit 30) and i386 are killed, even getpid. */
  r = native (SYS_write | X32_BIT, 1, 0);
  tap_ok (IS_KILL (r), "x32 write (nr|0x40000000) -> %s", describe (r));
  r = native (SYS_getpid | X32_BIT, 0, 0);
  tap_ok (IS_KILL (r), "x32 getpid -> %s", describe (r));
  r = native (SYS_mount | X32_BIT, 0, 0);
  tap_ok (IS_KILL (r), "x32 mount -> %s", describe (r));
  r = native (SYS_clone | X32_BIT, CLONE_NEWUSER, 0);
  tap_ok (IS_KILL (r), "x32 clone(CLONE_NEWUSER) -> %s", describe (r));
  r = native (X32_BIT + 512, 0, 0);
  tap_ok (IS_KILL (r), "x32-only number 512 -> %s", describe (r));
  /* The prelude lets personality of another ABI through to libseccomp's
   * program, which must kill it whatever the argument. */
  r = native (SYS_personality | X32_BIT, 0, 0);
  tap_ok (IS_KILL (r), "x32 personality(PER_LINUX) -> %s", describe (r));
  r = decide (AUDIT_ARCH_I386, 136, 0, 0);
  tap_ok (IS_KILL (r), "i386 personality(PER_LINUX) -> %s", describe (r));
  r = decide (AUDIT_ARCH_I386, SYS_personality, 0xffffffffu, 0);
  tap_ok (IS_KILL (r), "i386 call numbered like x86_64 personality -> %s", describe (r));
  r = decide (AUDIT_ARCH_I386, 4, 1, 0);
  tap_ok (IS_KILL (r), "i386 write -> %s", describe (r));
  r = decide (AUDIT_ARCH_I386, 20, 0, 0);
  tap_ok (IS_KILL (r), "i386 getpid -> %s", describe (r));
  r = decide (AUDIT_ARCH_I386, 102, 1, 0);
  tap_ok (IS_KILL (r), "i386 socketcall -> %s", describe (r));
  r = decide (AUDIT_ARCH_AARCH64_VALUE, 64, 1, 0);
  tap_ok (IS_KILL (r), "aarch64 write -> %s", describe (r));
  /* nr -1 is what a tracer's "skip this syscall" looks like; libseccomp
   * lets it through and the kernel returns ENOSYS for it. */
  r = native (-1, 0, 0);
  tap_ok (IS_ALLOW (r), "nr -1 -> %s (kernel: ENOSYS)", describe (r));

  /* The interpreter itself is not constant: a tiny program of our own. */
  {
    struct sock_filter tiny[] = {
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 7, 0, 1),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 9),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct seccomp_data d = { .nr = 7 };
    uint32_t a = bpf_run (tiny, 4, &d);
    d.nr = 8;
    tap_ok (a == (SECCOMP_RET_ERRNO | 9) && bpf_run (tiny, 4, &d) == SECCOMP_RET_ALLOW,
        "interpreter control: a hand-written program decides both ways");
  }

  rc_seccomp_free (&prog);
  tap_ok (prog.insns == NULL && prog.len == 0, "free clears the program");
  return tap_done ();
}
