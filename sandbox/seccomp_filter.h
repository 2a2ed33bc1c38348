/* seccomp_filter.h - the job's seccomp denylist, built once per worker with
 * libseccomp and exported as BPF so the child loads it with one syscall.
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
  struct sock_filter *insns;
  unsigned short len;
};

/* Builds and exports the filter (once per worker). */
int rc_seccomp_build (struct rc_seccomp_program *prog, rc_err_t *err);
/* Loads it in the calling thread (after PR_SET_NO_NEW_PRIVS); async-signal
 * safe, for the child between fork and exec.  Returns -errno. */
int rc_seccomp_load (const struct rc_seccomp_program *prog);
void rc_seccomp_free (struct rc_seccomp_program *prog);

/* For tests: builds the libseccomp context of every rule but the
 * personality check (the caller releases it with seccomp_release); its
 * export is the program's tail after the first RC_SECCOMP_PRELUDE_LEN
 * instructions, which decide personality() by hand. */
void *rc_seccomp_context_new (rc_err_t *err);
#define RC_SECCOMP_PRELUDE_LEN 8

#endif
