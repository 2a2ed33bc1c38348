/* lang.c - loads the language table from langs/<slug>/manifest.json.
 *
 * Each language's command is resolved once here with `make -n -s test`, run
 * in the language directory with the service's environment (so variables
 * the Makefile reads at start, like SLOW_KOTLIN, are baked in, as Codebattle's
 * runner does), and replayed per request with sh -c: no make per request.
 */
#include <config.h>

#include "common/lang.h"
#include "common/strv.h"
#include "common/clock.h"
#include "common/log.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *
obj_string (struct json_object *o, const char *key)
{
  struct json_object *v;
  if (!json_object_object_get_ex (o, key, &v) || !json_object_is_type (v, json_type_string))
    return NULL;
  return json_object_get_string (v);
}

static int
dup_string_field (struct json_object *o, const char *key, bool required, char **out, rc_err_t *err)
{
  struct json_object *v;
  if (!json_object_object_get_ex (o, key, &v) || json_object_is_type (v, json_type_null))
    {
      if (required)
        return rc_error_set (err, 0, "field '%s' is required", key);
      *out = NULL;
      return 0;
    }
  if (!json_object_is_type (v, json_type_string))
    return rc_error_set (err, 0, "field '%s' must be a string", key);
  *out = strdup (json_object_get_string (v));
  return *out ? 0 : rc_error_set (err, ENOMEM, "%s", key);
}

static int
string_array_field (struct json_object *o, const char *key, char ***out, rc_err_t *err)
{
  struct json_object *v;
  size_t i, n;
  *out = calloc (1, sizeof (char *));
  if (*out == NULL)
    return rc_error_set (err, ENOMEM, "%s", key);
  if (!json_object_object_get_ex (o, key, &v) || json_object_is_type (v, json_type_null))
    return 0;
  if (!json_object_is_type (v, json_type_array))
    return rc_error_set (err, 0, "field '%s' must be an array of strings", key);
  n = json_object_array_length (v);
  for (i = 0; i < n; i++)
    {
      struct json_object *e = json_object_array_get_idx (v, i);
      if (!json_object_is_type (e, json_type_string))
        return rc_error_set (err, 0, "field '%s' must be an array of strings", key);
      if (rc_strv_push (out, strdup (json_object_get_string (e))) < 0)
        return rc_error_set (err, ENOMEM, "%s", key);
    }
  return 0;
}

static int
size_field (struct json_object *o, const char *key, uint64_t def, uint64_t *out, rc_err_t *err)
{
  const char *s = obj_string (o, key);
  struct json_object *v;
  *out = def;
  if (!json_object_object_get_ex (o, key, &v))
    return 0;
  if (s == NULL || rc_parse_size (s, out) < 0)
    return rc_error_set (err, 0, "field '%s' must be a size string such as \"256m\"", key);
  return 0;
}

static int
limits_field (struct json_object *o, struct rc_limits *l, rc_err_t *err)
{
  struct json_object *dl;
  size_t i;

  /* Defaults from the limits document when a manifest says nothing. */
  l->wall_ms = 30000;
  l->idle_ms = 10000;
  l->cpu_ms = 15000;
  l->memory_bytes = 128ULL << 20;
  l->pids = 64;
  l->output_bytes = 512 * 1024;
  if (!json_object_object_get_ex (o, "defaultLimits", &dl))
    return 0;
  if (!json_object_is_type (dl, json_type_object))
    return rc_error_set (err, 0, "field 'defaultLimits' must be an object");
  for (i = 0; i < rc_n_limit_fields; i++)
    {
      struct json_object *v;
      int64_t n;
      if (!json_object_object_get_ex (dl, rc_limit_fields[i].key, &v))
        continue;
      if (!json_object_is_type (v, json_type_int) || (n = json_object_get_int64 (v)) <= 0)
        return rc_error_set (err, 0, "defaultLimits.%s must be a positive integer",
                             rc_limit_fields[i].key);
      *(uint64_t *)((char *)l + rc_limit_fields[i].off) = (uint64_t)n * rc_limit_fields[i].scale;
    }
  return 0;
}

/* A file name the manifest gives must be a plain name: it is joined with the
 * input directory and written inside the sandbox. */
