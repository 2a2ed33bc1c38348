/* api_sessions.c - the sessions API: routes and request handling.
 *
 *   POST   /sessions                      create (optionally seeded by a
 *                                         multipart body: filename = sub_path)
 *   DELETE /sessions/{id}                 delete now
 *   GET    /sessions/{id}/files/{path}    file bytes, or a JSON listing of
 *                                         a directory ("" = the root)
 *   PUT    /sessions/{id}/files/{path}    create or replace (raw body)
 *   DELETE /sessions/{id}/files/{path}    remove
 *   POST   /sessions/{id}/execute         run code in the session
 *   POST   /execute                       same in a throw-away session
 *
 * Paths and status codes are those of the sessions document
 * (../shared/reference/001_*.txt): 400 invalid input, 404 missing session
 * or file, 409 session lock not obtained in time, 413 request or session
 * limit, 503 no capacity (MAX_SESSIONS, or no execution slot in time),
 * 500 anything unexpected.  Every error body is {"error": "..."}.
 */
#include "config.h"

#include "common/json_out.h"
#include "common/log.h"
#include "fcgi/app.h"
#include "fcgi/sessions/multipart.h"
#include "fcgi/sessions/session_exec.h"
#include "sandbox/hostfs.h"
#include "fcgi/sessions/session_path.h"
#include "fcgi/sessions/session_send.h"
#include "fcgi/sessions/sessions.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MP_MAX_PARTS 4096
#define MP_MAX_HEADER 16384
#define LANGUAGE_MAX 64

/* -- multipart request bodies ------------------------------------------- */

enum part_kind
{
  PART_IGNORE,
  PART_LANGUAGE,
  PART_CODE,
  PART_FILE,
};

struct parse_ctx
{
  const struct rc_session_config *sc;
  struct rc_exec_request *er;
  enum part_kind cur;
  struct rc_buf language;
  bool have_language, have_code;
  int status; /* 400 or 413 once a callback refused */
};

static int
refuse (struct parse_ctx *c, int status, const char **why, const char *msg)
{
  c->status = status;
  *why = msg;
  return -1;
}

static int
on_part_begin (void *ud, const struct rc_mp_part *part, const char **why)
{
  struct parse_ctx *c = ud;
  struct rc_exec_request *er = c->er;

  if (part->filename != NULL)
    {
      struct rc_session_upload *grown;
      const char *pwhy = NULL;
      grown = realloc (er->uploads, (er->n_uploads + 1) * sizeof *grown);
      if (grown == NULL)
        return refuse (c, 500, why, "internal");
      er->uploads = grown;
      memset (&grown[er->n_uploads], 0, sizeof *grown);
      if (rc_session_path_normalize (part->filename, part->filename_len, grown[er->n_uploads].path,
                                     sizeof grown[er->n_uploads].path, false, &pwhy)
          < 0)
        return refuse (c, 400, why, pwhy);
      er->n_uploads++;
      c->cur = PART_FILE;
      return 0;
    }
  /* The contract names attachment parts by their filename (the sub_path);
   * one without it has nowhere to go, and dropping it silently would run
   * the code without the file the client sent. */
  if (strcmp (part->name, "attachments") == 0)
    return refuse (c, 400, why, "attachment part without a filename");
  if (strcmp (part->name, "language") == 0)
    {
      if (c->have_language)
        return refuse (c, 400, why, "language given twice");
      c->have_language = true;
      c->cur = PART_LANGUAGE;
    }
  else if (strcmp (part->name, "code") == 0)
    {
      if (c->have_code)
        return refuse (c, 400, why, "code given twice");
      c->have_code = true;
      c->cur = PART_CODE;
    }
  else
    c->cur = PART_IGNORE;
  return 0;
}

