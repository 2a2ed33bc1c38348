/* session_path_fuzz.c - libFuzzer target for the sessions sub_path
 * normaliser (fcgi/sessions/session_path.c).
 *
 * The input is a sub_path as it arrives (the URL after /files/, decoded by
 * nginx, or a multipart filename); an even length allows the empty path
 * (listings), an odd one does not.  Whatever the input, an accepted path
 * must be canonical and contained: relative, no NUL, no empty, "." or
 * ".." component, no backslash, no percent-encoded '.', '/', '\' or NUL,
 * no component over the limit, at most RC_SESSION_DEPTH_MAX components,
 * exactly the input's components without the empty and "." ones, and
 * normalising it again gives itself.  A refusal says why.
 */
#include "config.h"

#include "fcgi/sessions/session_path.h"
#include "fuzz/fuzz.h"

#include <string.h>
#include <strings.h>

/* The input's components, empty and "." ones dropped, joined with '/':
 * what the output must be. */
static size_t
expected (const char *in, size_t len, char *out)
{
  size_t o = 0, i = 0;
  while (i < len)
    {
      size_t start = i;
      while (i < len && in[i] != '/')
        i++;
      if (i - start > 0 && !(i - start == 1 && in[start] == '.'))
        {
          if (o)
            out[o++] = '/';
          memcpy (out + o, in + start, i - start);
          o += i - start;
        }
      i++;
    }
  out[o] = '\0';
  return o;
}

static bool
has_encoded_separator (const char *s)
{
  static const char *const forms[] = { "%2e", "%2f", "%5c", "%00" };
  for (; *s; s++)
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
      if (strncasecmp (s, forms[f], 3) == 0)
        return true;
  return false;
}

int
LLVMFuzzerTestOneInput (const uint8_t *buf, size_t len)
{
  static char out[RC_SESSION_PATH_MAX + 1], again[RC_SESSION_PATH_MAX + 1];
  static char want[RC_SESSION_PATH_MAX + 1];
  const char *in = (const char *)buf, *why = NULL;
  bool allow_empty = len % 2 == 0;
  size_t n, depth = 0;

  if (rc_session_path_normalize (in, len, out, sizeof out, allow_empty, &why) < 0)
    {
      FUZZ_CHECK (why != NULL && why[0] != '\0', "a refusal says why");
      return 0;
    }
  n = strlen (out);
  FUZZ_CHECK (memchr (in, '\0', len) == NULL, "no NUL byte gets through");
  FUZZ_CHECK (n <= len && n <= RC_SESSION_PATH_MAX, "the path is bounded");
  FUZZ_CHECK (n > 0 || allow_empty, "the empty path only where allowed");
  FUZZ_CHECK (n == 0 || (out[0] != '/' && out[n - 1] != '/'), "relative, no trailing '/'");
  FUZZ_CHECK (strchr (out, '\\') == NULL, "no backslash");
  FUZZ_CHECK (!has_encoded_separator (out), "no percent-encoded separator");
  for (const char *c = out; *c;)
    {
      const char *slash = strchr (c, '/');
      size_t l = slash ? (size_t)(slash - c) : strlen (c);
      FUZZ_CHECK (l > 0, "no empty component");
      FUZZ_CHECK (l <= RC_SESSION_NAME_MAX, "a component is bounded");
      FUZZ_CHECK (!(l == 1 && c[0] == '.'), "no '.' component");
      FUZZ_CHECK (!(l == 2 && c[0] == '.' && c[1] == '.'), "no '..' component");
      depth++;
      c += l + (slash ? 1 : 0);
    }
  FUZZ_CHECK (depth <= RC_SESSION_DEPTH_MAX, "the path is no deeper than the limit");
  FUZZ_CHECK (expected (in, len, want) == n && memcmp (want, out, n) == 0,
              "the path is the input's components, nothing added, moved or decoded");
  FUZZ_CHECK (rc_session_path_normalize (out, n, again, sizeof again, true, &why) == 0
                  && strcmp (out, again) == 0,
              "normalising is idempotent");
  return 0;
}
