/* strv.h - NULL-terminated arrays of owned strings (argv, environments,
 * path lists) and formatted string copies: one implementation for every
 * list the configuration, the language table and the job builder grow. */
#ifndef RUNCELL_COMMON_STRV_H
#define RUNCELL_COMMON_STRV_H

#include <stddef.h>

size_t rc_strv_len (char *const *v);
/* Appends s, which the array then owns; s NULL (a failed strdup) or out of
 * memory: -1, and s is freed. */
int rc_strv_push (char ***v, char *s);
/* Appends a copy of s[0..len). */
int rc_strv_pushn (char ***v, const char *s, size_t len);
void rc_strv_free (char **v);
/* A malloc'd formatted string, or NULL. */
char *rc_strdupf (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

#endif