static int
on_part_data (void *ud, const char *data, size_t len, const char **why)
{
  struct parse_ctx *c = ud;
  struct rc_buf *b;

  switch (c->cur)
    {
    case PART_LANGUAGE:
      if (c->language.len + len > LANGUAGE_MAX)
        return refuse (c, 400, why, "unsupported language: longer than 64 bytes");
      b = &c->language;
      break;
    case PART_CODE:
      if (c->er->code.len + len > c->sc->max_code)
        return refuse (c, 413, why, "code longer than MAX_CODE_LENGTH");
      b = &c->er->code;
      break;
    case PART_FILE:
      b = &c->er->uploads[c->er->n_uploads - 1].data;
      if (b->len + len > c->sc->fsize)
        return refuse (c, 413, why, "attachment larger than CONTAINER_ULIMIT_FSIZE");
      break;
    case PART_IGNORE:
    default:
      return 0;
    }
  if (rc_buf_append (b, data, len) < 0)
    return refuse (c, 500, why, "internal");
  return 0;
}

static int
on_part_end (void *ud, const char **why)
{
  (void)ud;
  (void)why;
  return 0;
}

/* Parses a multipart/form-data body; returns 0 or an HTTP status with res
 * filled. */
static int
parse_form (const struct rc_http_request *req, const struct rc_session_config *sc,
            struct rc_exec_request *er, struct parse_ctx *c, struct rc_http_response *res)
{
  static const struct rc_mp_limits limits = { MP_MAX_PARTS, MP_MAX_HEADER };
  static const struct rc_mp_callbacks cbs = { on_part_begin, on_part_data, on_part_end };
  const char *why = "malformed multipart body";

  memset (c, 0, sizeof *c);
  c->sc = sc;
  c->er = er;
  if (rc_mp_parse (req->content_type, req->body, req->body_len, &limits, &cbs, c, &why) < 0)
    {
      int status = c->status ? c->status : 400;
      rc_http_error (res, status, why);
      rc_buf_free (&c->language);
      return status;
    }
  return 0;
}

int
rc_session_parse_execute (const struct rc_http_request *req, const struct rc_session_config *sc,
                          const struct rc_lang_table *langs, struct rc_exec_request *er,
                          struct rc_http_response *res)
{
  struct parse_ctx c;
  rc_err_t err = NULL;
  int status = parse_form (req, sc, er, &c, res);

  if (status)
    return status;
  /* The one language registry (langs/<slug>/manifest.json): a name or an
   * alias of a language that has an "execute" section. */
  if (!c.have_language)
    status = 400, rc_http_error (res, 400, "language is required");
  else if (c.language.len && memchr (c.language.data, '\0', c.language.len))
    status = 400, rc_http_error (res, 400, "language must not contain NUL");
  else if (rc_lang_lookup (langs, "language", c.language.data ? c.language.data : "", true,
                           RC_LANG_NEED_EXECUTE, &er->lang, &err)
           < 0)
    {
      status = err && err->http_status ? err->http_status : 500;
      rc_http_error_from (res, &err, "session_language");
    }
  else if (!c.have_code)
    status = 400, rc_http_error (res, 400, "code is required");
  else if (er->code.len && memchr (er->code.data, '\0', er->code.len))
    status = 400, rc_http_error (res, 400, "code contains a NUL byte");
  rc_buf_free (&c.language);
  return status;
}

/* -- helpers -------------------------------------------------------------- */

/* A session call that failed (r < 0): its error is answered through the
 * one mapping (rc_http_error_from), and the log names what happened. */
static bool
session_error (int r, rc_err_t *err, struct rc_http_response *res)
{
  int status;
  if (r >= 0)
    return false;
  status = *err ? (*err)->http_status : 0;
  res->log_outcome = status == 404   ? "no_session"
                     : status == 409 ? "session_busy"
                     : status == 429 ? "client_sessions_full"
                     : status == 503 ? "sessions_full"
                                     : "session_error";
  rc_http_error_from (res, err, "session_store");
  return true;
}

/* Answers with the JSON object already in res->body. */
static void
reply_body (struct rc_http_response *res, int status)
{
  res->status = status;
  res->content_type = "application/json";
  if (res->log_outcome == NULL)
    res->log_outcome = "ok";
}

