/* base64.h - RFC 4648 base64 (standard alphabet, padded), the encoding of
 * bytes in JSON bodies: a request field written {"base64": "..."} instead of
 * a string, and an output that is not valid UTF-8 (or asked for with
 * "encoding": "base64") in an answer.
 */
#ifndef RUNCELL_COMMON_BASE64_H
#define RUNCELL_COMMON_BASE64_H

#include "common/job.h"

#include <stdbool.h>
#include <stddef.h>

/* Appends the encoding of data to b; < 0 when out of memory. */
int rc_base64_encode (struct rc_buf *b, const void *data, size_t len);

/* Decodes text (len bytes) into a new NUL-terminated buffer (*out, *out_len
 * bytes).  Strict: the standard alphabet, padding to a multiple of 4, no
 * whitespace, zero bits where the padding leaves some.  -1 with errno
 * EINVAL for malformed text, ENOMEM. */
int rc_base64_decode (const char *text, size_t len, char **out, size_t *out_len);

#endif
