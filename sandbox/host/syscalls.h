/* syscalls.h - thin wrappers for the system calls glibc 2.36 (Debian 12)
 * does not wrap, or wraps behind headers that clash with <sys/mount.h>.
 *
 * Each wrapper is a static inline around syscall(2) returning -1 with errno
 * set, exactly like a libc wrapper.  Constants and structures are defined
 * here under our own names when the installed headers lack them, so the
 * build does not depend on the kernel headers' vintage.  Every call here
 * exists on the oldest supported kernel (6.1); ENOSYS (a seccomp profile
 * around us) is a clear failure, never a fallback: there is one code path
 * (`runcell --check-host` reports a missing call).
 */
#ifndef RUNCELL_SANDBOX_SYSCALLS_H
#define RUNCELL_SANDBOX_SYSCALLS_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* x86_64 numbers; the headers of any supported distribution have them, the
 * fallbacks only keep an old userland building. */
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_fsopen
#define __NR_fsopen 430
#endif
#ifndef __NR_fsconfig
#define __NR_fsconfig 431
#endif
#ifndef __NR_fsmount
#define __NR_fsmount 432
#endif

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ULL
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* clone3: struct clone_args, version 2 (with cgroup), 88 bytes. */
struct rc_clone_args
{
  uint64_t flags;
  uint64_t pidfd;
  uint64_t child_tid;
  uint64_t parent_tid;
  uint64_t exit_signal;
  uint64_t stack;
  uint64_t stack_size;
  uint64_t tls;
  uint64_t set_tid;
  uint64_t set_tid_size;
  uint64_t cgroup;
};

/* Behaves like fork(2) when args->stack is 0: returns 0 in the child.  The
 * child must not rely on glibc's cached thread id (it only forks and execs
 * or runs our own code, never pthread calls). */
static inline pid_t
rc_clone3 (struct rc_clone_args *args)
{
  return (pid_t)syscall (__NR_clone3, args, sizeof (*args));
}

/* clone3 onto args->stack (its top 16-byte aligned), where the
 * child runs fn (arg) and exits with its result: for CLONE_VM children
 * (clone_on_stack.c).  Returns the child's pid, or -1 with errno set. */
pid_t rc_clone3_on_stack (struct rc_clone_args *args, int (*fn) (void *), void *arg);
/* The same returning the pid or -errno, errno untouched (see below).  With
 * CLONE_VFORK, args->stack may be 0: the child runs below the caller's
 * frame, which the parent does not use again until the child is gone. */
long rc_clone3_raw (struct rc_clone_args *args, int (*fn) (void *), void *arg);

/* A system call that returns -errno and leaves errno alone.  For code that
 * runs on another process's memory (a CLONE_VM child, and the vfork child
 * of one) while that process runs on: errno is a variable of the other
 * process's thread, and a failed call there must not change it under it.
 * x86_64 calling convention. */
static inline long
rc_raw_syscall4 (long nr, long a1, long a2, long a3, long a4)
{
  long ret;
  register long r10 __asm__("r10") = a4;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
                   : "rcx", "r11", "memory");
  return ret;
}

/* mount_setattr: struct mount_attr and the flags we use.  <linux/mount.h>
 * conflicts with <sys/mount.h> on glibc 2.36, hence our own copies. */
struct rc_mount_attr
{
  uint64_t attr_set;
  uint64_t attr_clr;
  uint64_t propagation;
  uint64_t userns_fd;
};
#define RC_MOUNT_ATTR_RDONLY 0x00000001
#define RC_MOUNT_ATTR_NOSUID 0x00000002
#define RC_MOUNT_ATTR_NODEV 0x00000004
#define RC_MOUNT_ATTR_NOEXEC 0x00000008
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

static inline int
rc_mount_setattr (int dirfd, const char *path, unsigned int flags, struct rc_mount_attr *attr)
{
  return (int)syscall (__NR_mount_setattr, dirfd, path, flags, attr, sizeof (*attr));
}

static inline int
rc_close_range (unsigned int first, unsigned int last, unsigned int flags)
{
  return (int)syscall (__NR_close_range, first, last, flags);
}

static inline int
rc_pidfd_open (pid_t pid, unsigned int flags)
{
  return (int)syscall (__NR_pidfd_open, pid, flags);
}

static inline int
rc_pidfd_send_signal (int pidfd, int sig, siginfo_t *info, unsigned int flags)
{
  return (int)syscall (__NR_pidfd_send_signal, pidfd, sig, info, flags);
}

/* The mount API of 5.2 (open_tree, move_mount, fsopen, fsconfig,
 * fsmount), under our own constant names for the same <linux/mount.h>
 * clash.  The sandbox uses open_tree(OPEN_TREE_CLONE) and move_mount to
 * hand a session's directory to a slot's init (process/run.c,
 * root/workspace.c); the fsopen, fsconfig and fsmount wrappers have no
 * caller since the root template went. */
#define RC_OPEN_TREE_CLONE 1U
#define RC_OPEN_TREE_CLOEXEC O_CLOEXEC
#define RC_MOVE_MOUNT_F_EMPTY_PATH 0x00000004U
#define RC_FSOPEN_CLOEXEC 0x00000001U
#define RC_FSMOUNT_CLOEXEC 0x00000001U
#define RC_FSCONFIG_SET_STRING 1U
#define RC_FSCONFIG_CMD_CREATE 6U

static inline int
rc_open_tree (int dirfd, const char *path, unsigned int flags)
{
  return (int)syscall (__NR_open_tree, dirfd, path, flags);
}

static inline int
rc_move_mount (int from_dirfd, const char *from_path, int to_dirfd, const char *to_path,
               unsigned int flags)
{
  return (int)syscall (__NR_move_mount, from_dirfd, from_path, to_dirfd, to_path, flags);
}

/* openat2: struct open_how and the RESOLVE_* flags. */
struct rc_open_how
{
  uint64_t flags;
  uint64_t mode;
  uint64_t resolve;
};
#define RC_RESOLVE_NO_XDEV 0x01
#define RC_RESOLVE_NO_MAGICLINKS 0x02
#define RC_RESOLVE_NO_SYMLINKS 0x04
#define RC_RESOLVE_BENEATH 0x08

static inline int
rc_openat2 (int dirfd, const char *path, struct rc_open_how *how)
{
  return (int)syscall (__NR_openat2, dirfd, path, how, sizeof (*how));
}

#endif
