/* step_render.h - how the /v1 answers write what a step did: the one
 * renderer of a step for /v1/execute (its run at the top level, its
 * compile step in "compile") and /v1/judge (its compile steps, each test's
 * fields), so the two never disagree on a field.
 *
 * Program output is binary-safe: a JSON string when it is valid UTF-8, else
 * (or always, with "encoding": "base64" in the request) {"base64": "..."}.
 */
#ifndef RUNCELL_FCGI_EXECUTE_STEP_RENDER_H
#define RUNCELL_FCGI_EXECUTE_STEP_RENDER_H

#include "common/job.h"

#include <stdbool.h>
#include <stddef.h>

/* Bytes a program wrote, or gave (a test's expected output). */
int rc_v1_render_bytes (struct rc_buf *b, const char *data, size_t len, bool base64);
/* The same for an output that may have been cut (cut: a budget or a cap
 * stopped it): text whose last character the cut split stays a string,
 * without that piece. */
int rc_v1_render_output (struct rc_buf *b, const char *data, size_t len, bool base64, bool cut);
/* "exitCode" (null unless it exited) and "signal" ("SIGKILL", or null). */
void rc_v1_render_exit (struct rc_buf *b, bool *first, const struct rc_step_result *st);
/* "limit" (the limit that ended it, or null), "wallMs", "cpuMs",
 * "memoryPeakKb". */
void rc_v1_render_usage (struct rc_buf *b, bool *first, const struct rc_step_result *st);
/* The whole step as an object: exit, "stdout", "stderr", the flags
 * derived from its one verdict ("timedOut", "idleTimedOut", "truncated",
 * "oomKilled"), usage. */
void rc_v1_render_step (struct rc_buf *b, const struct rc_step_result *st, bool base64);

#endif
