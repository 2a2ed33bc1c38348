/* seccomp_rules.c - the job's seccomp denylist (summary in seccomp_filter.h).
 *
 * Compiled with libseccomp at build time, not at run time: sandbox/seccomp-gen
 * links this file, exports the classic BPF program and writes it into
 * seccomp_program.h, which seccomp_filter.c includes.  The binaries then
 * neither link libseccomp nor compile a filter when they start (0.19 ms
 * per process here, most of it libseccomp's API probes and its compiler),
 * and the child between fork and exec makes one seccomp(2) call.
 * t/unit/seccomp_test compiles the rules again and compares.
 *
 * Design notes, each checked by t/unit/seccomp_test.c against the exported
 * program and by t/isolation/syscall_probe.c against the kernel:
 *
 * - Default ALLOW: this is a denylist in front of a sandbox that already
 *   drops every capability and sets no_new_privs; its job is to shrink the
 *   kernel surface an unprivileged process can reach.
 *
 * - Architectures.  Only the native x86_64 ABI is in the filter and the
 *   bad-arch action is KILL_PROCESS, so every i386 syscall (int $0x80,
 *   sysenter: AUDIT_ARCH_I386) dies.  x32 syscalls carry AUDIT_ARCH_X86_64
 *   too, with bit 30 set in the number, which would slip past a denylist
 *   keyed on x86_64 numbers (firejail #87, kafel #19).  libseccomp 2.5
 *   handles it when x32 is not in the filter: its x86_64 prologue sends
 *   nr >= 0x40000000 (other than -1) to the bad-arch action, i.e. kill.
 *   The unit test proves this on the exported code, and the syscall probe
 *   on kernels: SIGSYS for x32 and i386 calls on Debian's 6.1 kernel booted
 *   with syscall.x32=y (where the same calls run without the filter); the
 *   development VM's kernel has neither ABI (ENOSYS, #GP on int $0x80).
 *
 * - clone(2) with any CLONE_NEW* flag -> EPERM: one masked-equality rule per
 *   flag (libseccomp ORs rules of one syscall), on the low 32 bits only,
 *   because the kernel reads clone's flags as 32 bits.  CLONE_NEWTIME (0x80)
 *   overlaps clone's exit-signal byte; a valid signal never sets bit 7, so
 *   checking it costs nothing and keeps the list complete.
 *   clone3 -> ENOSYS: BPF cannot read its flags (they are in user memory);
 *   ENOSYS makes glibc, Go and the JVM fall back to clone(2).
 *
 * - inotify_init, inotify_init1, inotify_add_watch, fanotify_init -> ENOSYS:
 *   a watch on a shared read-only file sees other jobs' opens
 *   (docs/sandbox.md).
 *
 * - io_uring_* -> EPERM, not kill: runtimes (libuv in Node) probe io_uring
 *   at start and fall back to epoll on an error.
 *
 * - ioctl TIOCSTI/TIOCLINUX -> EPERM with SCMP_CMP_MASKED_EQ on the low 32
 *   bits: the kernel truncates the request to 32 bits, so a plain equality
 *   is bypassed by TIOCSTI | (1 << 32) (CVE-2019-10063).
 *
 * - personality: only personality(0xffffffff) (a query) and
 *   personality(PER_LINUX) (runtimes reset the persona at start) are
 *   allowed; every other persona (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE,
 *   PER_LINUX32, ...) kills.  The kernel reads the argument as 32 bits.
 *   libseccomp cannot say "neither 0 nor 0xffffffff" in one rule under an
 *   ALLOW default (it took 62 rules, 190 of the 306 instructions), and the
 *   kernel converts and JITs every instruction again for each job's load,
 *   so this one check is written by hand: 8 instructions put in front of
 *   libseccomp's program (rc_seccomp_prelude below).  Classic BPF jumps
 *   are relative, so the program after it runs unchanged.
 *
 * - setrlimit(RLIMIT_CORE), prlimit64(_, RLIMIT_CORE, new != NULL) ->
 *   EPERM: the core limit of 1 is what keeps a piped core_pattern's
 *   helper from running for a crashing job (sandbox/process/child.c).
 *
 * - socket(AF_VSOCK) -> EPERM (an addition to the reference list): vsock is
 *   not network-namespaced, and on a VM host (this one is Firecracker) it
 *   reaches the hypervisor's agents from an otherwise network-less job.
 */
