/* libmount_lazy.c - libmount, loaded the first time a job needs it.
 *
 * Only the language cache overlays (go's and rust's build caches) go
 * through libmount (root/workspace.c, lm_mount); every other mount is
 * mount(2).
 * Linking libmount into the binaries made every process start load it
 * and its own dependencies, libblkid, libselinux and libpcre2, and run
 * their constructors: 0.55-0.8 ms per exec on the development VM (a
 * `main(){return 0;}` linked with -lmount against one without, 400 runs
 * of each, interleaved), on a `runcell exec` of 6 ms.  So the binaries do
 * not link it: this file dlopens libmount.so.1 once and resolves the
 * dozen functions lm_mount calls.
 *
 * Who loads it.  A slot's init, the first time a job with cache overlays
 * arrives (lm_mount), on its own memory; it keeps it for the jobs after.
 * Compile-time, libmount.h still gives the types and prototypes, and
 * configure still requires libmount (mount >= 2.36).
 */
#include "config.h"

#include "sandbox/root/libmount_lazy.h"

#include <dlfcn.h>
#include <errno.h>

#define RC_LIBMOUNT_SONAME "libmount.so.1"

struct rc_libmount rc_libmount;

int
rc_libmount_load (rc_err_t *err)
{
  void *h;
  const char *missing = NULL;

  if (rc_libmount.loaded)
    return 0;
  h = dlopen (RC_LIBMOUNT_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL)
    {
      const char *why = dlerror ();
      return rc_error_set (err, ENOSYS, "sandbox: cannot load %s: %s", RC_LIBMOUNT_SONAME,
                           why ? why : "?");
    }
#define RESOLVE(field, name)                                                                       \
  do                                                                                               \
    {                                                                                              \
      *(void **)(&rc_libmount.field) = dlsym (h, name);                                            \
      if (rc_libmount.field == NULL && missing == NULL)                                            \
        missing = name;                                                                            \
    }                                                                                              \
  while (0)
  RESOLVE (new_context, "mnt_new_context");
  RESOLVE (free_context, "mnt_free_context");
  RESOLVE (disable_mtab, "mnt_context_disable_mtab");
  RESOLVE (disable_helpers, "mnt_context_disable_helpers");
  RESOLVE (disable_canonicalize, "mnt_context_disable_canonicalize");
  RESOLVE (set_source, "mnt_context_set_source");
  RESOLVE (set_target, "mnt_context_set_target");
  RESOLVE (set_fstype, "mnt_context_set_fstype");
  RESOLVE (set_options, "mnt_context_set_options");
  RESOLVE (mount, "mnt_context_mount");
  RESOLVE (syscall_called, "mnt_context_syscall_called");
  RESOLVE (get_syscall_errno, "mnt_context_get_syscall_errno");
#undef RESOLVE
  if (missing != NULL)
    {
      dlclose (h);
      return rc_error_set (err, ENOSYS, "sandbox: %s has no %s", RC_LIBMOUNT_SONAME, missing);
    }
  /* Never closed: a process loads it at most once. */
  rc_libmount.loaded = true;
  return 0;
}