/* The answer to a DELETE: {"session_id": ID, "deleted": true} for a
 * session, {"deleted": PATH} for a file of one. */
static void
reply_deleted (struct rc_http_response *res, const char *session_id, const char *path)
{
  rc_buf_reset (&res->body);
  if (session_id)
    {
      rc_buf_append_str (&res->body, "{\"session_id\":");
      rc_json_cstring (&res->body, session_id);
      rc_buf_append_str (&res->body, ",\"deleted\":true}");
    }
  else
    {
      rc_buf_append_str (&res->body, "{\"deleted\":");
      rc_json_cstring (&res->body, path);
      rc_buf_append_str (&res->body, "}");
    }
  reply_body (res, 200);
}

/* Answers with the JSON object built in json (copied). */
static void
reply_json (struct rc_http_response *res, int status, struct rc_buf *json)
{
  rc_buf_reset (&res->body);
  rc_buf_append (&res->body, json->data ? json->data : "", json->len);
  reply_body (res, status);
}

static bool
is_multipart (const char *ct)
{
  char b[RC_MP_BOUNDARY_MAX + 1];
  return ct && rc_mp_boundary (ct, b, sizeof b) == 0;
}

/* -- handlers ------------------------------------------------------------- */

static void
handle_create (struct rc_app *app, const struct rc_session_config *sc,
               const struct rc_http_request *req, struct rc_http_response *res)
{
  struct rc_exec_request seeds = { 0 };
  struct rc_session s;
  struct rc_buf json = { 0 };
  rc_err_t err = NULL;
  bool first = true;

  if (is_multipart (req->content_type))
    {
      struct parse_ctx c;
      if (parse_form (req, sc, &seeds, &c, res) != 0)
        goto out;
      rc_buf_free (&c.language);
    }
  else if (req->body_len > 0)
    {
      rc_http_error (res, 400, "a request body must be multipart/form-data");
      goto out;
    }
  if (session_error (rc_session_create (app->cfg, req->request_id, req->client, &s, &err), &err,
                     res))
    goto out;
  if (rc_session_write_uploads (&s, sc, seeds.uploads, seeds.n_uploads, res) != 0)
    {
      /* A session that could not be seeded is not handed out. */
      rc_session_destroy (app->cfg, &s, &err);
      rc_error_free (&err);
      goto out;
    }
  rc_buf_append (&json, "{", 1);
  rc_json_key (&json, &first, "session_id");
  rc_json_cstring (&json, s.id);
  rc_buf_append (&json, "}", 1);
  rc_session_release (&s);
  reply_json (res, 200, &json);
out:
  rc_buf_free (&json);
  rc_exec_request_free (&seeds);
}

static void
handle_delete (struct rc_app *app, const struct rc_session_config *sc, const char *id,
               struct rc_http_response *res)
{
  struct rc_session s;
  rc_err_t err = NULL;

  if (session_error (rc_session_open (app->cfg, id, &s, &err), &err, res))
    return;
  if (rc_session_destroy (app->cfg, &s, &err) < 0)
    {
      session_error (-1, &err, res);
      return;
    }
  reply_deleted (res, id, NULL);
}

static void
file_errno (int e, struct rc_http_response *res)
{
  switch (e)
    {
    case ENOENT:
    case ENOTDIR:
      rc_http_error (res, 404, "file not found");
      break;
    case ELOOP:
    case EXDEV:
      rc_http_error (res, 400, "symlinks are not followed");
      break;
    case EINVAL:
      rc_http_error (res, 400, "not a regular file or directory");
      break;
    case ENAMETOOLONG:
      rc_http_error (res, 400, "path too long");
      break;
    default:
      rc_http_internal (res, "session_file", "%s", strerror (e));
      break;
    }
}

static void
files_get (struct rc_session *s, const struct rc_session_config *sc, const char *path,
           struct rc_http_response *res)
{
  struct stat st;
  int fd = rc_hostfs_open_regular (s->dirfd, path, &st);