#include "config.h"

#include "sandbox/seccomp/seccomp_rules.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* Calls that kill the whole process.  fallback_nr is the x86_64 number for
 * calls newer than the libseccomp we build against (0: must be known). */
static const struct
{
  const char *name;
  int fallback_nr;
} kill_calls[] = {
  /* mounts and roots, old and new mount API */
  { "mount", 0 },
  { "umount2", 0 },
  { "pivot_root", 0 },
  { "chroot", 0 },
  { "open_tree", 428 },
  { "move_mount", 429 },
  { "fsopen", 430 },
  { "fsconfig", 431 },
  { "fsmount", 432 },
  { "fspick", 433 },
  { "mount_setattr", 442 },
  { "open_tree_attr", 467 },
  /* namespaces and filters */
  { "unshare", 0 },
  { "setns", 0 },
  { "seccomp", 0 },
  { "bpf", 0 },
  /* keyrings are per uid and slot uids are reused */
  { "keyctl", 0 },
  { "add_key", 0 },
  { "request_key", 0 },
  /* kernel and host control */
  { "init_module", 0 },
  { "finit_module", 0 },
  { "delete_module", 0 },
  { "kexec_load", 0 },
  { "kexec_file_load", 0 },
  { "swapon", 0 },
  { "swapoff", 0 },
  { "reboot", 0 },
  { "acct", 0 },
  { "quotactl", 0 },
  { "quotactl_fd", 443 },
  { "perf_event_open", 0 },
  /* other processes' memory and files */
  { "ptrace", 0 },
  { "process_vm_readv", 0 },
  { "process_vm_writev", 0 },
  { "process_madvise", 440 },
  { "pidfd_getfd", 438 },
  { "kcmp", 0 },
  /* Local descriptor tables are a 16-bit/emulation feature a judged
   * program never needs, and a history of kernel bugs (systemd puts it in
   * @cpu-emulation). */
  { "modify_ldt", 0 },
  { "userfaultfd", 0 },
  /* raw I/O, file handles, obsolete */
  { "iopl", 0 },
  { "ioperm", 0 },
  { "name_to_handle_at", 0 },
  { "open_by_handle_at", 0 },
  { "lookup_dcookie", 0 },
  { "nfsservctl", 0 },
  { "uselib", 0 },
  { "vhangup", 0 },
};

static const uint32_t clone_new_flags[] = {
  CLONE_NEWNS,   CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
  CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET, CLONE_NEWTIME,
};

#if !defined(__x86_64__)
#error "rc_seccomp_prelude is written for x86_64 (its arch and its argument's low half)"
#endif

/* Kills personality() unless the low 32 bits of its argument are 0 or all
 * ones; every other call, and any other ABI, goes on to libseccomp's
 * program at index 8 (which kills foreign ABIs itself).  args[0]'s low
 * half is at its own offset on little-endian x86_64. */
const struct sock_filter rc_seccomp_prelude[] = {
  BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
  BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 6),
  BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
  BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_personality, 0, 4),
  BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, args[0])),
  BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0),
  BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 1, 0),
  BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
};
#define PRELUDE_LEN (sizeof rc_seccomp_prelude / sizeof rc_seccomp_prelude[0])
_Static_assert(PRELUDE_LEN == RC_SECCOMP_PRELUDE_LEN, "seccomp_rules.h names the prelude's length");

