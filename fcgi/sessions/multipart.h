/* multipart.h - a small streaming multipart/form-data parser (RFC 7578).
 *
 * No maintained C library parses multipart/form-data outside an HTTP
 * server, so this is runcell's own, kept small and strict: bounded header
 * block per part, bounded number of parts, no header folding, and a body
 * that must end with the closing delimiter.  Input is fed in chunks of any
 * size (a chunk may split a delimiter anywhere); part contents are handed
 * to the callbacks as they are recognised, never buffered whole, so the
 * parser's memory is bounded by the header limit whatever the body size.
 * fuzz/multipart_fuzz.c drives it with arbitrary input and chunking.
 */
#ifndef RUNCELL_FCGI_MULTIPART_H
#define RUNCELL_FCGI_MULTIPART_H

#include <stdbool.h>
#include <stddef.h>

#define RC_MP_BOUNDARY_MAX 70 /* RFC 2046 */

struct rc_mp_limits
{
  size_t max_parts;        /* parts in one body */
  size_t max_header_bytes; /* header block of one part, CRLFs included */
};

/* What a part's headers said.  Strings are NUL-terminated and valid until
 * part_end; filename is NULL for a plain field.  filename* (RFC 5987,
 * UTF-8'' form) wins over filename; its decoded bytes may contain NUL, so
 * filename_len is authoritative. */
struct rc_mp_part
{
  const char *name;
  const char *filename;
  size_t filename_len;
  const char *content_type; /* NULL when absent */
};

struct rc_mp_callbacks
{
  /* Each returns 0 to go on, < 0 to stop the parse (rc_mp_feed then
   * returns -1 with why = the callback's message, if it set one). */
  int (*part_begin) (void *ud, const struct rc_mp_part *part, const char **why);
  int (*part_data) (void *ud, const char *data, size_t len, const char **why);
  int (*part_end) (void *ud, const char **why);
};

struct rc_mp_parser;

/* Extracts the boundary parameter of a multipart/form-data Content-Type
 * into out (size > RC_MP_BOUNDARY_MAX).  -1: not multipart/form-data or no
 * valid boundary. */
int rc_mp_boundary (const char *content_type, char *out, size_t out_size);

/* NULL on ENOMEM or an invalid boundary. */
struct rc_mp_parser *rc_mp_new (const char *boundary, const struct rc_mp_limits *limits,
                                const struct rc_mp_callbacks *cbs, void *ud);
/* Feeds len bytes; -1 on malformed input or a callback's refusal, with a
 * static message in *why.  After -1 the parser refuses further input. */
int rc_mp_feed (struct rc_mp_parser *p, const char *data, size_t len, const char **why);
/* The body ended: -1 unless the closing delimiter was seen. */
int rc_mp_finish (struct rc_mp_parser *p, const char **why);
void rc_mp_free (struct rc_mp_parser *p);

/* Convenience: parses a whole body held in memory. */
int rc_mp_parse (const char *content_type, const char *body, size_t len,
                 const struct rc_mp_limits *limits, const struct rc_mp_callbacks *cbs, void *ud,
                 const char **why);

#endif
