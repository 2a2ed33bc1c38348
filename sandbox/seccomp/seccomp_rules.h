/* seccomp_rules.h - the seccomp rules, compiled at build time.
 *
 * Linked only into sandbox/seccomp-gen (which writes seccomp_program.h for
 * libsandbox.a) and into the tests that check that program against a fresh
 * compile; the runcell binaries do not link libseccomp.
 */
#ifndef RUNCELL_SANDBOX_SECCOMP_RULES_H
#define RUNCELL_SANDBOX_SECCOMP_RULES_H

#include "common/error.h"

#include <linux/filter.h>
#include <stddef.h>

/* The hand-written personality check in front of libseccomp's program. */
#define RC_SECCOMP_PRELUDE_LEN 8
extern const struct sock_filter rc_seccomp_prelude[RC_SECCOMP_PRELUDE_LEN];

/* The libseccomp context of every rule but the personality check (the
 * caller releases it with seccomp_release); its export is the program's
 * tail after the prelude. */
void *rc_seccomp_context_new (rc_err_t *err);
/* The whole program, prelude then export, in *out (malloc'ed). */
int rc_seccomp_compile (struct sock_filter **out, size_t *len, rc_err_t *err);

#endif
