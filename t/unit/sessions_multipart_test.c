/* sessions_multipart_test.c - unit tests of the streaming multipart/form-
 * data parser (fcgi/sessions/multipart.c): whole bodies, every split point, the
 * limits, and the malformed inputs it must refuse. */
#include "config.h"

#include "fcgi/sessions/multipart.h"
#include "t/unit/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec
{
  char log[8192];
  size_t len;
  int refuse_at_part; /* 0: never */
  int parts;
};

static void
logf_ (struct rec *r, const char *s, size_t n)
{
  if (r->len + n < sizeof r->log)
    {
      memcpy (r->log + r->len, s, n);
      r->len += n;
      r->log[r->len] = '\0';
    }
}

static int
begin (void *ud, const struct rc_mp_part *p, const char **why)
{
  struct rec *r = ud;
  char head[512];
  int n;
  r->parts++;
  if (r->refuse_at_part == r->parts)
    {
      *why = "refused by callback";
      return -1;
    }
  n = snprintf (head, sizeof head, "[%s|%s|%zu|%s]", p->name, p->filename ? "f" : "-",
                p->filename_len, p->content_type ? p->content_type : "-");
  logf_ (r, head, (size_t)n);
  if (p->filename)
    logf_ (r, p->filename, p->filename_len);
  logf_ (r, "{", 1);
  return 0;
}

static int
data (void *ud, const char *d, size_t n, const char **why)
{
  (void)why;
  logf_ (ud, d, n);
  return 0;
}

static int
end (void *ud, const char **why)
{
  (void)why;
  logf_ (ud, "}", 1);
  return 0;
}

static const struct rc_mp_callbacks cbs = { begin, data, end };
static const struct rc_mp_limits limits = { 8, 1024 };

static int
parse_split (const char *ct, const char *body, size_t len, size_t chunk, struct rec *r,
             const char **why)
{
  char b[RC_MP_BOUNDARY_MAX + 1];
  struct rc_mp_parser *p;
  int ret = 0;
  memset (r->log, 0, sizeof r->log);
  r->len = 0;
  r->parts = 0;
  if (rc_mp_boundary (ct, b, sizeof b) < 0)
    {
      *why = "boundary";
      return -1;
    }
  p = rc_mp_new (b, &limits, &cbs, r);
  for (size_t off = 0; ret == 0 && off < len; off += chunk)
    ret = rc_mp_feed (p, body + off, len - off < chunk ? len - off : chunk, why);
  if (ret == 0)
    ret = rc_mp_finish (p, why);
  rc_mp_free (p);
  return ret;
}

#define CT "multipart/form-data; boundary=XyZ"
/* The delimiter may not occur in a part, even followed by other bytes. */
#define BAD_CONTENT_CHECK                                                                          \
  do                                                                                               \
    {                                                                                              \
      static const char x[] = "--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\n"            \
                              "v\r\n--XyZz\r\n--XyZ--\r\n";                                        \
      tap_ok (parse_split (CT, x, sizeof x - 1, 3, &r, &why) < 0, "refuses a delimiter inside "    \
                                                                  "content");                      \
    }                                                                                              \
  while (0)

