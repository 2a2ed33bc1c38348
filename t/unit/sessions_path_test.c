/* sessions_path_test.c - unit tests of the sessions sub_path normaliser
 * (fcgi/sessions/session_path.c): every accepted path comes out canonical, every
 * traversal form is refused. */
#include "config.h"

#include "fcgi/sessions/session_path.h"
#include "t/unit/tap.h"

#include <stdio.h>
#include <string.h>

/* The input made printable for a TAP line. */
static const char *
shown (const char *in)
{
  static char buf[2][600];
  static int which;
  char *o = buf[which ^= 1];
  size_t n = 0;
  for (; *in && n < sizeof buf[0] - 5; in++)
    {
      unsigned char ch = (unsigned char)*in;
      if (ch >= 0x20 && ch < 0x7f && ch != '#')
        o[n++] = (char)ch;
      else
        n += (size_t)snprintf (o + n, 5, "\\x%02x", ch);
    }
  o[n] = '\0';
  return o;
}

static void
accepts (const char *in, bool allow_empty, const char *want)
{
  char out[RC_SESSION_PATH_MAX + 1];
  const char *why = NULL;
  int r = rc_session_path_normalize (in, strlen (in), out, sizeof out, allow_empty, &why);
  tap_ok (r == 0 && strcmp (out, want) == 0, "'%s' -> '%s' (%s)", shown (in), shown (want),
          r == 0 ? "accepted" : why);
}

static void
refuses (const char *in, size_t len, bool allow_empty, const char *label)
{
  char out[RC_SESSION_PATH_MAX + 1];
  const char *why = NULL;
  int r = rc_session_path_normalize (in, len, out, sizeof out, allow_empty, &why);
  tap_ok (r < 0 && why != NULL, "refuses %s (%s)", label, why ? why : "accepted");
}

int
main (void)
{
  char longname[300], deep[400], toolong[RC_SESSION_PATH_MAX + 10];
  char out[RC_SESSION_PATH_MAX + 1];
  const char *why;

  accepts ("a.txt", false, "a.txt");
  accepts ("a/b/c.txt", false, "a/b/c.txt");
  accepts ("a//b", false, "a/b");
  accepts ("./a/./b/", false, "a/b");
  accepts ("dir/", false, "dir");
  accepts ("", true, "");
  accepts ("./", true, "");
  accepts (".hidden/.env", false, ".hidden/.env");
  accepts ("...", false, "...");
  accepts ("..a/b..", false, "..a/b..");
  accepts ("sp ace/quote\"/new\nline", false, "sp ace/quote\"/new\nline");
  accepts ("\xc3\xbc/\xff\xfe", false, "\xc3\xbc/\xff\xfe");
  accepts ("100%/50%25", false, "100%/50%25");

  refuses ("", 0, false, "the empty path when not allowed");
  refuses ("./", 2, false, "'./' when not allowed");
  refuses ("..", 2, false, "'..'");
  refuses ("../x", 4, false, "'../x'");
  refuses ("a/../b", 6, false, "'a/../b'");
  refuses ("a/..", 4, false, "a trailing '..'");
  refuses ("/etc/passwd", 11, false, "an absolute path");
  refuses ("a\\..\\b", 6, false, "a backslash");
  refuses ("a\0b", 3, false, "an embedded NUL");
  refuses ("%2e%2e/x", 8, false, "'%2e%2e'");
  refuses ("%2E./x", 6, false, "'%2E.'");
  refuses ("a%2fb", 5, false, "'%2f'");
  refuses ("a%5Cb", 5, false, "'%5C'");
  refuses ("a%00b", 5, false, "'%00'");
  memset (longname, 'n', 256);
  longname[256] = '\0';
  refuses (longname, 256, false, "a 256-byte component");
  longname[255] = '\0';
  accepts (longname, false, longname);
  deep[0] = '\0';
  for (int i = 0; i < 65; i++)
    strcat (deep, "d/");
  refuses (deep, strlen (deep), false, "65 levels");
  deep[128] = '\0';
  tap_ok (rc_session_path_normalize (deep, strlen (deep), out, sizeof out, false, &why) == 0,
          "64 levels are accepted");
  memset (toolong, 'a', sizeof toolong);
  for (size_t i = 100; i < sizeof toolong; i += 100)
    toolong[i] = '/';
  refuses (toolong, RC_SESSION_PATH_MAX + 1, false, "a path over RC_SESSION_PATH_MAX");
  tap_ok (rc_session_path_normalize ("a", 1, out, 16, false, &why) < 0,
          "a short output buffer is refused");
  return tap_done ();
}
