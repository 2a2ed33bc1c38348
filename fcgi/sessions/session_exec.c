/* session_exec.c - one execution inside a session.
 *
 * Sequence, all under the session's lock:
 *   1. uploads are staged and published (all or nothing);
 *   2. a slot is claimed (waiting up to SESSION_LOCK_WAIT_TIMEOUT_SECONDS);
 *   3. the session tree is given to the slot's uid (a job may only write
 *      what it owns, and each slot has its own uid), then the "before"
 *      snapshot is taken: after the chown, so its ctime change is not
 *      mistaken for the job's;
 *   4. the job (rc_job_build, from the language's manifest) runs with the
 *      session bound at /sandbox;
 *   5. the "after" snapshot; changed files are read back (O_PATH, fstat,
 *      re-open: never a FIFO, never through a symlink) and returned as
 *      parts, at most MAX_RESULT_ATTACHMENTS of them.
 * The answer is multipart/mixed: a JSON part, then one part per file with
 * its exact sub_path in filename* (RFC 5987) and a flattened ASCII
 * filename for clients that only read that one.
 */
#include "config.h"

#include "fcgi/sessions/session_exec.h"
#include "common/job_build.h"
#include "common/json_out.h"
#include "common/log.h"
#include "sandbox/hostfs.h"
#include "sandbox/session_workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* Bytes of attachments one answer carries; past it files are omitted. */
#define ATTACH_BYTES_MAX (256ULL << 20)

void
rc_exec_request_free (struct rc_exec_request *er)
{
  rc_buf_free (&er->code);
  for (size_t i = 0; i < er->n_uploads; i++)
    rc_buf_free (&er->uploads[i].data);
  free (er->uploads);
  memset (er, 0, sizeof *er);
}

/* What a failed write of an upload means: the request's fault (quota,
 * path shape) with its status, or a failure of the service. */
static int
upload_error (int e, const char *what, const char *path, rc_err_t *err)
{
  switch (e)
    {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return rc_error_http (err, 413, "session size or entry limit exceeded");
    case ENOTDIR:
    case ELOOP:
      return rc_error_http (err, 400, "a parent of the path is not a directory");
    case EISDIR:
      return rc_error_http (err, 400, "the path is a directory");
    case ENAMETOOLONG:
      return rc_error_http (err, 400, "path too long");
    default:
      errno = e;
      return rc_error_sys (err, "%s %s", what, path);
    }
}

int
rc_session_write_uploads (struct rc_session *s, const struct rc_session_config *sc,
                          struct rc_session_upload *ups, size_t n, struct rc_http_response *res)
{
  struct rc_hostfs_stage *st;
  size_t i, staged = 0;
  rc_err_t err = NULL;

