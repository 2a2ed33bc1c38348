/* session_exec.c - one execution inside a session.
 *
 * Sequence, all under the session's lock:
 *   1. uploads are staged and published (all or nothing);
 *   2. a slot is claimed (through the queue: RUN_QUEUE_ROUTES, fcgi/jobs.c);
 *   3. the session tree is given to the slot's uid (a job may only write
 *      what it owns, and each slot has its own uid), then the "before"
 *      snapshot is taken: after the chown, so its ctime change is not
 *      mistaken for the job's;
 *   4. the job (rc_job_build, from the language's manifest) runs with the
 *      session bound at /sandbox;
 *   5. the "after" snapshot; changed files are read back (O_PATH, fstat,
 *      re-open: never a FIFO, never through a symlink) and returned as
 *      parts, at most MAX_RESULT_ATTACHMENTS of them and MAX_RESULT_BYTES
 *      of their apparent sizes.
 * The answer is multipart/mixed: a JSON part, then one part per file with
 * its exact sub_path in filename* (RFC 5987) and a flattened ASCII
 * filename for clients that only read that one; the files are streamed
 * (session_send.h), so the worker's memory does not grow with them.
 */
#include "config.h"

#include "fcgi/sessions/session_exec.h"
#include "common/job_build.h"
#include "common/json_out.h"
#include "common/log.h"
#include "fcgi/sessions/session_send.h"
#include "sandbox/hostfs.h"
#include "sandbox/session_workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

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
rc_session_answer_part_head (struct rc_buf *b, const char *boundary, const char *path,
                             size_t path_len)
{
  rc_buf_printf (b, "--%s\r\nContent-Type: application/octet-stream\r\n", boundary);
  put_disposition (b, path, path_len);
  rc_buf_append_str (b, "\r\n");
}

void
rc_session_answer_part (struct rc_buf *b, const char *boundary, const char *path, size_t path_len,
                        const char *data, size_t len)
{
  rc_session_answer_part_head (b, boundary, path, path_len);
  if (len)
    rc_buf_append (b, data, len);
  rc_buf_append_str (b, "\r\n");
}

/* 128 random bits drawn after the job ended: no job can write them into
 * a file, so no part is scanned for them (the parts are streamed, never
 * held whole). */
static int
make_boundary (char out[48])
{
  static const char hex[] = "0123456789abcdef";
  unsigned char raw[16];
  if (getrandom (raw, sizeof raw, 0) != (ssize_t)sizeof raw)
    return -1;
  memcpy (out, "runcell-", 8);
  for (size_t i = 0; i < sizeof raw; i++)
    {
      out[8 + 2 * i] = hex[raw[i] >> 4];
      out[9 + 2 * i] = hex[raw[i] & 15];
    }
  out[40] = '\0';
  return 0;
}

/* A changed file the answer carries: its entry and the size it has (the
 * job is over and the session locked: it stays so). */
