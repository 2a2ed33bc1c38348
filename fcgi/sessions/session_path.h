/* session_path.h - the sub_path normaliser of the sessions API.
 *
 * Every path a request names (the URL after /files/, a multipart filename)
 * goes through here before it reaches the file system.  The output is a
 * relative path of single-'/'-separated components with no "." or "..",
 * which session_fs.c then opens beneath the session's directory fd without
 * following symlinks, so a path can neither climb out nor be redirected.
 */
#ifndef RUNCELL_FCGI_SESSION_PATH_H
#define RUNCELL_FCGI_SESSION_PATH_H

#include <stdbool.h>
#include <stddef.h>

#define RC_SESSION_PATH_MAX 4096 /* bytes of a normalised path, NUL excluded */
#define RC_SESSION_NAME_MAX 255  /* bytes of one component */
#define RC_SESSION_DEPTH_MAX 64  /* components */

/* Normalises in[0..len) into out (out_size > RC_SESSION_PATH_MAX).
 * Rejected (returns -1, *why says why): a NUL byte, a leading '/', a
 * backslash, a ".." component, a percent-encoded '.', '/', '\' or NUL
 * (a second decoding must not change what the path means), a component
 * over RC_SESSION_NAME_MAX, too deep or too long, and the empty path
 * unless allow_empty (the session root, for listings).  Empty and "."
 * components ("a//b", "./a", "a/") are dropped. */
int rc_session_path_normalize (const char *in, size_t len, char *out, size_t out_size,
                               bool allow_empty, const char **why);

#endif