  if (n == 0)
    return 0;
  for (i = 0; i < n; i++)
    if (ups[i].data.len > sc->fsize)
      {
        rc_http_errorf (res, 413, "%s: larger than CONTAINER_ULIMIT_FSIZE (%llu bytes)",
                        ups[i].path, (unsigned long long)sc->fsize);
        return 413;
      }
  /* One upload inside another's path ("d" and "d/x") cannot both be
   * written: refuse before anything touches the session. */
  for (i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      {
        size_t li = strlen (ups[i].path);
        if (i != j && strncmp (ups[i].path, ups[j].path, li) == 0 && ups[j].path[li] == '/')
          {
            rc_http_errorf (res, 400, "%s: both a file and a parent directory", ups[i].path);
            return 400;
          }
      }
  st = calloc (n, sizeof *st);
  if (st == NULL)
    {
      rc_http_internal (res, "session_upload", "out of memory for %zu uploads", n);
      return 500;
    }
  for (i = 0; i < n; i++)
    {
      if (rc_hostfs_stage (s->dirfd, ups[i].path, ups[i].data.data ? ups[i].data.data : "",
                        ups[i].data.len, &st[i])
          < 0)
        {
          upload_error (errno, "stage", ups[i].path, &err);
          break;
        }
      staged++;
    }
  if (err == NULL)
    for (i = 0; i < n; i++)
      if (rc_hostfs_publish (&st[i]) < 0)
        {
          int e = errno;
          rc_log (RC_LOG_ERROR, "session_publish", "%s: %s", ups[i].path, strerror (e));
          upload_error (e, "publish", ups[i].path, &err);
          break;
        }
  /* Reverse order, so a directory a later stage created inside an
   * earlier one's is removed first. */
  for (i = staged; i-- > 0;)
    {
      if (err != NULL)
        rc_hostfs_stage_abort (&st[i], s->dirfd);
      rc_hostfs_stage_free (&st[i]);
    }
  free (st);
  if (err == NULL)
    return 0;
  rc_http_error_from (res, &err, "session_write");
  return res->status;
}

/* RFC 5987 attr-char; everything else is percent-encoded. */
static bool
attr_char (unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
         || (c != 0 && strchr ("!#$&+-.^_`|~", c) != NULL);
}

static void
put_disposition (struct rc_buf *b, const char *path, size_t len)
{
  static const char hex[] = "0123456789ABCDEF";
  rc_buf_append_str (b, "Content-Disposition: attachment; name=\"attachments\"; filename=\"");
  for (size_t i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char)path[i];
      char out = (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '/') ? (char)c : '_';
      rc_buf_append (b, &out, 1);
    }
  rc_buf_append_str (b, "\"; filename*=UTF-8''");
  for (size_t i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char)path[i];
      if (attr_char (c))
        rc_buf_append (b, (const char *)&c, 1);
      else
        {
          char esc[3] = { '%', hex[c >> 4], hex[c & 15] };
          rc_buf_append (b, esc, 3);
        }
    }
  rc_buf_append_str (b, "\r\n");
}

void
rc_session_answer_part (struct rc_buf *b, const char *boundary, const char *path, size_t path_len,
                        const char *data, size_t len)
{
  rc_buf_printf (b, "--%s\r\nContent-Type: application/octet-stream\r\n", boundary);
  put_disposition (b, path, path_len);
  rc_buf_append_str (b, "\r\n");
  if (len)
    rc_buf_append (b, data, len);
  rc_buf_append_str (b, "\r\n");
}

static void
make_boundary (char out[48])
{
  static const char hex[] = "0123456789abcdef";
  unsigned char raw[16];
  if (getrandom (raw, sizeof raw, 0) != (ssize_t)sizeof raw)
    memset (raw, 0x3c, sizeof raw);
  memcpy (out, "runcell-", 8);
  for (size_t i = 0; i < sizeof raw; i++)
    {
      out[8 + 2 * i] = hex[raw[i] >> 4];
      out[9 + 2 * i] = hex[raw[i] & 15];
    }
  out[40] = '\0';
}

struct attachment
{
  const struct rc_hostfs_entry *e;
  struct rc_buf data;
};

struct prep_ctx
{
  struct rc_app *app;
  struct rc_session *s;
  struct rc_hostfs_snapshot *before;
};

static int
prepare_slot (int slot, void *ud)
{
  struct prep_ctx *c = ud;
  if (c->app->sandbox && rc_sandbox_mode_of (c->app->sandbox) == RC_SANDBOX_ISOLATED)
    {
      uid_t uid = rc_slot_uid (c->app->cfg, slot);
      if (rc_session_ws_chown_tree (c->s->dirfd, uid, (gid_t)uid, RC_HOSTFS_WALK_DEPTH) < 0)
        rc_log (RC_LOG_WARN, "session_chown", "some entries keep their owner: %s",
                strerror (errno));
    }
  if (rc_hostfs_snapshot_take (c->s->dirfd, c->before) < 0)
    {
      rc_log (RC_LOG_ERROR, "session_snapshot", "before: %s", strerror (errno));
      return -1;
    }
  return 0;
}