struct attachment
{
  const struct rc_hostfs_entry *e;
  uint64_t size;
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

/* The changed files the answer carries: at most MAX_RESULT_ATTACHMENTS of
 * them and MAX_RESULT_BYTES of their apparent sizes (a sparse file counts
 * whole: it is read whole); the others are named in omitted_files. */
static void
select_attachments (struct rc_session *s, const struct rc_session_config *sc,
                    const struct rc_hostfs_snapshot *after, const size_t *changed, size_t n_changed,
                    struct attachment *att, size_t *n_att, const struct rc_hostfs_entry **omitted,
                    size_t *n_omitted)
{
  uint64_t bytes = 0;
  *n_att = *n_omitted = 0;
  for (size_t i = 0; i < n_changed; i++)
    {
      const struct rc_hostfs_entry *e = &after->e[changed[i]];
      struct stat sb;
      int fd = -1;
      if (*n_att < sc->max_attachments && is_utf8 (e->path, e->path_len)
          && (fd = rc_hostfs_open_regular (s->dirfd, e->path, &sb)) >= 0
          && (uint64_t)sb.st_size <= sc->max_result_bytes - bytes)
        {
          att[*n_att].e = e;
          att[*n_att].size = (uint64_t)sb.st_size;
          bytes += (uint64_t)sb.st_size;
          (*n_att)++;
        }
      else
        omitted[(*n_omitted)++] = e;
      if (fd >= 0)
        close (fd);
    }
}

static void
result_json (struct rc_buf *json, const struct rc_step_result *st,
             const struct rc_hostfs_entry *const *gone, size_t n_gone,
             const struct rc_hostfs_entry *const *omitted, size_t n_omitted)
{
  struct rc_buf o = { 0 };
  bool first = true;
  rc_buf_append (json, "{", 1);
  rc_json_key (json, &first, "output");
  rc_buf_append (&o, st->out.data ? st->out.data : "", st->out.len);
  if (st->err.len)
    rc_buf_append (&o, st->err.data, st->err.len);
  rc_json_string (json, o.data ? o.data : "", o.len);
  rc_buf_free (&o);
  rc_json_key (json, &first, "return_code");
  rc_json_i64 (json, st->exited ? st->exit_code : 128 + st->term_signal);
  rc_json_key (json, &first, "execution_time");
  rc_buf_printf (json, "%.3f", (double)st->wall_ms / 1000.0);
  rc_json_key (json, &first, "timed_out");
  rc_json_bool (json, st->outcome == RC_OUTCOME_WALL || st->outcome == RC_OUTCOME_CPU);
  rc_json_key (json, &first, "truncated");
  rc_json_bool (json, st->truncated);
  rc_json_key (json, &first, "oom_killed");
  rc_json_bool (json, st->outcome == RC_OUTCOME_MEMORY);
  json_name_list (json, &first, "deleted_files", gone, n_gone);
  json_name_list (json, &first, "omitted_files", omitted, n_omitted);
  rc_buf_append (json, "}", 1);
}

/* The multipart/mixed answer: the JSON part, then each file, streamed
 * from the session (session_send.h).  < 0 before anything was sent. */
static int
send_answer (struct rc_session *s, const struct rc_buf *json, const struct attachment *att,
             size_t n_att, struct rc_http_response *res)
{
  static char ctype[96];
  char boundary[48];
  struct rc_buf head = { 0 };

  if (make_boundary (boundary) < 0)
    return -1;
  snprintf (ctype, sizeof ctype, "multipart/mixed; boundary=%s", boundary);
  if (rc_send_begin (res, 200, ctype, 0) < 0)
    return res->streamed ? 0 : -1;
  rc_buf_printf (&head, "--%s\r\nContent-Type: application/json\r\n\r\n", boundary);
  rc_buf_append (&head, json->data, json->len);
  rc_buf_append_str (&head, "\r\n");
  for (size_t i = 0; i <= n_att; i++)
    {
      struct stat sb;
      int fd;
      if (i == n_att)
        {
          rc_buf_printf (&head, "--%s--\r\n", boundary);
          (void)rc_send (res, head.data, head.len);
          break;
        }
      rc_session_answer_part_head (&head, boundary, att[i].e->path, att[i].e->path_len);
      if (rc_send (res, head.data, head.len) < 0)
        break; /* the client went away */
      rc_buf_reset (&head);
      fd = rc_hostfs_open_regular (s->dirfd, att[i].e->path, &sb);
      if (fd < 0 || rc_send_fd (res, fd, att[i].size) < 0)
        {
          rc_log (RC_LOG_WARN, "session_attachment", "%s: stopped: %s", att[i].e->path,
                  strerror (errno));
          if (fd >= 0)
            close (fd);
          res->log_outcome = "answer_cut";
          break;
        }
      close (fd);
      rc_buf_append_str (&head, "\r\n");
    }
  rc_buf_free (&head);
  return 0;
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
  const struct rc_step_result *st;
  struct rc_buf json = { 0 };
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

  if (rc_app_run_job_prepared (app, &job.spec, &result, res, prepare_slot, &pc) < 0)
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
  select_attachments (s, sc, &after, changed, n_changed, att, &n_att, omitted, &n_omitted);
  result_json (&json, st, gone, n_deleted, omitted, n_omitted);
  res->log_has_exit = st->exited;
  res->log_exit_code = st->exited ? st->exit_code : 128 + st->term_signal;
  res->log_outcome = rc_outcome_limit (st->outcome) ? rc_outcome_limit (st->outcome) : "ok";
  if (send_answer (s, &json, att, n_att, res) < 0)
    rc_http_internal (res, "session_exec", "the answer could not be started: %s", strerror (errno));

out:
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
