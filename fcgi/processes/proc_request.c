/* proc_request.c - a process's request bodies; see proc_request.h. */
#include "config.h"

#include "fcgi/processes/proc_request.h"
#include "common/config.h"
#include "common/json_in.h"

#include <errno.h>
#include <json-c/json.h>
#include <signal.h>
#include <string.h>
#include <strings.h>

bool
rc_proc_is_json (const char *ct)
{
  size_t n;
  if (ct == NULL)
    return false;
  ct += strspn (ct, " \t");
  n = strcspn (ct, "; \t");
  return n == 16 && strncasecmp (ct, "application/json", 16) == 0;
}

int
rc_proc_stdin_parse (const char *content_type, const char *body, size_t len, struct rc_buf *data,
                     bool *eof, rc_err_t *err)
{
  static const char *const keys[] = { "data", "eof", NULL };
  struct json_object *root, *v;
  int ret = -1;

  *eof = false;
  rc_buf_reset (data);
  if (!rc_proc_is_json (content_type))
    return len && rc_buf_append (data, body, len) < 0 ? rc_error_set (err, ENOMEM, "stdin") : 0;
  root = rc_json_parse_object (body, len, err);
  if (root == NULL)
    return -1;
  if (rc_json_known_fields (root, "", keys, err) < 0)
    goto out;
  if (json_object_object_get_ex (root, "data", &v) && !json_object_is_type (v, json_type_null))
    {
      if (!json_object_is_type (v, json_type_string))
        {
          rc_error_http (err, 400, "data must be a string");
          goto out;
        }
      if (json_object_get_string_len (v) > 0
          && rc_buf_append (data, json_object_get_string (v),
                            (size_t)json_object_get_string_len (v))
                 < 0)
        {
          rc_error_set (err, ENOMEM, "stdin");
          goto out;
        }
    }
  if (json_object_object_get_ex (root, "eof", &v) && !json_object_is_type (v, json_type_null))
    {
      if (!json_object_is_type (v, json_type_boolean))
        {
          rc_error_http (err, 400, "eof must be a boolean");
          goto out;
        }
      *eof = json_object_get_boolean (v);
    }
  ret = 0;
out:
  json_object_put (root);
  return ret;
}

int
rc_proc_signal_parse (const char *body, size_t len, int *sig, rc_err_t *err)
{
  static const char *const keys[] = { "signal", NULL };
  static const struct
  {
    const char *name;
    int sig;
  } allowed[] = { { "SIGINT", SIGINT },  { "SIGTERM", SIGTERM }, { "SIGKILL", SIGKILL },
                  { "SIGHUP", SIGHUP },  { "SIGQUIT", SIGQUIT }, { "SIGUSR1", SIGUSR1 },
                  { "SIGUSR2", SIGUSR2 } };
  struct json_object *root = rc_json_parse_object (body, len, err), *v;
  const char *name;
  bool has_nul = false;
  int ret = -1;

  if (root == NULL)
    return -1;
  if (rc_json_known_fields (root, "", keys, err) < 0)
    goto out;
  if (!json_object_object_get_ex (root, "signal", &v)
      || (name = rc_json_get_name (v, NULL, &has_nul)) == NULL)
    {
      rc_error_http (err, 400, "signal is required and must be a string");
      goto out;
    }
  for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
    if (strcmp (name, allowed[i].name) == 0)
      {
        *sig = allowed[i].sig;
        ret = 0;
        goto out;
      }
  rc_error_http (err, 400,
                 "signal must be one of SIGINT, SIGTERM, SIGKILL, SIGHUP, SIGQUIT, SIGUSR1, "
                 "SIGUSR2");
out:
  json_object_put (root);
  return ret;
}

static int
dimension (struct json_object *root, const char *key, unsigned *out, rc_err_t *err)
{
  struct json_object *v;
  int64_t n;
  if (!json_object_object_get_ex (root, key, &v) || !json_object_is_type (v, json_type_int))
    return rc_error_http (err, 400, "%s is required and must be an integer", key);
  n = json_object_get_int64 (v);
  if (n < 1 || n > 65535)
    return rc_error_http (err, 400, "%s must be between 1 and 65535", key);
  *out = (unsigned)n;
  return 0;
}

int
rc_proc_resize_parse (const char *body, size_t len, unsigned *rows, unsigned *cols, rc_err_t *err)
{
  static const char *const keys[] = { "rows", "cols", NULL };
  struct json_object *root = rc_json_parse_object (body, len, err);
  int ret = -1;
  if (root == NULL)
    return -1;
  if (rc_json_known_fields (root, "", keys, err) == 0 && dimension (root, "rows", rows, err) == 0
      && dimension (root, "cols", cols, err) == 0)
    ret = 0;
  json_object_put (root);
  return ret;
}

unsigned long long
rc_proc_last_event_id (const char *header)
{
  uint64_t v = 0;
  if (header == NULL)
    return 0;
  header += strspn (header, " \t");
  return rc_parse_u64 (header, &v) == 0 ? (unsigned long long)v : 0;
}
