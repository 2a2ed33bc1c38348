/* session_form_fuzz.c - libFuzzer target for the body of POST /execute and
 * POST /sessions/{id}/execute (fcgi/sessions/api_sessions.c,
 * rc_session_parse_execute): multipart/form-data with the language, the
 * code and files whose filename is their sub_path.
 *
 * Input layout: up to the first '\n' is the Content-Type, the rest is the
 * body.  The language table has python (alias py), zig (not installed)
 * and bash (no execute command).  Promises checked:
 *  - a refusal is a 400, 413 or 501 with a JSON error body;
 *  - an accepted request names an installed language with a run command,
 *    and has code without NUL within MAX_CODE_LENGTH;
 *  - its uploads are exactly the body's file parts, in order, read on
 *    their own by the multipart parser: each path is the normalised
 *    filename (canonical: normalising it again gives itself) and each
 *    content the part's bytes, within CONTAINER_ULIMIT_FSIZE.
 */
#include "config.h"

#include "fcgi/http.h"
#include "fcgi/sessions/multipart.h"
#include "fcgi/sessions/session_exec.h"
#include "fcgi/sessions/session_path.h"
#include "fuzz/fuzz.h"

#include <string.h>

#define MAX_CODE 512
#define FSIZE 256

static char *py_aliases[] = { (char *)"py", NULL };
static struct rc_lang langs[] = {
  { .slug = (char *)"python",
    .aliases = py_aliases,
    .available = true,
    .execute_run = (char *)"python3 \"$MAIN\"" },
  { .slug = (char *)"zig", .available = false, .execute_run = (char *)"zig run \"$MAIN\"" },
  { .slug = (char *)"bash", .available = true },
};
static const struct rc_lang_table table = { langs, sizeof langs / sizeof langs[0] };

/* The body's file parts as the multipart parser alone sees them. */
struct files
{
  struct rc_session_upload *v;
  size_t n;
  bool in_file;
  bool bad_path; /* a file name the normaliser refuses */
};

static int
begin (void *ud, const struct rc_mp_part *p, const char **why)
{
  struct files *f = ud;
  const char *pwhy;
  (void)why;
  f->in_file = p->filename != NULL;
  if (!f->in_file)
    return 0;
  f->v = realloc (f->v, (f->n + 1) * sizeof *f->v);
  FUZZ_CHECK (f->v != NULL, "memory");
  memset (&f->v[f->n], 0, sizeof *f->v);
  if (rc_session_path_normalize (p->filename, p->filename_len, f->v[f->n].path,
                                 sizeof f->v[f->n].path, false, &pwhy)
      < 0)
    f->bad_path = true;
  f->n++;
  return 0;
}

static int
data (void *ud, const char *d, size_t n, const char **why)
{
  struct files *f = ud;
  (void)why;
  if (f->in_file)
    FUZZ_CHECK (rc_buf_append (&f->v[f->n - 1].data, d, n) == 0, "memory");
  return 0;
}

static int
end (void *ud, const char **why)
{
  (void)ud;
  (void)why;
  return 0;
}

static void
files_free (struct files *f)
{
  for (size_t i = 0; i < f->n; i++)
    rc_buf_free (&f->v[i].data);
  free (f->v);
}

int
LLVMFuzzerTestOneInput (const uint8_t *buf, size_t len)
{
  static const struct rc_mp_limits limits = { 4096, 16384 };
  static const struct rc_mp_callbacks cbs = { begin, data, end };
  struct rc_session_config sc = { 0 };
  struct rc_http_request req = { 0 };
  struct rc_http_response res = { 0 };
  struct rc_exec_request er = { 0 };
  struct files own = { 0 };
  char *ct;
  const uint8_t *nl = memchr (buf, '\n', len);
  const char *why = NULL;
  int status;

  if (nl == NULL)
    return 0;
  ct = strndup ((const char *)buf, (size_t)(nl - buf));
  FUZZ_CHECK (ct != NULL, "memory");
  sc.max_code = MAX_CODE;
  sc.fsize = FSIZE;
  req.method = "POST";
  req.path = "/execute";
  req.content_type = ct;
  req.body = (const char *)nl + 1;
  req.body_len = len - (size_t)(nl + 1 - buf);

  status = rc_session_parse_execute (&req, &sc, &table, &er, &res);
  if (status != 0)
    {
      FUZZ_CHECK (status == 400 || status == 413 || status == 501,
                  "a refusal is a 400, 413 or 501");
      FUZZ_CHECK (res.status == status, "the response carries the status");
      FUZZ_CHECK (res.body.len > 10 && memcmp (res.body.data, "{\"error\":", 9) == 0,
                  "a refusal has a JSON error body");
      goto out;
    }
  FUZZ_CHECK (er.lang != NULL && er.lang->available && er.lang->execute_run != NULL,
              "an accepted request names an installed language with a run command");
  FUZZ_CHECK (er.code.len <= MAX_CODE, "the code is within MAX_CODE_LENGTH");
  FUZZ_CHECK (er.code.len == 0 || memchr (er.code.data, '\0', er.code.len) == NULL,
              "the code holds no NUL");

  FUZZ_CHECK (rc_mp_parse (ct, req.body, req.body_len, &limits, &cbs, &own, &why) == 0,
              "the multipart parser alone accepts an accepted body");
  FUZZ_CHECK (!own.bad_path, "every file name of an accepted body is a valid sub_path");
  FUZZ_CHECK (own.n == er.n_uploads, "one upload per file part");
  for (size_t i = 0; i < er.n_uploads; i++)
    {
      char again[RC_SESSION_PATH_MAX + 1];
      const struct rc_buf *a = &er.uploads[i].data, *b = &own.v[i].data;
      FUZZ_CHECK (strcmp (er.uploads[i].path, own.v[i].path) == 0,
                  "an upload's path is its part's normalised filename");
      FUZZ_CHECK (rc_session_path_normalize (er.uploads[i].path, strlen (er.uploads[i].path), again,
                                             sizeof again, false, &why)
                          == 0
                      && strcmp (again, er.uploads[i].path) == 0,
                  "an upload's path is canonical");
      FUZZ_CHECK (a->len <= FSIZE, "an upload is within CONTAINER_ULIMIT_FSIZE");
      FUZZ_CHECK (a->len == b->len && (a->len == 0 || memcmp (a->data, b->data, a->len) == 0),
                  "an upload holds its part's bytes");
    }
out:
  files_free (&own);
  rc_exec_request_free (&er);
  rc_buf_free (&res.body);
  free (ct);
  return 0;
}