static bool
plain_relative_path (const char *s)
{
  if (s == NULL || *s == '\0' || *s == '/')
    return false;
  for (const char *p = s; *p; p++)
    if (p[0] == '.' && p[1] == '.' && (p == s || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
      return false;
  return true;
}

/* The manifest's paths: relative ones stay inside the language directory,
 * absolute ones are where a job can see them. */
static int
check_paths (struct rc_lang *lang, rc_err_t *err)
{
  if (!plain_relative_path (lang->input_dir) || !plain_relative_path (lang->solution_file)
      || (lang->checker_file && !plain_relative_path (lang->checker_file)))
    return rc_error_set (err, 0, "inputDir, solutionFile and checkerFile must be relative paths");
  lang->n_overlay_paths = rc_strv_len (lang->overlay_paths);
  for (size_t i = 0; i < lang->n_overlay_paths; i++)
    if (lang->overlay_paths[i][0] != '/')
      return rc_error_set (err, 0, "overlayPaths must be absolute: '%s'", lang->overlay_paths[i]);
  lang->n_host_paths = rc_strv_len (lang->host_paths);
  for (size_t i = 0; i < lang->n_host_paths; i++)
    if (!rc_lang_host_path_ok (lang->host_paths[i]))
      return rc_error_set (err, 0,
                           "hostPaths: '%s' must be absolute, without . or .., and not under a path "
                           "every job mounts over (/tmp, /var/tmp, /dev, /proc, /sys, /sandbox, "
                           "/lang)",
                           lang->host_paths[i]);
  return 0;
}

/* "env": {"NAME": "value", ...} as a NULL-terminated NAME=value vector
 * (empty when absent). */
static int
env_field (struct json_object *root, struct rc_lang *lang, rc_err_t *err)
{
  struct json_object *v;
  if ((lang->env = calloc (1, sizeof (char *))) == NULL)
    return rc_error_set (err, ENOMEM, "env");
  if (!json_object_object_get_ex (root, "env", &v))
    return 0;
  if (!json_object_is_type (v, json_type_object))
    return rc_error_set (err, 0, "field 'env' must be an object of strings");
  json_object_object_foreach (v, key, val)
  {
    char *kv = NULL;
    if (!json_object_is_type (val, json_type_string))
      return rc_error_set (err, 0, "env.%s must be a string", key);
    /* rc_strv_push takes kv, freed on failure too. */
    if (asprintf (&kv, "%s=%s", key, json_object_get_string (val)) < 0
        || rc_strv_push (&lang->env, kv) < 0)
      return rc_error_set (err, ENOMEM, "env");
  }
  return 0;
}

int
rc_lang_parse_manifest (struct rc_lang *lang, const char *json, size_t len, const char *dir,
                        rc_err_t *err)
{
  struct json_tokener *tok;
  struct json_object *root, *v;
  int ret = -1;

  memset (lang, 0, sizeof *lang);
  tok = json_tokener_new_ex (32);
  if (tok == NULL)
    return rc_error_set (err, ENOMEM, "json tokener");
  root = json_tokener_parse_ex (tok, json, (int)len);
  if (root == NULL || json_tokener_get_error (tok) != json_tokener_success)
    {
      rc_error_set (err, 0, "invalid JSON: %s",
                    json_tokener_error_desc (json_tokener_get_error (tok)));
      goto out;
    }
  if (!json_object_is_type (root, json_type_object))
    {
      rc_error_set (err, 0, "manifest must be a JSON object");
      goto out;
    }
  if (dup_string_field (root, "slug", true, &lang->slug, err) < 0
      || dup_string_field (root, "inputDir", false, &lang->input_dir, err) < 0
      || dup_string_field (root, "solutionFile", true, &lang->solution_file, err) < 0
      || dup_string_field (root, "checkerFile", false, &lang->checker_file, err) < 0
      || dup_string_field (root, "unavailableReason", false, &lang->unavailable_reason, err) < 0
      || string_array_field (root, "aliases", &lang->aliases, err) < 0
      || string_array_field (root, "overlayPaths", &lang->overlay_paths, err) < 0
      || string_array_field (root, "hostPaths", &lang->host_paths, err) < 0
      || size_field (root, "tmpSize", 64ULL << 20, &lang->tmp_size, err) < 0
      || limits_field (root, &lang->default_limits, err) < 0)
    goto out;
  if (lang->input_dir == NULL && (lang->input_dir = strdup ("check")) == NULL)
    {
      rc_error_set (err, ENOMEM, "inputDir");
      goto out;
    }
  if (check_paths (lang, err) < 0)
    goto out;
  if (json_object_object_get_ex (root, "checkerRequired", &v))
    {
      if (!json_object_is_type (v, json_type_boolean))
        {
          rc_error_set (err, 0, "field 'checkerRequired' must be a boolean");
          goto out;
        }
      lang->checker_required = json_object_get_boolean (v);
    }
  if (lang->checker_required && lang->checker_file == NULL)
    {
      rc_error_set (err, 0, "checkerRequired needs checkerFile");
      goto out;
    }
  if (env_field (root, lang, err) < 0)
    goto out;
  if (json_object_object_get_ex (root, "execute", &v) && json_object_is_type (v, json_type_object))
    {
      if (dup_string_field (v, "compile", false, &lang->execute_compile, err) < 0
          || dup_string_field (v, "run", false, &lang->execute_run, err) < 0
          || dup_string_field (v, "main", false, &lang->execute_main, err) < 0)
        goto out;
    }
  if (dir != NULL && (lang->dir = strdup (dir)) == NULL)
    goto out;
  lang->available = lang->unavailable_reason == NULL;
  ret = 0;

out:
  if (ret < 0)
    {
      if (err && *err == NULL)
        rc_error_set (err, ENOMEM, "manifest");
      /* "requires" and "version" are read by the loader, not here. */
      rc_lang_free (lang);
    }
  json_object_put (root);
  json_tokener_free (tok);
  return ret;
}

static bool
program_on_path (const char *prog)
{
  /* The job's PATH: a toolchain is there when a job can find it (the
   * service's own PATH may name directories no job sees). */
  const char *path = RC_JOB_PATH;
  char buf[4096];
  if (strchr (prog, '/'))
    return access (prog, X_OK) == 0;
  while (*path)
    {
      size_t n = strcspn (path, ":");
      if (n > 0 && n + strlen (prog) + 2 < sizeof buf)
        {
          memcpy (buf, path, n);
          buf[n] = '/';
          strcpy (buf + n + 1, prog);
          if (access (buf, X_OK) == 0)
            return true;
        }
      path += n;
      if (*path == ':')
        path++;
    }
  return false;
}

/* Runs argv in dir with stdin /dev/null and returns its stdout (bounded to
 * 64 KiB) when it exits 0 within timeout_ms. */
int
rc_capture_command (const char *dir, char *const argv[], unsigned timeout_ms, char **out,
                    rc_err_t *err)
{
  int pipefd[2];
  pid_t pid;
  struct rc_buf b = { 0 };
  uint64_t start;
  int status = 0;

  if (pipe2 (pipefd, O_CLOEXEC) < 0)
    return rc_error_sys (err, "pipe2");
  pid = fork ();
  if (pid < 0)
    {
      close (pipefd[0]);
      close (pipefd[1]);
      return rc_error_sys (err, "fork");
    }
  if (pid == 0)
    {
      int devnull = open ("/dev/null", O_RDWR);
      if (devnull < 0 || dup2 (devnull, 0) < 0 || dup2 (pipefd[1], 1) < 0 || dup2 (devnull, 2) < 0)
        _exit (127);
      if (chdir (dir) < 0)
        _exit (127);
      /* An outer make's flags (jobserver fds, -w) must not leak into the
       * resolution, or the printed lines would change. */
      unsetenv ("MAKEFLAGS");
      unsetenv ("MFLAGS");
      unsetenv ("MAKELEVEL");
      unsetenv ("MAKEOVERRIDES");
      setpgid (0, 0);
      execvp (argv[0], argv);
      _exit (127);
    }
  close (pipefd[1]);
  start = rc_now_ms ();
  for (;;)
    {
      struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
      long elapsed;
      char chunk[4096];
      ssize_t n;
      elapsed = (long)(rc_now_ms () - start);
      if (elapsed >= (long)timeout_ms)
        {
          kill (-pid, SIGKILL);
          break;
        }
      if (poll (&pfd, 1, (int)((long)timeout_ms - elapsed)) <= 0)
        continue;
      n = read (pipefd[0], chunk, sizeof chunk);
      if (n <= 0)
        break;
      if (b.len < 65536)
        rc_buf_append (&b, chunk, (size_t)n);
    }
  close (pipefd[0]);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      rc_buf_free (&b);
      return rc_error_set (err, 0, "'%s' failed in %s (status %d)", argv[0], dir, status);
    }
  *out = b.data ? b.data : strdup ("");
  return 0;
}

/* Joins the lines `make -n -s test` printed into one sh script: each line
 * runs in order as make would, but in one shell. */
static int
resolve_command (struct rc_lang *lang, rc_err_t *err)
{
  char *const argv[] = { (char *)"make", (char *)"-n", (char *)"-s", (char *)"--no-print-directory",
                         (char *)"test", NULL };
  char *out = NULL;
  size_t len;
  if (rc_capture_command (lang->dir, argv, 20000, &out, err) < 0)
    return rc_error_wrap (err, "resolving `make -n test` for %s", lang->slug);
  len = strlen (out);
  while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
    out[--len] = '\0';
  if (len == 0)
    {
      free (out);
      return rc_error_set (err, 0, "%s: `make -n test` printed no command", lang->slug);
    }
  lang->command = out;
  return 0;
}

static int
read_file (const char *path, char **out, size_t *len, rc_err_t *err)
{
  FILE *f = fopen (path, "re");
  struct rc_buf b = { 0 };
  char chunk[4096];
  size_t n;
  if (f == NULL)
    return rc_error_sys (err, "open %s", path);
  while ((n = fread (chunk, 1, sizeof chunk, f)) > 0)
    if (b.len < (1 << 20))
      rc_buf_append (&b, chunk, n);
  fclose (f);
  *out = b.data ? b.data : strdup ("");
  *len = b.len;
  return 0;
}

/* The manifest's "requires" (programs on PATH) decides availability, and
 * its "version" argv is kept for GET /v1/languages. */
static void
check_requires (struct rc_lang *lang, const char *json, size_t len)
{
  struct json_object *root = json_tokener_parse (json), *req;
  (void)len;
  if (root == NULL)
    return;
  if (lang->available && json_object_object_get_ex (root, "requires", &req)
      && json_object_is_type (req, json_type_array))
    {
      for (size_t i = 0; i < json_object_array_length (req); i++)
        {
          const char *prog = json_object_get_string (json_object_array_get_idx (req, i));
          if (prog && !program_on_path (prog))
            {
              lang->available = false;
              if (asprintf (&lang->unavailable_reason, "%s is not installed", prog) < 0)
                lang->unavailable_reason = NULL;
              break;
            }
        }
    }
  if (json_object_object_get_ex (root, "version", &req)
      && json_object_is_type (req, json_type_array))
    {
      rc_strv_free (lang->version_cmd);
      lang->version_cmd = NULL;
      string_array_field (root, "version", &lang->version_cmd, NULL);
    }
  json_object_put (root);
}

/* The operator's overlay paths for this language (RUN_OVERLAY_PATHS_<SLUG>);
 * its memory and tmpfs overrides are applied by rc_limits_resolve. */
static int
apply_overrides (struct rc_lang *lang, const struct rc_config *cfg, rc_err_t *err)
{
  const struct rc_lang_override *o = rc_config_lang_override (cfg, lang->slug);
  char **copy;
  size_t n = 0;

  if (o == NULL || o->overlay_paths == NULL)
    return 0;
  while (o->overlay_paths[n])
    n++;
  copy = calloc (n + 1, sizeof *copy);
  if (copy == NULL)
    return rc_error_set (err, ENOMEM, "overlay paths");
  for (size_t i = 0; i < n; i++)
    if ((copy[i] = strdup (o->overlay_paths[i])) == NULL)
      {
        rc_strv_free (copy);
        return rc_error_set (err, ENOMEM, "overlay paths");
      }
  rc_strv_free (lang->overlay_paths);
  lang->overlay_paths = copy;
  lang->n_overlay_paths = n;
  return 0;
}

static bool
wanted (const struct rc_config *cfg, const char *slug)
{
  const char *p = cfg->languages;
  size_t len = strlen (slug);
  if (p == NULL)
    return true;
  while (*p)
    {
      size_t n = strcspn (p, ",");
      if (n == len && strncmp (p, slug, len) == 0)
        return true;
      p += n;
      if (*p == ',')
        p++;
    }
  return false;
}

static int
compare_langs (const void *a, const void *b)
{
  return strcmp (((const struct rc_lang *)a)->slug, ((const struct rc_lang *)b)->slug);
}

int
rc_lang_table_load (struct rc_lang_table *t, const struct rc_config *cfg, rc_err_t *err)
{
  DIR *d;
  struct dirent *de;
  char *real = NULL;

  memset (t, 0, sizeof *t);
  real = realpath (cfg->langs_dir, NULL);
  if (real == NULL)
    return rc_error_sys (err, "RUN_LANGS_DIR: %s", cfg->langs_dir);
  d = opendir (real);
  if (d == NULL)
    {
      rc_error_sys (err, "RUN_LANGS_DIR: opendir %s", real);
      free (real);
      return -1;
    }
  while ((de = readdir (d)) != NULL)
    {
      char dir[4096], mpath[4200];
      char *json = NULL;
      size_t len = 0;
      struct rc_lang lang, *grown;
      struct stat st;
      char *rdir;

      if (de->d_name[0] == '.')
        continue;
      snprintf (dir, sizeof dir, "%s/%s", real, de->d_name);
      /* A language directory may be a symlink (bench/, a staged tree): the
       * job's root binds it at its real path, where RUNCELL_LANG_DIR then
       * points (a copied symlink would lead nowhere inside). */
      rdir = realpath (dir, NULL);
      if (rdir == NULL)
        continue;
      snprintf (dir, sizeof dir, "%s", rdir);
      free (rdir);
      snprintf (mpath, sizeof mpath, "%s/manifest.json", dir);
      if (stat (mpath, &st) < 0 || !S_ISREG (st.st_mode))
        continue;
      if (read_file (mpath, &json, &len, err) < 0)
        goto fail;
      if (rc_lang_parse_manifest (&lang, json, len, dir, err) < 0)
        {
          free (json);
          rc_error_wrap (err, "%s", mpath);
          goto fail;
        }
      if (strcmp (lang.slug, de->d_name) != 0)
        {
          rc_error_set (err, 0, "%s: slug '%s' does not match its directory", mpath, lang.slug);
          rc_lang_free (&lang);
          free (json);
          goto fail;
        }
      if (!wanted (cfg, lang.slug))
        {
          rc_lang_free (&lang);
          free (json);
          continue;
        }
      check_requires (&lang, json, len);
      free (json);
      if (apply_overrides (&lang, cfg, err) < 0 || resolve_command (&lang, err) < 0)
        {
          rc_lang_free (&lang);
          goto fail;
        }
      grown = realloc (t->langs, (t->n + 1) * sizeof *t->langs);
      if (grown == NULL)
        {
          rc_lang_free (&lang);
          rc_error_set (err, ENOMEM, "language table");
          goto fail;
        }
      t->langs = grown;
      t->langs[t->n++] = lang;
    }
  closedir (d);
  free (real);
  qsort (t->langs, t->n, sizeof *t->langs, compare_langs);
  return 0;

fail:
  closedir (d);
  free (real);
  rc_lang_table_free (t);
  return -1;
}

const struct rc_lang *
rc_lang_find (const struct rc_lang_table *t, const char *name)
{
  size_t i;
  for (i = 0; i < t->n; i++)
    {
      if (strcmp (t->langs[i].slug, name) == 0)
        return &t->langs[i];
      for (char **a = t->langs[i].aliases; a && *a; a++)
        if (strcmp (*a, name) == 0)
          return &t->langs[i];
    }
  return NULL;
}

static bool
path_at_or_below (const char *p, const char *top)
{
  size_t n = strlen (top);
  return strncmp (p, top, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

bool
rc_lang_host_path_ok (const char *p)
{
  /* The job's own mounts and links: a host path there would be covered
   * (/tmp, /proc, ...) or lead through the /var/tmp link. */
  static const char *const reserved[]
      = { "/tmp",     "/var/tmp",      "/dev",        "/proc",     "/sys",
          "/sandbox", RC_JOB_LANG_DIR, "/etc/passwd", "/etc/group" };
  size_t n;
  if (p == NULL || p[0] != '/' || p[1] == '\0' || strstr (p, "/../") != NULL
      || strstr (p, "/./") != NULL || strlen (p) >= PATH_MAX - 16)
    return false;
  n = strlen (p);
  if ((n >= 3 && strcmp (p + n - 3, "/..") == 0) || (n >= 2 && strcmp (p + n - 2, "/.") == 0))
    return false;
  for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
    if (path_at_or_below (p, reserved[i]))
      return false;
  return true;
}

int
rc_lang_lookup (const struct rc_lang_table *t, const char *field, const char *name, bool aliases,
                enum rc_lang_need need, const struct rc_lang **out, rc_err_t *err)
{
  const struct rc_lang *l = NULL;

  *out = NULL;
  if (aliases)
    l = rc_lang_find (t, name);
  else
    for (size_t i = 0; i < t->n && l == NULL; i++)
      if (strcmp (t->langs[i].slug, name) == 0)
        l = &t->langs[i];
  if (l == NULL)
    return rc_error_http (err, 400, "unsupported %s \"%.64s\"", field, name);
  if (!l->available)
    return rc_error_http (err, 501, "language \"%s\" is not installed on this host%s%s", l->slug,
                          l->unavailable_reason ? ": " : "",
                          l->unavailable_reason ? l->unavailable_reason : "");
  if (need == RC_LANG_NEED_EXECUTE && l->execute_run == NULL)
    return rc_error_http (err, 501, "language \"%s\" has no execute command on this host", l->slug);
  *out = l;
  return 0;
}

void
rc_lang_free (struct rc_lang *lang)
{
  free (lang->slug);
  rc_strv_free (lang->aliases);
  free (lang->dir);
  free (lang->input_dir);
  free (lang->solution_file);
  free (lang->checker_file);
  free (lang->command);
  rc_strv_free (lang->overlay_paths);
  rc_strv_free (lang->host_paths);
  rc_strv_free (lang->env);
  free (lang->version);
  rc_strv_free (lang->version_cmd);
  free (lang->execute_compile);
  free (lang->execute_run);
  free (lang->execute_main);
  free (lang->unavailable_reason);
  memset (lang, 0, sizeof *lang);
}

void
rc_lang_table_free (struct rc_lang_table *t)
{
  for (size_t i = 0; i < t->n; i++)
    rc_lang_free (&t->langs[i]);
  free (t->langs);
  t->langs = NULL;
  t->n = 0;
}

char **
rc_job_env_build (const struct rc_config *cfg, const struct rc_lang *lang)
{
  char **env = calloc (1, sizeof (char *));
  size_t i;
  if (env == NULL)
    return NULL;
  for (char **kv = cfg->job_env; kv && *kv; kv++)
    if (rc_strv_push (&env, strdup (*kv)) < 0)
      goto fail;
  for (char **kv = lang ? lang->env : NULL; kv && *kv; kv++)
    {
      /* A language's own variables (GOCACHE, ...) override the service's. */
      size_t klen = strcspn (*kv, "=");
      for (i = 0; env[i]; i++)
        if (strncmp (env[i], *kv, klen) == 0 && env[i][klen] == '=')
          {
            char *copy = strdup (*kv);
            if (copy == NULL)
              goto fail;
            free (env[i]);
            env[i] = copy;
            break;
          }
      if (env[i] == NULL && rc_strv_push (&env, strdup (*kv)) < 0)
        goto fail;
    }
  if (rc_strv_push (&env, strdup ("HOME=/sandbox")) < 0)
    goto fail;
  return env;

fail:
  rc_strv_free (env);
  return NULL;
}
