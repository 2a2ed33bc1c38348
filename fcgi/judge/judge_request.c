/* judge_request.c - POST /v1/judge body parsing; see judge_request.h. */
#include "config.h"

#include "fcgi/judge/judge_request.h"
#include "common/json_in.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct json_object *
member (struct json_object *o, const char *key)
{
  struct json_object *v = NULL;
  return json_object_object_get_ex (o, key, &v) ? v : NULL;
}

static bool
is_null (struct json_object *v)
{
  return v == NULL || json_object_is_type (v, json_type_null);
}

static int
parse_compare (struct json_object *v, struct rc_compare *c, rc_err_t *err)
{
  static const char *const known[] = { "float", NULL };
  static const struct
  {
    const char *name;
    enum rc_compare_mode mode;
  } modes[] = { { "exact", RC_COMPARE_EXACT },
                { "lines", RC_COMPARE_LINES },
                { "tokens", RC_COMPARE_TOKENS } };
  struct json_object *eps;

  c->mode = RC_COMPARE_LINES;
  c->eps = 0;
  if (is_null (v))
    return 0;
  if (json_object_is_type (v, json_type_string))
    {
      for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp (json_object_get_string (v), modes[i].name) == 0)
          {
            c->mode = modes[i].mode;
            return 0;
          }
    }
  else if (json_object_is_type (v, json_type_object) && (eps = member (v, "float")) != NULL)
    {
      if (rc_json_known_fields (v, "compare", known, err) < 0)
        return -1;
      if ((!json_object_is_type (eps, json_type_double)
           && !json_object_is_type (eps, json_type_int))
          || !isfinite (json_object_get_double (eps)) || json_object_get_double (eps) < 0)
        return rc_error_http (err, 400, "compare.float must be a number >= 0");
      c->mode = RC_COMPARE_FLOAT;
      c->eps = json_object_get_double (eps);
      return 0;
    }
  return rc_error_http (err, 400,
                        "compare must be \"exact\", \"lines\", \"tokens\" or {\"float\": eps}");
}

static int
parse_bool (struct json_object *v, const char *name, bool *out, rc_err_t *err)
{
  *out = false;
  if (is_null (v))
    return 0;
  if (!json_object_is_type (v, json_type_boolean))
    return rc_error_http (err, 400, "%s must be true or false", name);
  *out = json_object_get_boolean (v);
  return 0;
}

static void
program_free (struct rc_judge_program *p)
{
  rc_v1_files_free (p->files, p->n_files);
  memset (p, 0, sizeof *p);
}

/* A checker or an interactor: its own language, files and limits (the
 * defaults of its language, never the submission's). */
static int
parse_helper (struct json_object *v, const char *name, const struct rc_config *cfg,
              const struct rc_lang_table *langs, struct rc_judge_program *p, rc_err_t *err)
{
  static const char *const known[] = { "language", "files", "limits", "compileLimits", NULL };
  static const char *const reserved[] = { RC_JUDGE_INPUT, RC_JUDGE_OUTPUT, RC_JUDGE_ANSWER };
  struct rc_limits asked = { 0 }, asked_c = { 0 };
  char where[64], lname[64], cname[64], lang_key[64];
  struct rc_limits_ask ask = { &asked, &asked_c, lname, cname };

  if (is_null (v))
    return 0;
  if (!json_object_is_type (v, json_type_object))
    return rc_error_http (err, 400, "%s must be null or an object", name);
  snprintf (where, sizeof where, "%s.files", name);
  snprintf (lname, sizeof lname, "%s.limits", name);
  snprintf (cname, sizeof cname, "%s.compileLimits", name);
  snprintf (lang_key, sizeof lang_key, "%s.language", name);
  if (rc_json_known_fields (v, name, known, err) < 0)
    return -1;
  if (rc_v1_language (member (v, "language"), lang_key, langs, &p->lang, err) < 0)
    return -1;
  if (rc_v1_files (member (v, "files"), where, cfg, &p->files, &p->n_files, err) < 0)
    return -1;
  for (size_t i = 0; i < p->n_files; i++)
    for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++)
      if (strcmp (p->files[i].name, reserved[k]) == 0)
        return rc_error_http (err, 400, "%s[%zu].name: \"%s\" is the name the %s's %s file takes",
                              where, i, reserved[k], name, reserved[k]);
  if (rc_v1_limits (member (v, "limits"), lname, cfg, &asked, err) < 0
      || rc_v1_limits (member (v, "compileLimits"), cname, cfg, &asked_c, err) < 0)
    return -1;
  return rc_limits_resolve_ask (cfg, p->lang, RC_LIMITS_EXECUTE, &ask, &p->limits, err);
}

