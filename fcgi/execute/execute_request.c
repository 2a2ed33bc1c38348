/* execute_request.c - POST /v1/execute body parsing; see execute_request.h. */
#include "config.h"

#include "fcgi/execute/execute_request.h"
#include "fcgi/run/run_request.h"
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
dup_json_string (struct json_object *o, char **out, size_t *len)
{
  int n = json_object_get_string_len (o);
  *out = malloc ((size_t)n + 1);
  if (*out == NULL)
    return -1;
  memcpy (*out, json_object_get_string (o), (size_t)n);
  (*out)[n] = '\0';
  if (len)
    *len = (size_t)n;
  return 0;
}

#define FAIL(code, ...)                                                                            \
  do                                                                                               \
    {                                                                                              \
      rc_error_http (err, (code), __VA_ARGS__);                                                    \
      goto out;                                                                                    \
    }                                                                                              \
  while (0)

/* Not the request's fault: no HTTP status, so it is logged and a 500. */
#define FAIL_NOMEM()                                                                               \
  do                                                                                               \
    {                                                                                              \
      rc_error_set (err, ENOMEM, "out of memory");                                                 \
      goto out;                                                                                    \
    }                                                                                              \
  while (0)

int
rc_execute_request_parse (const char *body, size_t len, const struct rc_config *cfg,
                          const struct rc_lang_table *langs, struct rc_execute_request *out,
                          rc_err_t *err)
{
  struct json_object *root, *v = NULL, *files;
  struct rc_limits asked = { 0 };
  int ret = -1;
  size_t i, n;

  memset (out, 0, sizeof *out);
  root = rc_json_parse_strict (body, len, err);
  if (root == NULL)
    return -1;
  if (!json_object_is_type (root, json_type_object))
    FAIL (400, "request body must be a JSON object");

  {
    bool has_nul = false;
    const char *name = json_object_object_get_ex (root, "language", &v)
                           ? rc_json_get_name (v, NULL, &has_nul)
                           : NULL;
    if (name == NULL && v != NULL && has_nul)
      FAIL (400, "language must not contain NUL");
    if (name == NULL)
      FAIL (400, "language is required and must be a string");
    if (rc_lang_lookup (langs, "language", name, true, RC_LANG_NEED_EXECUTE, &out->lang, err) < 0)
      goto out;
  }

  if (!json_object_object_get_ex (root, "files", &files)
      || !json_object_is_type (files, json_type_array))
    FAIL (400, "files is required and must be an array");
  n = json_object_array_length (files);
  if (n == 0)
    FAIL (400, "files must hold at least one file (the entry point)");
  if (n > cfg->max_files)
    FAIL (400, "files: at most %u files (RUN_MAX_FILES)", cfg->max_files);
  out->files = calloc (n, sizeof *out->files);
  if (out->files == NULL)
    FAIL_NOMEM ();
  for (i = 0; i < n; i++)
    {
      struct json_object *f = json_object_array_get_idx (files, i), *name, *content;
      struct rc_exec_file *ef = &out->files[i];
      size_t name_len;
      bool has_nul = false;
      if (!json_object_is_type (f, json_type_object)
          || !json_object_object_get_ex (f, "name", &name)
          || rc_json_get_name (name, NULL, &has_nul) == NULL)
        {
          if (has_nul)
            FAIL (400, "files[%zu].name must not contain NUL", i);
          FAIL (400, "files[%zu].name is required and must be a string", i);
        }
      if (!json_object_object_get_ex (f, "content", &content)
          || !json_object_is_type (content, json_type_string))
        FAIL (400, "files[%zu].content is required and must be a string", i);
      if (dup_json_string (name, &ef->name, &name_len) < 0
          || dup_json_string (content, &ef->content, &ef->len) < 0)
        FAIL_NOMEM ();
      out->n_files = i + 1;
      if (!rc_exec_path_is_safe (ef->name, name_len))
        FAIL (400,
              "files[%zu].name must be a relative path without '..', NUL or control "
              "characters",
              i);
      for (size_t j = 0; j < i; j++)
        if (strcmp (out->files[j].name, ef->name) == 0)
          FAIL (400, "files[%zu].name duplicates files[%zu]", i, j);
    }

  if (json_object_object_get_ex (root, "stdin", &v) && !json_object_is_type (v, json_type_null))
    {
      if (!json_object_is_type (v, json_type_string))
        FAIL (400, "stdin must be a string");
      if (dup_json_string (v, &out->stdin_data, &out->stdin_len) < 0)
        FAIL_NOMEM ();
    }

  out->args = calloc (1, sizeof (char *));
  if (out->args == NULL)
    FAIL_NOMEM ();
  if (json_object_object_get_ex (root, "args", &v) && !json_object_is_type (v, json_type_null))
    {
      size_t na;
      if (!json_object_is_type (v, json_type_array))
        FAIL (400, "args must be an array of strings");
      na = json_object_array_length (v);
      if (na > RC_EXEC_ARGS_MAX)
        FAIL (400, "args: at most %d arguments", RC_EXEC_ARGS_MAX);
      free (out->args);
      out->args = calloc (na + 1, sizeof (char *));
      if (out->args == NULL)
        FAIL_NOMEM ();
      for (i = 0; i < na; i++)
        {
          struct json_object *a = json_object_array_get_idx (v, i);
          size_t alen;
          if (!json_object_is_type (a, json_type_string))
            FAIL (400, "args[%zu] must be a string", i);
          if (dup_json_string (a, &out->args[i], &alen) < 0)
            FAIL_NOMEM ();
          if (memchr (out->args[i], '\0', alen) != NULL)
            FAIL (400, "args[%zu] must not contain NUL", i);
        }
    }

  /* What the request asks, in bytes and ms; rc_limits_resolve lays it
   * over the language's defaults and holds it to the ceilings. */
  if (json_object_object_get_ex (root, "limits", &v) && !json_object_is_type (v, json_type_null))
    {
      if (!json_object_is_type (v, json_type_object))
        FAIL (400, "limits must be an object");
      for (i = 0; i < rc_n_limit_fields; i++)
        {
          const struct rc_limit_field *f = &rc_limit_fields[i];
          struct json_object *l;
          int64_t value;
          if (!json_object_object_get_ex (v, f->key, &l))
            continue;
          if (!json_object_is_type (l, json_type_int))
            FAIL (400, "limits.%s must be a positive integer", f->key);
          value = json_object_get_int64 (l);
          if (value <= 0)
            FAIL (400, "limits.%s must be a positive integer", f->key);
          /* Past this no ceiling can be set (config.c's range). */
          if ((uint64_t)value > UINT64_MAX / f->scale - 1)
            FAIL (400, "limits.%s: %lld is above this server's ceiling of %llu", f->key,
                  (long long)value,
                  (unsigned long long)(*(const uint64_t *)((const char *)&cfg->limit_max + f->off)
                                       / f->scale));
          *(uint64_t *)((char *)&asked + f->off) = (uint64_t)value * f->scale;
        }
      json_object_object_foreach (v, key, val)
      {
        bool known = false;
        (void)val;
        for (i = 0; i < rc_n_limit_fields; i++)
          known |= strcmp (key, rc_limit_fields[i].key) == 0;
        if (!known)
          FAIL (400, "limits.%s is not a known limit", key);
      }
    }
  if (rc_limits_resolve (cfg, out->lang, RC_LIMITS_EXECUTE, &asked, &out->limits, err) < 0)
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
  for (size_t i = 0; i < req->n_files; i++)
    {
      free (req->files[i].name);
      free (req->files[i].content);
    }
  free (req->files);
  rc_strv_free (req->args);
  free (req->stdin_data);
  memset (req, 0, sizeof *req);
}
