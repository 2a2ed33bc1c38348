/* run_request.c - POST /run body parsing; see run_request.h. */
#include "config.h"

#include "fcgi/run/run_request.h"
#include "common/config.h"
#include "common/json_in.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* Copies a JSON string member (may contain NUL via \u0000). */
static int
take_string (struct json_object *o, char **out, size_t *len)
{
  int n = json_object_get_string_len (o);
  const char *s = json_object_get_string (o);
  *out = malloc ((size_t)n + 1);
  if (*out == NULL)
    return -1;
  memcpy (*out, s, (size_t)n);
  (*out)[n] = '\0';
  if (len)
    *len = (size_t)n;
  return 0;
}

/* An optional string member (absent or null: left NULL); 0, -1 with a
 * 400 saying `wrong_type`, or -ENOMEM. */
static int
optional_string (struct json_object *root, const char *name, const char *wrong_type, char **out,
                 size_t *len, rc_err_t *err)
{
  struct json_object *v;
  if (!json_object_object_get_ex (root, name, &v) || json_object_is_type (v, json_type_null))
    return 0;
  if (!json_object_is_type (v, json_type_string))
    return rc_error_http (err, 400, "%s", wrong_type);
  return take_string (v, out, len) < 0 ? -ENOMEM : 0;
}

int
rc_run_request_parse (const char *body, size_t len, struct rc_run_request *out, rc_err_t *err)
{
  struct json_object *root, *v;
  int ret = -1, r;

  memset (out, 0, sizeof *out);
  root = rc_json_parse_object (body, len, err);
  if (root == NULL)
    return -1;
  if (!json_object_object_get_ex (root, "solution_text", &v)
      || json_object_is_type (v, json_type_null))
    {
      rc_error_http (err, 400, "solution_text is required");
      goto out;
    }
  if (!json_object_is_type (v, json_type_string))
    {
      rc_error_http (err, 400, "solution_text must be a string");
      goto out;
    }
  if (take_string (v, &out->solution_text, &out->solution_len) < 0)
    goto oom;
  if (!json_object_object_get_ex (root, "lang_slug", &v) || json_object_is_type (v, json_type_null))
    {
      rc_error_http (err, 400, "lang_slug is required");
      goto out;
    }
  {
    bool has_nul;
    if (rc_json_get_name (v, NULL, &has_nul) == NULL)
      {
        rc_error_http (err, 400,
                       has_nul ? "lang_slug must not contain NUL" : "lang_slug must be a string");
        goto out;
      }
  }
  if (take_string (v, &out->lang_slug, NULL) < 0)
    goto oom;
  if ((r = optional_string (root, "checker_text", "checker_text must be a string or null",
                            &out->checker_text, &out->checker_len, err))
          != 0
      || (r = optional_string (root, "asserts", "asserts must be a string holding JSON",
                               &out->asserts, &out->asserts_len, err))
             != 0)
    {
      if (r == -ENOMEM)
        goto oom;
      goto out;
    }
  if (json_object_object_get_ex (root, "timeout", &v) && !json_object_is_type (v, json_type_null))
    {
      if (!json_object_is_type (v, json_type_string))
        {
          rc_error_http (err, 400,
                         "invalid timeout: expected a string such as \"500ms\", \"2s\" or \"1m\"");
          goto out;
        }
      /* The whole string: "5s\u0000x" is as invalid as "5sx", not 5 s. */
      bool has_nul;
      const char *timeout = rc_json_get_name (v, NULL, &has_nul);
      if (timeout == NULL || rc_parse_duration_ms (timeout, &out->timeout_ms) < 0)
        {
          rc_error_http (err, 400,
                         "invalid timeout \"%.32s\": expected a number and a unit, ms, s, m or h, "
                         "such as \"500ms\", \"2s\" or \"1m\"",
                         json_object_get_string (v));
          goto out;
        }
    }
  ret = 0;
  goto out;

oom:
  rc_error_set (err, ENOMEM, "out of memory");
out:
  json_object_put (root);
  if (ret < 0)
    rc_run_request_free (out);
  return ret;
}

int
rc_run_request_check (const struct rc_run_request *req, const struct rc_config *cfg,
                      const struct rc_lang_table *langs, const struct rc_lang **lang,
                      struct rc_job_limits *limits, rc_err_t *err)
{
  struct rc_limits asked = { .wall_ms = req->timeout_ms };
  /* /run takes slugs only (aliases are a convenience of the /v1 API). */
  if (rc_lang_lookup (langs, "lang_slug", req->lang_slug, false, RC_LANG_NEED_TEST, lang, err) < 0)
    return -1;
  if ((*lang)->checker_required && req->checker_text == NULL)
    {
      *lang = NULL;
      return rc_error_http (err, 400, "checker_text is required");
    }
  return rc_limits_resolve (cfg, *lang, RC_LIMITS_RUN, &asked, limits, err);
}

void
rc_run_request_free (struct rc_run_request *req)
{
  free (req->solution_text);
  free (req->lang_slug);
  free (req->checker_text);
  free (req->asserts);
  memset (req, 0, sizeof *req);
}
