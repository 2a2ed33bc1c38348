/* execute_request.c - POST /v1/execute body parsing and the readers of the
 * fields every /v1 body shares; see execute_request.h. */
#include "config.h"

#include "fcgi/execute/execute_request.h"
#include "common/base64.h"
#include "common/json_in.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool
rc_exec_path_is_safe (const char *name, size_t len)
{
  size_t i, comp = 0;
  if (len == 0 || len > RC_EXEC_PATH_MAX || name[0] == '/')
    return false;
  for (i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char)name[i];
      if (c < 0x20 || c == 0x7f || c == '\\')
        return false;
      if (c == '/')
        {
          if (comp == 0)
            return false;
          comp = 0;
          continue;
        }
      if (++comp > RC_EXEC_NAME_MAX)
        return false;
      /* "." and ".." components. */
      if (c == '.' && (i == 0 || name[i - 1] == '/'))
        {
          size_t j = i + 1;
          if (j < len && name[j] == '.')
            j++;
          if (j == len || name[j] == '/')
            return false;
        }
    }
  return comp > 0;
}

static int
dup_bytes (const char *s, size_t n, char **out, size_t *len)
{
  *out = malloc (n + 1);
  if (*out == NULL)
    return -1;
  memcpy (*out, s, n);
  (*out)[n] = '\0';
  if (len)
    *len = n;
  return 0;
}

static int
nomem (rc_err_t *err)
{
  /* Not the request's fault: no HTTP status, so it is logged and a 500. */
  return rc_error_set (err, ENOMEM, "out of memory");
}

int
rc_v1_bytes (struct json_object *v, const char *name, char **out, size_t *len, rc_err_t *err)
{
  static const char *const known[] = { "base64", NULL };
  struct json_object *b64;

  *out = NULL;
  *len = 0;
  if (v != NULL && json_object_is_type (v, json_type_string))
    return dup_bytes (json_object_get_string (v), (size_t)json_object_get_string_len (v), out, len)
                   < 0
               ? nomem (err)
               : 0;
  if (v == NULL || !json_object_is_type (v, json_type_object)
      || !json_object_object_get_ex (v, "base64", &b64)
      || !json_object_is_type (b64, json_type_string))
    return rc_error_http (err, 400, "%s must be a string or {\"base64\": \"...\"}", name);
  if (rc_json_known_fields (v, name, known, err) < 0)
    return -1;
  if (rc_base64_decode (json_object_get_string (b64), (size_t)json_object_get_string_len (b64), out,
                        len)
      < 0)
    return errno == ENOMEM ? nomem (err)
                           : rc_error_http (err, 400, "%s.base64 is not valid base64", name);
  return 0;
}

int
rc_v1_language (struct json_object *v, const char *key, const struct rc_lang_table *langs,
                const struct rc_lang **out, rc_err_t *err)
{
  bool has_nul = false;
  const char *name = v ? rc_json_get_name (v, NULL, &has_nul) : NULL;
  if (name == NULL && has_nul)
    return rc_error_http (err, 400, "%s must not contain NUL", key);
  if (name == NULL)
    return rc_error_http (err, 400, "%s is required and must be a string", key);
  return rc_lang_lookup (langs, key, name, true, RC_LANG_NEED_EXECUTE, out, err);
}

void
rc_v1_files_free (struct rc_exec_file *files, size_t n)
{
  for (size_t i = 0; files && i < n; i++)
    {
      free (files[i].name);
      free (files[i].content);
    }
  free (files);
}

