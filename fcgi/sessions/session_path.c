/* session_path.c - normalises request sub_paths (see session_path.h).
 *
 * Deliberately stricter than POSIX: ".." is refused even where it would
 * stay inside the session ("a/../b"), and so are the percent-encoded forms
 * of the separators, because a path that means one thing to this check and
 * another to a component that decodes again is how traversals slip through.
 */
#include "config.h"

#include "fcgi/sessions/session_path.h"

#include <string.h>
#include <strings.h>

/* True when s[0..n) holds a "%xx" that decodes to '.', '/', '\' or NUL. */
static bool
has_encoded_separator (const char *s, size_t n)
{
  static const char *const forms[] = { "%2e", "%2f", "%5c", "%00" };
  for (size_t i = 0; i + 3 <= n; i++)
    {
      if (s[i] != '%')
        continue;
      for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
        if (strncasecmp (s + i, forms[f], 3) == 0)
          return true;
    }
  return false;
}

int
rc_session_path_normalize (const char *in, size_t len, char *out, size_t out_size, bool allow_empty,
                           const char **why)
{
  size_t i = 0, o = 0, depth = 0;

  if (out_size < RC_SESSION_PATH_MAX + 1)
    {
      *why = "internal: output buffer too small";
      return -1;
    }
  if (len > RC_SESSION_PATH_MAX)
    {
      *why = "path too long";
      return -1;
    }
  if (memchr (in, '\0', len) != NULL)
    {
      *why = "path contains a NUL byte";
      return -1;
    }
  if (len > 0 && in[0] == '/')
    {
      *why = "path must be relative";
      return -1;
    }
  if (memchr (in, '\\', len) != NULL)
    {
      *why = "path contains a backslash";
      return -1;
    }
  while (i < len)
    {
      size_t start = i, n;
      while (i < len && in[i] != '/')
        i++;
      n = i - start;
      if (i < len)
        i++; /* the '/' */
      if (n == 0 || (n == 1 && in[start] == '.'))
        continue;
      if (n == 2 && in[start] == '.' && in[start + 1] == '.')
        {
          *why = "path must not contain '..'";
          return -1;
        }
      if (n > RC_SESSION_NAME_MAX)
        {
          *why = "path component too long";
          return -1;
        }
      if (has_encoded_separator (in + start, n))
        {
          *why = "path contains an encoded separator";
          return -1;
        }
      if (++depth > RC_SESSION_DEPTH_MAX)
        {
          *why = "path too deep";
          return -1;
        }
      if (o > 0)
        out[o++] = '/';
      memcpy (out + o, in + start, n);
      o += n;
    }
  out[o] = '\0';
  if (o == 0 && !allow_empty)
    {
      *why = "path is empty";
      return -1;
    }
  return 0;
}
