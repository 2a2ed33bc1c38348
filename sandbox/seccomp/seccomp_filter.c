/* seccomp_filter.c - the job's seccomp program at run time.
 *
 * The program itself is compiled at build time (seccomp_rules.c has the
 * rules and why; sandbox/seccomp-gen writes seccomp_program.h), so this
 * file only hands out that constant array and loads it: no libseccomp, no
 * allocation, async-signal-safe between fork and exec.
 */
#include "config.h"

#include "sandbox/seccomp/seccomp_filter.h"
#include "sandbox/seccomp/seccomp_program.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

_Static_assert(sizeof rc_seccomp_generated / sizeof rc_seccomp_generated[0] <= BPF_MAXINSNS,
               "the generated program fits the kernel's limit");

int
rc_seccomp_build (struct rc_seccomp_program *prog, rc_err_t *err)
{
  (void)err;
  prog->insns = rc_seccomp_generated;
  prog->len = (unsigned short)(sizeof rc_seccomp_generated / sizeof rc_seccomp_generated[0]);
  return 0;
}

int
rc_seccomp_load (const struct rc_seccomp_program *prog)
{
  /* The kernel copies the program in; it never writes through filter. */
  struct sock_fprog fprog = { .len = prog->len, .filter = (struct sock_filter *)prog->insns };

  /* The caller has set PR_SET_NO_NEW_PRIVS (without it, or CAP_SYS_ADMIN,
   * the kernel refuses with EACCES).  No TSYNC: the child is one thread. */
  if (syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) == 0)
    return 0;
  if (errno != ENOSYS)
    return -errno;
  /* Kernels before 3.17 only have the prctl entry. */
  if (prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) == 0)
    return 0;
  return -errno;
}

void
rc_seccomp_free (struct rc_seccomp_program *prog)
{
  if (prog == NULL)
    return;
  prog->insns = NULL;
  prog->len = 0;
}