int
main (void)
{
  static const char body[] = "preamble to ignore\r\n"
                             "--XyZ\r\n"
                             "Content-Disposition: form-data; name=\"language\"\r\n"
                             "\r\n"
                             "python\r\n"
                             "--XyZ\r\n"
                             "content-disposition: form-data; name=code\r\n"
                             "\r\n"
                             "print('--XyZ not at line start')\r\n--XyY\r\n"
                             "--XyZ\r\n"
                             "Content-Disposition: form-data; name=\"attachments\"; "
                             "filename=\"plain.txt\"; filename*=UTF-8''a%2Fb%00c%E2%82%AC\r\n"
                             "Content-Type: text/plain\r\n"
                             "\r\n"
                             "\r\n\r\n--X\r\n"
                             "--XyZ\r\n"
                             "Content-Disposition: form-data; name=\"e\"\r\n"
                             "\r\n"
                             "\r\n"
                             "--XyZ--\r\n"
                             "epilogue --XyZ ignored";
  const char *want;
  size_t want_len;
  struct rec r = { 0 };
  const char *why = NULL;
  char b[RC_MP_BOUNDARY_MAX + 1];
  bool all_splits = true;

  /* The expected log, built without strlen (it holds a NUL). */
  {
    static const char w1[] = "[language|-|0|-]{python}[code|-|0|-]{print('--XyZ not at line "
                             "start')\r\n--XyY}[attachments|f|8|text/plain]a/b";
    static const char w2[] = "c\xe2\x82\xac{\r\n\r\n--X}[e|-|0|-]{}";
    static char wbuf[512];
    memcpy (wbuf, w1, sizeof w1 - 1);
    wbuf[sizeof w1 - 1] = '\0';
    memcpy (wbuf + sizeof w1, w2, sizeof w2);
    want = wbuf;
    want_len = sizeof w1 + sizeof w2 - 1;
  }

  {
    int ret = parse_split (CT, body, sizeof body - 1, sizeof body, &r, &why);
    tap_ok (ret == 0, "parses a body (%s)", ret ? why : "ok");
  }
  tap_ok (r.len == want_len && memcmp (r.log, want, want_len) == 0,
          "fields, filename* (with a NUL), content type, CRLFs in data");
  for (size_t chunk = 1; chunk < sizeof body; chunk++)
    {
      struct rec r2 = { 0 };
      if (parse_split (CT, body, sizeof body - 1, chunk, &r2, &why) != 0 || r2.len != want_len
          || memcmp (r2.log, want, want_len) != 0)
        {
          tap_diag ("chunk size %zu differs", chunk);
          all_splits = false;
          break;
        }
    }
  tap_ok (all_splits, "every chunk size gives the same parts");
  BAD_CONTENT_CHECK;

  tap_ok (rc_mp_boundary ("multipart/form-data; boundary=\"a b\"", b, sizeof b) == 0
              && strcmp (b, "a b") == 0,
          "quoted boundary");
  tap_ok (rc_mp_boundary ("Multipart/Form-Data;charset=x; BOUNDARY=zz", b, sizeof b) == 0
              && strcmp (b, "zz") == 0,
          "case-insensitive type and parameter");
  tap_ok (rc_mp_boundary ("multipart/mixed; boundary=zz", b, sizeof b) < 0, "not form-data");
  tap_ok (rc_mp_boundary ("multipart/form-data", b, sizeof b) < 0, "no boundary");
  tap_ok (rc_mp_boundary ("multipart/form-data; boundary=", b, sizeof b) < 0, "empty boundary");
  tap_ok (rc_mp_boundary ("multipart/form-data; boundary=\"trailing \"", b, sizeof b) < 0,
          "boundary ending in a space");
  {
    char ct[200];
    snprintf (ct, sizeof ct, "multipart/form-data; boundary=%071d", 0);
    tap_ok (rc_mp_boundary (ct, b, sizeof b) < 0, "boundary over 70 characters");
  }
  tap_ok (rc_mp_boundary (NULL, b, sizeof b) < 0, "no content type");

#define BAD(text, label)                                                                           \
  do                                                                                               \
    {                                                                                              \
      static const char x[] = text;                                                                \
      why = NULL;                                                                                  \
      tap_ok (parse_split (CT, x, sizeof x - 1, 7, &r, &why) < 0 && why, "refuses %s (%s)", label, \
              why ? why : "accepted");                                                             \
    }                                                                                              \
  while (0)

  BAD ("--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nv\r\n", "a missing close");
  BAD ("", "an empty body");
  BAD ("--XyZ\r\n\r\nv\r\n--XyZ--\r\n", "a part without headers");
  BAD ("--XyZ\r\nContent-Type: text/plain\r\n\r\nv\r\n--XyZ--\r\n", "no Content-Disposition");
  BAD ("--XyZ\r\nContent-Disposition: attachment; name=a\r\n\r\nv\r\n--XyZ--\r\n", "not form-data");
  BAD ("--XyZ\r\nContent-Disposition: form-data; filename=x\r\n\r\nv\r\n--XyZ--\r\n", "no name");
  BAD ("--XyZ\r\nContent-Disposition: form-data; name=a; name=b\r\n\r\nv\r\n--XyZ--\r\n",
       "a duplicate parameter");
  BAD ("--XyZ\r\nContent-Disposition: form-data;\r\n name=a\r\n\r\nv\r\n--XyZ--\r\n", "folding");
  BAD ("--XyZ\r\nContent-Disposition: form-data; name=\"a\r\n\r\nv\r\n--XyZ--\r\n",
       "an unterminated quote");
  BAD ("--XyZ\r\nContent-Disposition: form-data; name=a; filename*=latin1''x\r\n\r\nv\r\n--XyZ--"
       "\r\n",
       "a non-UTF-8 filename*");
  BAD ("--XyZ\r\nContent-Disposition: form-data; name=a; filename*=UTF-8''%zz\r\n\r\nv\r\n--XyZ--"
       "\r\n",
       "a bad percent escape");
  BAD ("--XyZ\r\nContent-Disposition: form-data; name=a\r\nContent-Disposition: form-data; "
       "name=b\r\n\r\nv\r\n--XyZ--\r\n",
       "two Content-Dispositions");
  BAD ("--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nv\r\n--XyZjunk\r\n",
       "a bad delimiter");
  BAD ("--XyZ\r\nno colon here\r\n\r\nv\r\n--XyZ--\r\n", "a header line without a colon");
  {
    /* 9 parts with a limit of 8. */
    char many[2048] = "";
    for (int i = 0; i < 9; i++)
      strcat (many, "--XyZ\r\nContent-Disposition: form-data; name=p\r\n\r\nv\r\n");
    strcat (many, "--XyZ--\r\n");
    tap_ok (parse_split (CT, many, strlen (many), 13, &r, &why) < 0, "refuses a 9th part (%s)",
            why);
    many[0] = '\0';
    for (int i = 0; i < 8; i++)
      strcat (many, "--XyZ\r\nContent-Disposition: form-data; name=p\r\n\r\nv\r\n");
    strcat (many, "--XyZ--\r\n");
    tap_ok (parse_split (CT, many, strlen (many), 13, &r, &why) == 0 && r.parts == 8,
            "accepts 8 parts");
  }
  {
    char big[4096];
    int n
        = snprintf (big, sizeof big, "--XyZ\r\nContent-Disposition: form-data; name=a\r\nX-Pad: ");
    memset (big + n, 'p', 1100);
    n += 1100;
    n += snprintf (big + n, sizeof big - (size_t)n, "\r\n\r\nv\r\n--XyZ--\r\n");
    tap_ok (parse_split (CT, big, (size_t)n, 64, &r, &why) < 0,
            "refuses headers over the limit (%s)", why);
  }
  {
    static const char x[]
        = "--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nv\r\n"
          "--XyZ\r\nContent-Disposition: form-data; name=b\r\n\r\nw\r\n--XyZ--\r\n";
    r.refuse_at_part = 2;
    tap_ok (parse_split (CT, x, sizeof x - 1, 5, &r, &why) < 0
                && strcmp (why, "refused by callback") == 0,
            "a callback can stop the parse with its own message");
    r.refuse_at_part = 0;
  }
  {
    /* A large part streams through a small parser window. */
    size_t n = 1 << 20;
    char *huge = malloc (n + 200);
    struct rec r3 = { 0 };
    int off = sprintf (huge, "--XyZ\r\nContent-Disposition: form-data; name=big\r\n\r\n");
    memset (huge + off, 'q', n);
    off += (int)n;
    off += sprintf (huge + off, "\r\n--XyZ--\r\n");
    tap_ok (parse_split (CT, huge, (size_t)off, 65536, &r3, &why) == 0 && r3.parts == 1,
            "a 1 MiB part passes through a 1 KiB header window");
    free (huge);
  }
  return tap_done ();
}
