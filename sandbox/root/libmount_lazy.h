/* libmount_lazy.h - libmount's functions, resolved at run time by
 * rc_libmount_load (libmount_lazy.c has why).  The pointer types come from
 * libmount.h itself, so a prototype that changes is a compile error. */
#ifndef RUNCELL_SANDBOX_LIBMOUNT_LAZY_H
#define RUNCELL_SANDBOX_LIBMOUNT_LAZY_H

#include "common/error.h"

#include <libmount.h>
#include <stdbool.h>

struct rc_libmount
{
  bool loaded;
  __typeof__ (mnt_new_context) *new_context;
  __typeof__ (mnt_free_context) *free_context;
  __typeof__ (mnt_context_disable_mtab) *disable_mtab;
  __typeof__ (mnt_context_disable_helpers) *disable_helpers;
  __typeof__ (mnt_context_disable_canonicalize) *disable_canonicalize;
  __typeof__ (mnt_context_set_source) *set_source;
  __typeof__ (mnt_context_set_target) *set_target;
  __typeof__ (mnt_context_set_fstype) *set_fstype;
  __typeof__ (mnt_context_set_options) *set_options;
  __typeof__ (mnt_context_mount) *mount;
  __typeof__ (mnt_context_syscall_called) *syscall_called;
  __typeof__ (mnt_context_get_syscall_errno) *get_syscall_errno;
};
extern struct rc_libmount rc_libmount;

/* dlopens libmount.so.1 and fills rc_libmount, once per process; < 0
 * (ENOSYS, err names the library or the missing symbol) when it cannot. */
int rc_libmount_load (rc_err_t *err);

#endif
