/* session_answer_fuzz.c - libFuzzer target for the multipart/mixed writer
 * of the sessions' execute answer (fcgi/sessions/session_exec.c,
 * rc_session_answer_part): one part per changed file, its exact sub_path
 * in filename* (RFC 5987) and a flattened ASCII filename.
 *
 * Input layout: up to 8 files, each a 1-byte path length, the path, a
 * 2-byte content length (little endian) and the content; what is left
 * over is ignored.  The boundary is fixed; an input whose contents hold it
 * is skipped, as the service draws another boundary then.  Promises
 * checked, on the whole answer read back:
 *  - each part is framed as documented (docs/sessions.md): the boundary,
 *    Content-Type, one Content-Disposition line, a blank line, the bytes;
 *  - filename* decodes to the path byte for byte, and uses only RFC 5987
 *    attr-chars and %XX escapes;
 *  - the plain filename is the path with every byte that is not printable
 *    ASCII, or is '"', '\' or '/', made '_';
 *  - runcell's own multipart reader (fcgi/sessions/multipart.c), given the
 *    same parts as form-data, reads back each path and content exactly.
 */
#include "config.h"

#include "fcgi/sessions/multipart.h"
#include "fcgi/sessions/session_exec.h"
#include "fuzz/fuzz.h"

#include <string.h>

#define MAX_FILES 8
#define BOUNDARY "runcell-00112233445566778899aabbccddeeff"

struct file
{
  const char *path, *data;
  size_t path_len, len;
};

static const char disp_head[]
    = "Content-Disposition: attachment; name=\"attachments\"; filename=\"";
static const char ext_head[] = "\"; filename*=UTF-8''";

static bool
attr_char (unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
         || (c != 0 && strchr ("!#$&+-.^_`|~", c) != NULL);
}