static int
parse_test (struct json_object *v, size_t i, const struct rc_config *cfg,
            const struct rc_lang *lang, const struct rc_limits *asked_base, struct rc_judge_test *t,
            rc_err_t *err)
{
  static const char *const known[] = { "name", "stdin", "expected", "args", "limits", NULL };
  struct rc_limits asked = *asked_base;
  struct rc_limits_ask ask = { &asked, NULL, NULL, NULL };
  struct rc_job_limits jl;
  char where[48], name[80];
  struct json_object *f;

  snprintf (where, sizeof where, "tests[%zu]", i);
  if (!json_object_is_type (v, json_type_object))
    return rc_error_http (err, 400, "%s must be an object", where);
  if (rc_json_known_fields (v, where, known, err) < 0)
    return -1;
  f = member (v, "name");
  if (is_null (f))
    {
      /* Unnamed tests are numbered from 1, as contest systems show them. */
      if (asprintf (&t->name, "%zu", i + 1) < 0)
        t->name = NULL;
    }
  else
    {
      bool has_nul = false;
      const char *s = rc_json_get_name (f, NULL, &has_nul);
      if (s == NULL)
        return rc_error_http (err, 400, "%s.name must be a string without NUL", where);
      t->name = strdup (s);
    }
  if (t->name == NULL)
    return rc_error_set (err, ENOMEM, "out of memory");
  snprintf (name, sizeof name, "%s.stdin", where);
  if (!is_null (f = member (v, "stdin"))
      && rc_v1_bytes (f, name, &t->stdin_data, &t->stdin_len, err) < 0)
    return -1;
  snprintf (name, sizeof name, "%s.expected", where);
  if (!is_null (f = member (v, "expected"))
      && rc_v1_bytes (f, name, &t->expected, &t->expected_len, err) < 0)
    return -1;
  snprintf (name, sizeof name, "%s.args", where);
  if (rc_v1_args (member (v, "args"), name, &t->args, err) < 0)
    return -1;
  snprintf (name, sizeof name, "%s.limits", where);
  ask.run_name = name;
  if (rc_v1_limits (member (v, "limits"), name, cfg, &asked, err) < 0
      || rc_limits_resolve_ask (cfg, lang, RC_LIMITS_JUDGE, &ask, &jl, err) < 0)
    return -1;
  t->run = jl.run;
  return 0;
}

static int
parse_tests (struct json_object *v, const struct rc_config *cfg, const struct rc_lang *lang,
             const struct rc_limits *asked, struct rc_judge_request *out, rc_err_t *err)
{
  size_t n;
  if (v == NULL || !json_object_is_type (v, json_type_array))
    return rc_error_http (err, 400, "tests is required and must be an array");
  n = json_object_array_length (v);
  if (n == 0)
    return rc_error_http (err, 400, "tests must hold at least one test");
  if (n > cfg->judge.max_tests)
    return rc_error_http (err, 400, "tests: at most %u tests (RUN_JUDGE_MAX_TESTS)",
                          cfg->judge.max_tests);
  out->tests = calloc (n, sizeof *out->tests);
  if (out->tests == NULL)
    return rc_error_set (err, ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++)
    {
      out->n_tests = i + 1;
      if (parse_test (json_object_array_get_idx (v, i), i, cfg, lang, asked, &out->tests[i], err)
          < 0)
        return -1;
    }
  return 0;
}

int
rc_judge_request_parse (const char *body, size_t len, const struct rc_config *cfg,
                        const struct rc_lang_table *langs, struct rc_judge_request *out,
                        rc_err_t *err)
{
  static const char *const known[]
      = { "language",   "files",         "compileLimits", "limits", "compare", "checker",
          "interactor", "stopOnFailure", "encoding",      "tests",  NULL };
  struct json_object *root;
  struct rc_limits asked = { 0 }, asked_c = { 0 };
  struct rc_limits_ask ask = { &asked, &asked_c, NULL, NULL };
  int ret = -1;

  memset (out, 0, sizeof *out);
  root = rc_json_parse_object (body, len, err);
  if (root == NULL)
    return -1;
  if (rc_json_known_fields (root, "", known, err) < 0
      || rc_v1_language (member (root, "language"), "language", langs, &out->program.lang, err) < 0
      || rc_v1_files (member (root, "files"), "files", cfg, &out->program.files,
                      &out->program.n_files, err)
             < 0
      || rc_v1_limits (member (root, "limits"), "limits", cfg, &asked, err) < 0
      || rc_v1_limits (member (root, "compileLimits"), "compileLimits", cfg, &asked_c, err) < 0
      || rc_limits_resolve_ask (cfg, out->program.lang, RC_LIMITS_JUDGE, &ask, &out->program.limits,
                                err)
             < 0
      || parse_compare (member (root, "compare"), &out->compare, err) < 0
      || parse_bool (member (root, "stopOnFailure"), "stopOnFailure", &out->stop_on_failure, err)
             < 0
      || rc_v1_encoding (member (root, "encoding"), &out->base64_out, err) < 0
      || parse_helper (member (root, "checker"), "checker", cfg, langs, &out->checker, err) < 0
      || parse_helper (member (root, "interactor"), "interactor", cfg, langs, &out->interactor, err)
             < 0)
    goto out;
  if (out->checker.lang && out->interactor.lang)
    {
      rc_error_http (err, 400,
                     "checker and interactor: give one (the interactor's exit code is the "
                     "verdict of an interactive test)");
      goto out;
    }
  if (parse_tests (member (root, "tests"), cfg, out->program.lang, &asked, out, err) < 0)
    goto out;
  ret = 0;

out:
  json_object_put (root);
  if (ret < 0)
    rc_judge_request_free (out);
  return ret;
}

void
rc_judge_request_free (struct rc_judge_request *req)
{
  program_free (&req->program);
  program_free (&req->checker);
  program_free (&req->interactor);
  for (size_t i = 0; i < req->n_tests; i++)
    {
      struct rc_judge_test *t = &req->tests[i];
      free (t->name);
      free (t->stdin_data);
      free (t->expected);
      rc_strv_free (t->args);
    }
  free (req->tests);
  memset (req, 0, sizeof *req);
}