static bool
is_utf8 (const char *s, size_t len)
{
  return rc_utf8_valid_prefix (s, len) == len;
}

static void
json_name_list (struct rc_buf *b, bool *first, const char *key,
                const struct rc_hostfs_entry *const *list, size_t n)
{
  rc_json_key (b, first, key);
  rc_buf_append (b, "[", 1);
  for (size_t i = 0; i < n; i++)
    {
      if (i)
        rc_buf_append (b, ",", 1);
      rc_json_string (b, list[i]->path, list[i]->path_len);
    }
  rc_buf_append (b, "]", 1);
}

void
rc_session_execute (struct rc_app *app, const struct rc_session_config *sc, struct rc_session *s,
                    const struct rc_exec_request *er, struct rc_http_response *res)
{
  struct rc_hostfs_snapshot before = { 0 }, after = { 0 };
  struct prep_ctx pc = { app, s, &before };
  struct rc_job_result result = { 0 };
  struct rc_job_request jr;
  struct rc_job job = { 0 };
  rc_err_t err = NULL;
  size_t *changed = NULL, *deleted = NULL, n_changed = 0, n_deleted = 0;
  const struct rc_hostfs_entry **omitted = NULL, **gone = NULL;
  struct attachment *att = NULL;
  size_t n_att = 0, n_omitted = 0;
  uint64_t att_bytes = 0;
  const struct rc_step_result *st;
  struct rc_buf json = { 0 };
  bool first = true;
  static char ctype[96];
  char boundary[48];
  int bind_fd = -1;

  res->log_lang = er->lang->slug;
  bind_fd = openat (s->dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (bind_fd < 0)
    {
      rc_http_internal (res, "session_exec", "open the session directory: %s", strerror (errno));
      goto out;
    }
  /* The session's limits are fields of the job's limits: the sandbox sets
   * RLIMIT_NOFILE and RLIMIT_FSIZE, no shell prologue does. */
  memset (&jr, 0, sizeof jr);
  jr.kind = RC_JOB_EXECUTE;
  jr.workspace = RC_WORKSPACE_BIND;
  jr.bind_dirfd = bind_fd;
  jr.code = er->code.data ? er->code.data : "";
  jr.code_len = er->code.len;
  if (rc_limits_resolve (app->cfg, er->lang, RC_LIMITS_SESSION, NULL, &jr.limits, &err) < 0
      || rc_job_build (&job, er->lang, &jr, app->cfg, &err) < 0)
    {
      rc_http_error_from (res, &err, "job_build");
      goto out;
    }

  if (rc_app_run_job_wait (app, &job.spec, &result, res, sc->lock_wait_s * 1000u, prepare_slot, &pc)
      < 0)
    goto out;
  st = &result.steps[0];
  res->log_wall_ms = st->wall_ms;
  res->log_cpu_ms = st->cpu_ms;
  res->log_mem_kb = st->memory_peak_kb;

  if (rc_hostfs_snapshot_take (s->dirfd, &after) < 0
      || rc_hostfs_snapshot_diff (&before, &after, &changed, &n_changed, &deleted, &n_deleted) < 0)
    {
      rc_http_internal (res, "session_snapshot", "after: %s", strerror (errno));
      goto out;
    }
  omitted = calloc (n_changed + 1, sizeof *omitted);
  gone = calloc (n_deleted + 1, sizeof *gone);
  att = calloc (n_changed + 1, sizeof *att);
  if (omitted == NULL || gone == NULL || att == NULL)
    {
      rc_http_internal (res, "session_exec", "out of memory for %zu results", n_changed);
      goto out;
    }
  for (size_t i = 0; i < n_deleted; i++)
    gone[i] = &before.e[deleted[i]];
  for (size_t i = 0; i < n_changed; i++)
    {
      const struct rc_hostfs_entry *e = &after.e[changed[i]];
      struct stat sb;
      int fd;
      bool ok = false;
      if (n_att < sc->max_attachments && is_utf8 (e->path, e->path_len)
          && att_bytes + (uint64_t)e->size <= ATTACH_BYTES_MAX
          && (fd = rc_hostfs_open_regular (s->dirfd, e->path, &sb)) >= 0)
        {
          att[n_att].e = e;
          if (rc_hostfs_read_fd (fd, ATTACH_BYTES_MAX - att_bytes, &att[n_att].data) == 0)
            {
              att_bytes += att[n_att].data.len;
              n_att++;
              ok = true;
            }
          else
            rc_buf_free (&att[n_att].data);
          close (fd);
        }
      if (!ok)
        omitted[n_omitted++] = e;
    }

  rc_buf_append (&json, "{", 1);
  rc_json_key (&json, &first, "output");
  {
    struct rc_buf o = { 0 };
    rc_buf_append (&o, st->out.data ? st->out.data : "", st->out.len);
    if (st->err.len)
      rc_buf_append (&o, st->err.data, st->err.len);
    rc_json_string (&json, o.data ? o.data : "", o.len);
    rc_buf_free (&o);
  }
  rc_json_key (&json, &first, "return_code");
  rc_json_i64 (&json, st->exited ? st->exit_code : 128 + st->term_signal);
  rc_json_key (&json, &first, "execution_time");
  rc_buf_printf (&json, "%.3f", (double)st->wall_ms / 1000.0);
  rc_json_key (&json, &first, "timed_out");
  rc_json_bool (&json, st->outcome == RC_OUTCOME_WALL || st->outcome == RC_OUTCOME_CPU);
  rc_json_key (&json, &first, "truncated");
  rc_json_bool (&json, st->truncated);
  rc_json_key (&json, &first, "oom_killed");
  rc_json_bool (&json, st->outcome == RC_OUTCOME_MEMORY);
  json_name_list (&json, &first, "deleted_files", gone, n_deleted);
  json_name_list (&json, &first, "omitted_files", omitted, n_omitted);
  rc_buf_append (&json, "}", 1);

  /* A boundary that occurs in a part would cut it: draw again. */
  for (int tries = 0; tries < 8; tries++)
    {
      bool clash = false;
      make_boundary (boundary);
      clash = memmem (json.data, json.len, boundary, strlen (boundary)) != NULL;
      for (size_t i = 0; !clash && i < n_att; i++)
        clash = att[i].data.len
                && memmem (att[i].data.data, att[i].data.len, boundary, strlen (boundary));
      if (!clash)
        break;
    }
  rc_buf_reset (&res->body);
  rc_buf_printf (&res->body, "--%s\r\nContent-Type: application/json\r\n\r\n", boundary);
  rc_buf_append (&res->body, json.data, json.len);
  rc_buf_append_str (&res->body, "\r\n");
  for (size_t i = 0; i < n_att; i++)
    rc_session_answer_part (&res->body, boundary, att[i].e->path, att[i].e->path_len,
                            att[i].data.data, att[i].data.len);
  rc_buf_printf (&res->body, "--%s--\r\n", boundary);
  snprintf (ctype, sizeof ctype, "multipart/mixed; boundary=%s", boundary);
  res->status = 200;
  res->content_type = ctype;
  res->log_has_exit = st->exited;
  res->log_exit_code = st->exited ? st->exit_code : 128 + st->term_signal;
  res->log_outcome = rc_outcome_limit (st->outcome) ? rc_outcome_limit (st->outcome) : "ok";

out:
  if (att)
    for (size_t i = 0; i < n_att; i++)
      rc_buf_free (&att[i].data);
  free (att);
  free (omitted);
  free (gone);
  free (changed);
  free (deleted);
  rc_buf_free (&json);
  rc_hostfs_snapshot_free (&before);
  rc_hostfs_snapshot_free (&after);
  rc_job_result_free (&result);
  if (bind_fd >= 0)
    close (bind_fd);
  rc_job_free (&job);
}