/* One {"name", "content"}. */
static int
read_file (struct json_object *f, const char *name, size_t i, struct rc_exec_file *ef,
           rc_err_t *err)
{
  static const char *const known[] = { "name", "content", NULL };
  struct json_object *jname, *content;
  char where[192];
  size_t name_len;
  bool has_nul = false;

  snprintf (where, sizeof where, "%s[%zu]", name, i);
  if (!json_object_is_type (f, json_type_object) || !json_object_object_get_ex (f, "name", &jname)
      || rc_json_get_name (jname, &name_len, &has_nul) == NULL)
    return rc_error_http (err, 400,
                          has_nul ? "%s.name must not contain NUL"
                                  : "%s.name is required and must be a string",
                          where);
  if (rc_json_known_fields (f, where, known, err) < 0)
    return -1;
  if (!json_object_object_get_ex (f, "content", &content))
    return rc_error_http (err, 400, "%s.content is required and must be a string", where);
  {
    char cname[224];
    snprintf (cname, sizeof cname, "%s.content", where);
    if (rc_v1_bytes (content, cname, &ef->content, &ef->len, err) < 0)
      return -1;
  }
  if (dup_bytes (json_object_get_string (jname), name_len, &ef->name, NULL) < 0)
    return nomem (err);
  if (!rc_exec_path_is_safe (ef->name, name_len))
    return rc_error_http (err, 400,
                          "%s.name must be a relative path without '..', NUL or control "
                          "characters",
                          where);
  return 0;
}

int
rc_v1_files (struct json_object *v, const char *name, const struct rc_config *cfg,
             struct rc_exec_file **files, size_t *n_out, rc_err_t *err)
{
  struct rc_exec_file *out;
  size_t n;

  *files = NULL;
  *n_out = 0;
  if (v == NULL || !json_object_is_type (v, json_type_array))
    return rc_error_http (err, 400, "%s is required and must be an array", name);
  n = json_object_array_length (v);
  if (n == 0)
    return rc_error_http (err, 400, "%s must hold at least one file (the entry point)", name);
  if (n > cfg->max_files)
    return rc_error_http (err, 400, "%s: at most %u files (RUN_MAX_FILES)", name, cfg->max_files);
  out = calloc (n, sizeof *out);
  if (out == NULL)
    return nomem (err);
  for (size_t i = 0; i < n; i++)
    {
      if (read_file (json_object_array_get_idx (v, i), name, i, &out[i], err) < 0)
        goto fail;
      for (size_t j = 0; j < i; j++)
        if (strcmp (out[j].name, out[i].name) == 0)
          {
            rc_error_http (err, 400, "%s[%zu].name duplicates %s[%zu]", name, i, name, j);
            goto fail;
          }
    }
  *files = out;
  *n_out = n;
  return 0;
fail:
  rc_v1_files_free (out, n);
  return -1;
}

int
rc_v1_args (struct json_object *v, const char *name, char ***args, rc_err_t *err)
{
  size_t na = 0;
  char **out;

  *args = NULL;
  if (v != NULL && !json_object_is_type (v, json_type_null))
    {
      if (!json_object_is_type (v, json_type_array))
        return rc_error_http (err, 400, "%s must be an array of strings", name);
      na = json_object_array_length (v);
      if (na > RC_EXEC_ARGS_MAX)
        return rc_error_http (err, 400, "%s: at most %d arguments", name, RC_EXEC_ARGS_MAX);
    }
  out = calloc (na + 1, sizeof *out);
  if (out == NULL)
    return nomem (err);
  for (size_t i = 0; i < na; i++)
    {
      char where[192];
      size_t alen;
      snprintf (where, sizeof where, "%s[%zu]", name, i);
      if (rc_v1_bytes (json_object_array_get_idx (v, i), where, &out[i], &alen, err) < 0)
        goto fail;
      /* An argument is a C string: a NUL would cut it silently. */
      if (memchr (out[i], '\0', alen) != NULL)
        {
          rc_error_http (err, 400, "%s must not contain NUL", where);
          goto fail;
        }
    }
  *args = out;
  return 0;
fail:
  rc_strv_free (out);
  return -1;
}