static int
resolve (const char *name, int fallback_nr)
{
  int nr = seccomp_syscall_resolve_name (name);
  if (nr == __NR_SCMP_ERROR)
    nr = fallback_nr > 0 ? fallback_nr : __NR_SCMP_ERROR;
  return nr;
}

static int
add_rules (scmp_filter_ctx ctx, rc_err_t *err)
{
  int r;

#define ADD(action, nr, ...)                                                                       \
  do                                                                                               \
    {                                                                                              \
      r = seccomp_rule_add (ctx, action, nr, __VA_ARGS__);                                         \
      if (r < 0)                                                                                   \
        return rc_error_set (err, -r, "seccomp: rule for syscall %d (line %d)", (int)(nr),         \
                             __LINE__);                                                            \
    }                                                                                              \
  while (0)

  for (size_t i = 0; i < sizeof (kill_calls) / sizeof (kill_calls[0]); i++)
    {
      int nr = resolve (kill_calls[i].name, kill_calls[i].fallback_nr);
      if (nr == __NR_SCMP_ERROR)
        return rc_error_set (err, ENOSYS, "seccomp: unknown syscall %s", kill_calls[i].name);
      ADD (SCMP_ACT_KILL_PROCESS, nr, 0);
    }

  for (size_t i = 0; i < sizeof (clone_new_flags) / sizeof (clone_new_flags[0]); i++)
    ADD (SCMP_ACT_ERRNO (EPERM), SCMP_SYS (clone), 1,
         SCMP_A0 (SCMP_CMP_MASKED_EQ, clone_new_flags[i], clone_new_flags[i]));
  ADD (SCMP_ACT_ERRNO (ENOSYS), resolve ("clone3", 435), 0);

  /* inotify: a watch on a shared read-only file (the toolchain in /usr,
   * the language directory) sees the opens and reads of every other job of
   * the host, a side channel on them and a covert channel between two
   * jobs; the root holds nothing a job may watch for its own sake that
   * polling would not do.  ENOSYS: tail -f, libuv and the JVM fall back to
   * polling (issue 29, point 10). */
  ADD (SCMP_ACT_ERRNO (ENOSYS), SCMP_SYS (inotify_init), 0);
  ADD (SCMP_ACT_ERRNO (ENOSYS), SCMP_SYS (inotify_init1), 0);
  ADD (SCMP_ACT_ERRNO (ENOSYS), SCMP_SYS (inotify_add_watch), 0);
  /* fanotify: unprivileged since 5.13 with inode marks, the same channel. */
  ADD (SCMP_ACT_ERRNO (ENOSYS), SCMP_SYS (fanotify_init), 0);

  ADD (SCMP_ACT_ERRNO (EPERM), resolve ("io_uring_setup", 425), 0);
  ADD (SCMP_ACT_ERRNO (EPERM), resolve ("io_uring_enter", 426), 0);
  ADD (SCMP_ACT_ERRNO (EPERM), resolve ("io_uring_register", 427), 0);

  ADD (SCMP_ACT_ERRNO (EPERM), SCMP_SYS (ioctl), 1,
       SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xffffffffu, (uint32_t)TIOCSTI));
  ADD (SCMP_ACT_ERRNO (EPERM), SCMP_SYS (ioctl), 1,
       SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xffffffffu, (uint32_t)TIOCLINUX));

  ADD (SCMP_ACT_ERRNO (EPERM), SCMP_SYS (socket), 1,
       SCMP_A0 (SCMP_CMP_MASKED_EQ, 0xffffffffu, AF_VSOCK));

  /* RLIMIT_CORE cannot change (EPERM): the job's hard limit of 1 is what
   * stops a piped core_pattern from starting the host's helper, and
   * lowering it to 0 would re-enable that (sandbox/process/child.c).  prlimit64
   * only when it sets (new limit pointer non-NULL); reads stay allowed. */
  ADD (SCMP_ACT_ERRNO (EPERM), SCMP_SYS (setrlimit), 1,
       SCMP_A0 (SCMP_CMP_MASKED_EQ, 0xffffffffu, RLIMIT_CORE));
  ADD (SCMP_ACT_ERRNO (EPERM), SCMP_SYS (prlimit64), 2,
       SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xffffffffu, RLIMIT_CORE), SCMP_A2 (SCMP_CMP_NE, 0));