static int
hexval (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static bool
skip (const char **p, const char *end, const char *lit)
{
  size_t n = strlen (lit);
  if ((size_t)(end - *p) < n || memcmp (*p, lit, n) != 0)
    return false;
  *p += n;
  return true;
}

/* Reads one part at *p and checks it against f. */
static void
read_part (const char **p, const char *end, const struct file *f)
{
  const char *q;
  size_t k;

  FUZZ_CHECK (skip (p, end, "--" BOUNDARY "\r\nContent-Type: application/octet-stream\r\n"),
              "a part starts with the boundary and its Content-Type");
  FUZZ_CHECK (skip (p, end, disp_head), "then its Content-Disposition");
  for (k = 0; k < f->path_len; k++, (*p)++)
    {
      unsigned char c = (unsigned char)f->path[k];
      char want = (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '/') ? (char)c : '_';
      FUZZ_CHECK (*p < end && **p == want, "the plain filename is the flattened path");
    }
  FUZZ_CHECK (skip (p, end, ext_head), "filename* follows the plain filename");
  for (k = 0; k < f->path_len; k++)
    {
      unsigned char c = (unsigned char)f->path[k];
      FUZZ_CHECK (*p < end, "filename* is complete");
      if (**p == '%')
        {
          FUZZ_CHECK (end - *p >= 3, "a %XX escape is complete");
          FUZZ_CHECK (hexval ((*p)[1]) >= 0 && hexval ((*p)[2]) >= 0, "a %XX escape is hex");
          FUZZ_CHECK (hexval ((*p)[1]) * 16 + hexval ((*p)[2]) == c,
                      "filename* decodes to the path");
          *p += 3;
        }
      else
        {
          FUZZ_CHECK (attr_char ((unsigned char)**p), "filename* holds attr-chars only");
          FUZZ_CHECK ((unsigned char)**p == c, "filename* decodes to the path");
          (*p)++;
        }
    }
  FUZZ_CHECK (skip (p, end, "\r\n\r\n"), "the headers end after Content-Disposition");
  q = *p;
  FUZZ_CHECK ((size_t)(end - q) >= f->len + 2 && (f->len == 0 || memcmp (q, f->data, f->len) == 0),
              "the part holds the file's bytes");
  *p += f->len;
  FUZZ_CHECK (skip (p, end, "\r\n"), "a CRLF ends the bytes");
}

struct readback
{
  const struct file *files;
  size_t n, i;
  struct rc_buf data;
};

static int
rb_begin (void *ud, const struct rc_mp_part *part, const char **why)
{
  struct readback *rb = ud;
  const struct file *f;
  (void)why;
  FUZZ_CHECK (rb->i < rb->n, "no more parts than files");
  f = &rb->files[rb->i];
  FUZZ_CHECK (strcmp (part->name, "attachments") == 0, "the parts are named attachments");
  FUZZ_CHECK (part->filename != NULL && part->filename_len == f->path_len
                  && memcmp (part->filename, f->path, f->path_len) == 0,
              "the multipart reader reads back the exact path");
  FUZZ_CHECK (part->content_type && strcmp (part->content_type, "application/octet-stream") == 0,
              "the part's Content-Type");
  rc_buf_reset (&rb->data);
  return 0;
}

static int
rb_data (void *ud, const char *d, size_t n, const char **why)
{
  struct readback *rb = ud;
  (void)why;
  FUZZ_CHECK (rc_buf_append (&rb->data, d, n) == 0, "memory");
  return 0;
}

static int
rb_end (void *ud, const char **why)
{
  struct readback *rb = ud;
  const struct file *f = &rb->files[rb->i++];
  (void)why;
  FUZZ_CHECK (rb->data.len == f->len
                  && (f->len == 0 || memcmp (rb->data.data, f->data, f->len) == 0),
              "the multipart reader reads back the exact bytes");
  return 0;
}

/* The same parts as form-data (each part written by the writer, its
 * disposition type swapped), read by runcell's multipart parser. */
static void
read_as_form (const struct file *files, size_t n)
{
  static const struct rc_mp_limits limits = { MAX_FILES, 16384 };
  static const struct rc_mp_callbacks cbs = { rb_begin, rb_data, rb_end };
  static const char head[] = "--" BOUNDARY "\r\nContent-Type: application/octet-stream\r\n"
                             "Content-Disposition: attachment;";
  struct rc_buf form = { 0 }, part = { 0 };
  struct readback rb = { files, n, 0, { 0 } };
  const char *why = NULL;

  for (size_t i = 0; i < n; i++)
    {
      rc_buf_reset (&part);
      rc_session_answer_part (&part, BOUNDARY, files[i].path, files[i].path_len, files[i].data,
                              files[i].len);
      FUZZ_CHECK (part.len > sizeof head - 1 && memcmp (part.data, head, sizeof head - 1) == 0,
                  "a part starts with its framing");
      rc_buf_append (&form, head, sizeof head - 1 - strlen ("attachment;"));
      rc_buf_append_str (&form, "form-data;");
      rc_buf_append (&form, part.data + sizeof head - 1, part.len - (sizeof head - 1));
    }
  rc_buf_append_str (&form, "--" BOUNDARY "--\r\n");
  if (rc_mp_parse ("multipart/form-data; boundary=" BOUNDARY, form.data, form.len, &limits, &cbs,
                   &rb, &why)
      < 0)
    {
      fprintf (stderr, "refused: %s\n%.*s\n", why, (int)form.len, form.data);
      FUZZ_CHECK (0, "the multipart reader accepts the answer's parts");
    }
  FUZZ_CHECK (rb.i == n, "the multipart reader reads every part");
  rc_buf_free (&rb.data);
  rc_buf_free (&part);
  rc_buf_free (&form);
}

int
LLVMFuzzerTestOneInput (const uint8_t *buf, size_t len)
{
  struct file files[MAX_FILES];
  struct rc_buf body = { 0 };
  size_t n = 0, off = 0;
  const char *p, *end;

  while (n < MAX_FILES && off < len)
    {
      struct file *f = &files[n];
      f->path_len = buf[off++];
      if (len - off < f->path_len + 2)
        break;
      f->path = (const char *)buf + off;
      off += f->path_len;
      f->len = (size_t)buf[off] | (size_t)buf[off + 1] << 8;
      off += 2;
      if (f->len > len - off)
        f->len = len - off;
      f->data = (const char *)buf + off;
      off += f->len;
      if (memmem (f->data, f->len, BOUNDARY, sizeof BOUNDARY - 1) != NULL)
        return 0;
      n++;
    }

  for (size_t i = 0; i < n; i++)
    rc_session_answer_part (&body, BOUNDARY, files[i].path, files[i].path_len, files[i].data,
                            files[i].len);
  rc_buf_append_str (&body, "--" BOUNDARY "--\r\n");

  p = body.data;
  end = body.data + body.len;
  for (size_t i = 0; i < n; i++)
    read_part (&p, end, &files[i]);
  FUZZ_CHECK (skip (&p, end, "--" BOUNDARY "--\r\n") && p == end, "the closing delimiter ends it");
  read_as_form (files, n);
  rc_buf_free (&body);
  return 0;
}
