/* json_in.h - the one place request bodies are tokenized.
 *
 * json-c, even with JSON_TOKENER_STRICT (0.16), accepts single-quoted
 * strings, NaN/Infinity, raw control characters in strings, "1." and
 * duplicate keys (the last one silently wins).  A body is therefore first
 * checked against the RFC 8259 grammar here, then handed to json-c for the
 * tree.  Duplicate keys are refused: two readers of the same body (a proxy
 * and runcell) could otherwise see two different requests.
 */
#ifndef RUNCELL_COMMON_JSON_IN_H
#define RUNCELL_COMMON_JSON_IN_H

#include "common/error.h"

#include <stdbool.h>
#include <stddef.h>

struct json_object;

/* Nesting limit of request bodies. */
#define RC_JSON_MAX_DEPTH 64

/* Parses one RFC 8259 JSON text (UTF-8, no BOM, nothing but whitespace
 * around the value).  Returns a new reference or NULL with *msg set to a
 * message starting with "invalid JSON". */
struct json_object *rc_json_parse_strict (const char *body, size_t len, rc_err_t *err);

/* A request body: rc_json_parse_strict, and a JSON object, else NULL and
 * a 400 "request body must be a JSON object". */
struct json_object *rc_json_parse_object (const char *body, size_t len, rc_err_t *err);

/* Every member of obj is named in known (NULL-terminated); else a 400
 * "WHERE.key is not a known field" (just "key" when where is ""). */
int rc_json_known_fields (struct json_object *obj, const char *where, const char *const *known,
                          rc_err_t *err);

/* A string that names something (a slug, a file name, an env key, a path):
 * returns it when `o` is a JSON string without U+0000, else NULL.
 * *has_nul tells the two failures apart (wrong type vs NUL inside). */
const char *rc_json_get_name (struct json_object *o, size_t *len, bool *has_nul);

#endif
