/* json_out.h - a small JSON writer into rc_buf.
 *
 * Responses carry whatever bytes a program printed.  json-c would pass
 * invalid UTF-8 through and produce invalid JSON, so strings are written
 * here: valid UTF-8 is copied, control characters are escaped, and every
 * byte that is not part of a valid UTF-8 sequence becomes U+FFFD (the
 * documented replacement, docs/api.md).
 */
#ifndef RUNCELL_COMMON_JSON_OUT_H
#define RUNCELL_COMMON_JSON_OUT_H

#include "common/job.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int rc_json_string (struct rc_buf *b, const char *s, size_t len);
int rc_json_cstring (struct rc_buf *b, const char *s);
/* Writes `"key":` preceded by ',' unless *first; clears *first. */
int rc_json_key (struct rc_buf *b, bool *first, const char *key);
int rc_json_u64 (struct rc_buf *b, uint64_t v);
int rc_json_i64 (struct rc_buf *b, int64_t v);
int rc_json_bool (struct rc_buf *b, bool v);
int rc_json_null (struct rc_buf *b);
/* Length of the longest valid UTF-8 prefix of s (for tests). */
size_t rc_utf8_valid_prefix (const char *s, size_t len);

#endif