int
rc_v1_limits (struct json_object *v, const char *name, const struct rc_config *cfg,
              struct rc_limits *asked, rc_err_t *err)
{
  if (v == NULL || json_object_is_type (v, json_type_null))
    return 0;
  if (!json_object_is_type (v, json_type_object))
    return rc_error_http (err, 400, "%s must be an object", name);
  json_object_object_foreach (v, key, l)
  {
    const struct rc_limit_field *f = NULL;
    int64_t value;
    for (size_t i = 0; i < rc_n_limit_fields && f == NULL; i++)
      if (strcmp (key, rc_limit_fields[i].key) == 0)
        f = &rc_limit_fields[i];
    if (f == NULL)
      return rc_error_http (err, 400,
                            "%s.%s is not a known field (a limit: wallTimeMs, idleMs, "
                            "cpuMs, memoryMb, pids, outputKb)",
                            name, key);
    if (!json_object_is_type (l, json_type_int) || (value = json_object_get_int64 (l)) <= 0)
      return rc_error_http (err, 400, "%s.%s must be a positive integer", name, key);
    /* Past this no ceiling can be set (config.c's range). */
    if ((uint64_t)value > UINT64_MAX / f->scale - 1)
      return rc_error_http (
          err, 400, "%s.%s: %lld is above this server's ceiling of %llu", name, key,
          (long long)value,
          (unsigned long long)(*(const uint64_t *)((const char *)&cfg->limit_max + f->off)
                               / f->scale));
    *(uint64_t *)((char *)asked + f->off) = (uint64_t)value * f->scale;
  }
  return 0;
}

int
rc_v1_encoding (struct json_object *v, bool *base64, rc_err_t *err)
{
  const char *s;
  *base64 = false;
  if (v == NULL || json_object_is_type (v, json_type_null))
    return 0;
  s = json_object_is_type (v, json_type_string) ? json_object_get_string (v) : "";
  if (strcmp (s, "base64") == 0)
    *base64 = true;
  else if (strcmp (s, "utf-8") != 0)
    return rc_error_http (err, 400, "encoding must be \"utf-8\" or \"base64\"");
  return 0;
}

static struct json_object *
member (struct json_object *o, const char *key)
{
  struct json_object *v = NULL;
  return json_object_object_get_ex (o, key, &v) ? v : NULL;
}

int
rc_execute_request_parse (const char *body, size_t len, const struct rc_config *cfg,
                          const struct rc_lang_table *langs, struct rc_execute_request *out,
                          rc_err_t *err)
{
  static const char *const known[] = { "language",      "files",    "stdin", "args", "limits",
                                       "compileLimits", "encoding", "tty",   NULL };
  struct json_object *root, *v;
  struct rc_limits asked = { 0 }, asked_compile = { 0 };
  struct rc_limits_ask ask = { &asked, &asked_compile, NULL, NULL };
  int ret = -1;

  memset (out, 0, sizeof *out);
  root = rc_json_parse_object (body, len, err);
  if (root == NULL)
    return -1;
  if (rc_v1_language (member (root, "language"), "language", langs, &out->lang, err) < 0
      || rc_v1_files (member (root, "files"), "files", cfg, &out->files, &out->n_files, err) < 0
      || rc_json_known_fields (root, "", known, err) < 0)
    goto out;
  v = member (root, "stdin");
  if (v != NULL && !json_object_is_type (v, json_type_null)
      && rc_v1_bytes (v, "stdin", &out->stdin_data, &out->stdin_len, err) < 0)
    goto out;
  v = member (root, "tty");
  if (v != NULL && !json_object_is_type (v, json_type_null))
    {
      if (!json_object_is_type (v, json_type_boolean))
        {
          rc_error_http (err, 400, "tty must be a boolean");
          goto out;
        }
      out->tty = json_object_get_boolean (v);
    }
  /* What the request asks, in bytes and ms; rc_limits_resolve lays it
   * over the language's defaults and holds it to the ceilings. */
  if (rc_v1_args (member (root, "args"), "args", &out->args, err) < 0
      || rc_v1_limits (member (root, "limits"), "limits", cfg, &asked, err) < 0
      || rc_v1_limits (member (root, "compileLimits"), "compileLimits", cfg, &asked_compile, err)
             < 0
      || rc_v1_encoding (member (root, "encoding"), &out->base64_out, err) < 0
      || rc_limits_resolve_ask (cfg, out->lang, RC_LIMITS_EXECUTE, &ask, &out->limits, err) < 0)
    goto out;
  ret = 0;

out:
  json_object_put (root);
  if (ret < 0)
    rc_execute_request_free (out);
  return ret;
}

void
rc_execute_request_free (struct rc_execute_request *req)
{
  rc_v1_files_free (req->files, req->n_files);
  rc_strv_free (req->args);
  free (req->stdin_data);
  memset (req, 0, sizeof *req);
}