  if (fd < 0 && errno == EISDIR)
    {
      struct rc_buf json = { 0 };
      int dfd = rc_hostfs_open (s->dirfd, path, O_RDONLY | O_DIRECTORY);
      if (dfd < 0 || rc_session_list_json (dfd, path, &json) < 0)
        {
          file_errno (errno, res);
          if (dfd >= 0)
            close (dfd);
          rc_buf_free (&json);
          return;
        }
      close (dfd);
      reply_json (res, 200, &json);
      rc_buf_free (&json);
      return;
    }
  if (fd < 0)
    {
      file_errno (errno, res);
      return;
    }
  /* No job may make a file larger than the session's byte quota (its
   * RLIMIT_FSIZE, common/limits.c), sparse or not; one that is anyway is
   * refused, not read. */
  if ((uint64_t)st.st_size > sc->max_session_size)
    {
      close (fd);
      rc_http_errorf (res, 413, "%s: %llu bytes, above the read limit (MAX_SESSION_SIZE, %llu)",
                      path, (unsigned long long)st.st_size,
                      (unsigned long long)sc->max_session_size);
      return;
    }
  res->log_outcome = "ok";
  if (rc_send_begin (res, 200, "application/octet-stream", (uint64_t)st.st_size) < 0
      || rc_send_fd (res, fd, (uint64_t)st.st_size) < 0)
    {
      /* The head is out: nothing left to say but that it stopped. */
      res->log_outcome = errno == EPIPE ? "client_gone" : "file_short";
      if (!res->streamed)
        file_errno (errno, res);
    }
  close (fd);
}

static void
files_put (struct rc_session *s, const struct rc_session_config *sc, const char *path,
           const struct rc_http_request *req, struct rc_http_response *res)
{
  struct rc_session_upload up;
  struct rc_buf json = { 0 };
  bool first = true;

  memset (&up, 0, sizeof up);
  snprintf (up.path, sizeof up.path, "%s", path);
  /* Borrowed, never freed here. */
  up.data.data = (char *)(uintptr_t)req->body;
  up.data.len = req->body_len;
  up.data.cap = req->body_len;
  if (rc_session_write_uploads (s, sc, &up, 1, res) != 0)
    return;
  rc_buf_append (&json, "{", 1);
  rc_json_key (&json, &first, "path");
  rc_json_cstring (&json, path);
  rc_json_key (&json, &first, "size");
  rc_json_u64 (&json, req->body_len);
  rc_buf_append (&json, "}", 1);
  reply_json (res, 200, &json);
  rc_buf_free (&json);
}

static void
files_delete (struct rc_session *s, const char *path, struct rc_http_response *res)
{
  if (rc_hostfs_remove (s->dirfd, path) < 0)
    {
      file_errno (errno, res);
      return;
    }
  reply_deleted (res, NULL, path);
}

enum file_op
{
  FILE_GET,
  FILE_PUT,
  FILE_DELETE,
};

static void
handle_files (struct rc_app *app, const struct rc_session_config *sc, const char *id,
              enum file_op op, const struct rc_http_request *req, struct rc_http_response *res)
{
  char path[RC_SESSION_PATH_MAX + 1], decoded[RC_SESSION_PATH_MAX + 2];
  const char *why = NULL, *raw_path = req->path_rest ? req->path_rest : "";
  bool is_get = op == FILE_GET, is_put = op == FILE_PUT;
  struct rc_session s;
  rc_err_t err = NULL;