#undef ADD
  return 0;
}

void *
rc_seccomp_context_new (rc_err_t *err)
{
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  int r;

  if (ctx == NULL)
    {
      rc_error_set (err, ENOMEM, "seccomp: seccomp_init");
      return NULL;
    }
  /* Only the native arch is in the filter (seccomp_init adds it), so
   * anything else, i386 included, takes this action. */
  r = seccomp_attr_set (ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  if (r < 0)
    {
      rc_error_set (err, -r, "seccomp: set bad-arch action");
      seccomp_release (ctx);
      return NULL;
    }
  /* The syscall numbers as a binary tree, not libseccomp's default list
   * of one comparison each.  The kernel runs the filter once per syscall
   * number when it is loaded, to find the numbers it can allow without
   * running it again (seccomp_cache_prepare, under the sighand lock):
   * with the list, every allowed number walked all of it, about 46,000
   * instructions per load, 64 us of each job here.  The tree walks a
   * dozen per number, and every syscall of the job takes the same short
   * path while it runs. */
  r = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
  if (r < 0)
    {
      rc_error_set (err, -r, "seccomp: set binary-tree optimisation");
      seccomp_release (ctx);
      return NULL;
    }
  if (add_rules (ctx, err) < 0)
    {
      seccomp_release (ctx);
      return NULL;
    }
  return ctx;
}

int
rc_seccomp_compile (struct sock_filter **out, size_t *len, rc_err_t *err)
{
  scmp_filter_ctx ctx;
  int fd, r, ret = -1;
  struct stat st;
  size_t size;
  struct sock_filter *insns = NULL;

  *out = NULL;
  *len = 0;
  ctx = rc_seccomp_context_new (err);
  if (ctx == NULL)
    return -1;
  /* libseccomp 2.5 exports only to an fd (seccomp_export_bpf_mem is 2.6). */
  fd = memfd_create ("runcell-seccomp", MFD_CLOEXEC);
  if (fd < 0)
    {
      rc_error_sys (err, "seccomp: memfd_create");
      goto out;
    }
  r = seccomp_export_bpf (ctx, fd);
  if (r < 0)
    {
      rc_error_set (err, -r, "seccomp: seccomp_export_bpf");
      goto out;
    }
  if (fstat (fd, &st) < 0)
    {
      rc_error_sys (err, "seccomp: fstat");
      goto out;
    }
  size = (size_t)st.st_size;
  if (size == 0 || size % sizeof (struct sock_filter) != 0
      || size / sizeof (struct sock_filter) + PRELUDE_LEN > BPF_MAXINSNS)
    {
      rc_error_set (err, EINVAL, "seccomp: exported program has a bad size (%zu bytes)", size);
      goto out;
    }
  insns = malloc (sizeof rc_seccomp_prelude + size);
  if (insns == NULL)
    {
      rc_error_sys (err, "seccomp: malloc");
      goto out;
    }
  memcpy (insns, rc_seccomp_prelude, sizeof rc_seccomp_prelude);
  if (pread (fd, insns + PRELUDE_LEN, size, 0) != (ssize_t)size)
    {
      rc_error_sys (err, "seccomp: read exported program");
      goto out;
    }
  *out = insns;
  *len = PRELUDE_LEN + size / sizeof (struct sock_filter);
  insns = NULL;
  ret = 0;
out:
  free (insns);
  if (fd >= 0)
    close (fd);
  seccomp_release (ctx);
  return ret;
}
