/* seccomp_filter.h - the job's seccomp denylist, compiled with libseccomp
 * at build time (seccomp_rules.c) into a constant BPF program that the
 * child loads with one syscall.
 *
 * Rules (docs/sandbox.md has the reasons and references):
 *   - any ABI other than native x86_64 is killed (x32 numbers, i386 int 0x80);
 *   - KILL_PROCESS: mount family and new mount API, pivot_root, chroot,
 *     unshare, setns, seccomp, bpf, keyctl/add_key/request_key, module and
 *     kexec calls, swapon/swapoff, reboot, acct, quotactl(_fd),
 *     perf_event_open, ptrace, process_vm_readv/writev, process_madvise,
 *     pidfd_getfd, kcmp, userfaultfd, iopl, ioperm, name_to_handle_at,
 *     open_by_handle_at, lookup_dcookie, nfsservctl, personality (except the
 *     harmless queries), uselib, vhangup;
 *   - clone with any CLONE_NEW* flag -> EPERM; clone3 -> ENOSYS;
 *   - io_uring_setup/enter/register -> EPERM;
 *   - inotify_init, inotify_init1, inotify_add_watch -> ENOSYS;
 *   - ioctl TIOCSTI and TIOCLINUX (masked compare on the low 32 bits) -> EPERM;
 *   - setrlimit/prlimit64 changing RLIMIT_CORE -> EPERM: the core limit of
 *     1 keeps a piped core_pattern's helper from running (child.c).
 *   - socket(AF_VSOCK) -> EPERM: vsock is not network-namespaced, and a
 *     hypervisor's agents may listen on it (this very host is a microVM).
 */
#ifndef RUNCELL_SANDBOX_SECCOMP_FILTER_H
#define RUNCELL_SANDBOX_SECCOMP_FILTER_H

#include "common/error.h"

#include <linux/filter.h>
#include <stddef.h>

struct rc_seccomp_program
{
  const struct sock_filter *insns;
  unsigned short len;
};

/* Hands out the build-time program (cannot fail; err is for symmetry
 * with the other sandbox setup calls). */
int rc_seccomp_build (struct rc_seccomp_program *prog, rc_err_t *err);
/* Loads it in the calling thread (after PR_SET_NO_NEW_PRIVS); async-signal
 * safe, for the child between fork and exec.  Returns -errno. */
int rc_seccomp_load (const struct rc_seccomp_program *prog);
void rc_seccomp_free (struct rc_seccomp_program *prog);

#endif