  /* The route hands the path over as the client sent it: decoded once
   * here, so that an encoded '/' or ".." is judged, never merged away. */
  if (rc_http_percent_decode (raw_path, strlen (raw_path), decoded, sizeof decoded) < 0)
    {
      rc_http_error (res, 400, "path has a bad percent-escape or is too long");
      res->log_outcome = "bad_path";
      return;
    }
  raw_path = decoded;
  if (rc_session_path_normalize (raw_path, strlen (raw_path), path, sizeof path, is_get, &why) < 0)
    {
      rc_http_error (res, 400, why);
      res->log_outcome = "bad_path";
      return;
    }
  if (session_error (rc_session_open (app->cfg, id, &s, &err), &err, res))
    return;
  if (is_get)
    files_get (&s, sc, path, res);
  else if (is_put)
    files_put (&s, sc, path, req, res);
  else
    files_delete (&s, path, res);
  rc_session_release (&s);
}

static void
handle_execute (struct rc_app *app, const struct rc_session_config *sc, const char *id,
                const struct rc_http_request *req, struct rc_http_response *res)
{
  struct rc_exec_request er = { 0 };
  struct rc_session s;
  rc_err_t err = NULL;

  if (rc_session_parse_execute (req, sc, app->langs, &er, res) != 0)
    {
      res->log_outcome = "bad_request";
      goto out;
    }
  if (id)
    {
      if (session_error (rc_session_open (app->cfg, id, &s, &err), &err, res))
        goto out;
    }
  else if (session_error (rc_session_create (app->cfg, req->request_id, req->client, &s, &err),
                          &err, res))
    goto out;
  if (rc_session_write_uploads (&s, sc, er.uploads, er.n_uploads, res) == 0)
    rc_session_execute (app, sc, &s, &er, res);
  if (id)
    rc_session_release (&s);
  else if (rc_session_destroy (app->cfg, &s, &err) < 0)
    {
      rc_log (RC_LOG_ERROR, "session_destroy", "throw-away session: %s", rc_error_text (err));
      rc_error_free (&err);
    }
out:
  rc_exec_request_free (&er);
}

/* -- the routes (fcgi/router.c) ------------------------------------------ */

/* The session a route names, or false with 404 answered: an id runcell
 * never hands out is no session either. */
static bool
session_named (struct rc_app *app, const struct rc_http_request *req, struct rc_http_response *res)
{
  rc_err_t err = NULL;
  if (req->path_id && rc_session_id_valid (req->path_id, strlen (req->path_id))
      && rc_session_exists (app->cfg, req->path_id))
    return true;
  rc_error_http (&err, 404, "session not found");
  session_error (-1, &err, res);
  return false;
}

void
rc_api_session_create (struct rc_app *app, const struct rc_http_request *req,
                       struct rc_http_response *res)
{
  handle_create (app, &app->cfg->sessions, req, res);
}

void
rc_api_session_delete (struct rc_app *app, const struct rc_http_request *req,
                       struct rc_http_response *res)
{
  if (session_named (app, req, res))
    handle_delete (app, &app->cfg->sessions, req->path_id, res);
}

void
rc_api_session_execute (struct rc_app *app, const struct rc_http_request *req,
                        struct rc_http_response *res)
{
  if (session_named (app, req, res))
    handle_execute (app, &app->cfg->sessions, req->path_id, req, res);
}

void
rc_api_session_execute_once (struct rc_app *app, const struct rc_http_request *req,
                             struct rc_http_response *res)
{
  handle_execute (app, &app->cfg->sessions, NULL, req, res);
}

void
rc_api_session_file_get (struct rc_app *app, const struct rc_http_request *req,
                         struct rc_http_response *res)
{
  if (session_named (app, req, res))
    handle_files (app, &app->cfg->sessions, req->path_id, FILE_GET, req, res);
}

void
rc_api_session_file_put (struct rc_app *app, const struct rc_http_request *req,
                         struct rc_http_response *res)
{
  if (session_named (app, req, res))
    handle_files (app, &app->cfg->sessions, req->path_id, FILE_PUT, req, res);
}

void
rc_api_session_file_delete (struct rc_app *app, const struct rc_http_request *req,
                            struct rc_http_response *res)
{
  if (session_named (app, req, res))
    handle_files (app, &app->cfg->sessions, req->path_id, FILE_DELETE, req, res);
}
