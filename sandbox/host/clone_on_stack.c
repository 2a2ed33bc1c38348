/* clone_on_stack.c - clone3 with a stack of the caller's choosing.
 *
 * A child that shares the caller's memory (CLONE_VM) cannot return from
 * the system call the way a forked one does: the stack it would return
 * through is the caller's, in use.  It starts on a stack of its own, with
 * nothing on it, so a few instructions must call its function there and
 * exit with what it returns; glibc keeps its clone3 to itself (2.36), so
 * these are ours.  x86_64 only, like the seccomp filter's prelude.
 */
#include "config.h"

#include "sandbox/host/syscalls.h"

#include <errno.h>

#if !defined(__x86_64__)
#error "rc_clone3_on_stack is written for x86_64"
#endif

/* long rc_clone3_call (struct rc_clone_args *args, size_t size,
 *                      int (*fn) (void *), void *arg)
 * The parent gets the syscall's result (pid or -errno).  The child starts
 * at the instruction after the syscall with every register but rax, rcx
 * and r11 as the parent had them, and rsp at args->stack +
 * args->stack_size, or where the parent's was (stack 0, CLONE_VFORK): fn
 * and arg ride in r8 and r9, rsp is aligned down to 16 for the call, and
 * rbp is cleared so a backtrace ends there. */
_Static_assert(__NR_clone3 == 435, "the stub below hard-codes clone3's number");
_Static_assert(__NR_exit_group == 231, "the stub below hard-codes exit_group's number");

/* clang-format off */
__asm__ (".text\n"
         ".p2align 4\n"
         ".type rc_clone3_call, @function\n"
         "rc_clone3_call:\n"
         "  mov %rdx, %r8\n"
         "  mov %rcx, %r9\n"
         "  mov $435, %eax\n"      /* clone3 */
         "  syscall\n"
         "  test %rax, %rax\n"
         "  jnz 1f\n"
         "  xor %ebp, %ebp\n"
         "  and $-16, %rsp\n"      /* the ABI's alignment at a call, either stack */
         "  mov %r9, %rdi\n"
         "  call *%r8\n"
         "  mov %eax, %edi\n"
         "  mov $231, %eax\n"      /* exit_group: fn returned */
         "  syscall\n"
         "  hlt\n"
         "1:\n"
         "  ret\n"
         ".size rc_clone3_call, .-rc_clone3_call\n");
/* clang-format on */

long rc_clone3_call (struct rc_clone_args *args, size_t size, int (*fn) (void *), void *arg);

long
rc_clone3_raw (struct rc_clone_args *args, int (*fn) (void *), void *arg)
{
  return rc_clone3_call (args, sizeof (*args), fn, arg);
}

pid_t
rc_clone3_on_stack (struct rc_clone_args *args, int (*fn) (void *), void *arg)
{
  long r = rc_clone3_call (args, sizeof (*args), fn, arg);
  if (r < 0)
    {
      errno = (int)-r;
      return -1;
    }
  return (pid_t)r;
}
