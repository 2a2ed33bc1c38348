/* session_path_fuzz.c - libFuzzer target for the sessions sub_path
 * normaliser (fcgi/sessions/session_path.c).
 *
 * Whatever the input, an accepted path must be canonical and contained:
 * relative, no NUL, no empty, "." or ".." component, no backslash, no
 * component over the limit, and normalising it again gives itself.
 */
#include "config.h"

#include "fcgi/sessions/session_path.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *buf, size_t len);

int
LLVMFuzzerTestOneInput (const uint8_t *buf, size_t len)
{
  static char out[RC_SESSION_PATH_MAX + 1], again[RC_SESSION_PATH_MAX + 1];
  const char *why = NULL;
  size_t n;

  if (rc_session_path_normalize ((const char *)buf, len, out, sizeof out, len % 2 == 0, &why) < 0)
    {
      if (why == NULL)
        abort ();
      return 0;
    }
  n = strlen (out);
  if (n > len || n > RC_SESSION_PATH_MAX || (n > 0 && (out[0] == '/' || out[n - 1] == '/')))
    abort ();
  if (strchr (out, '\\') || strstr (out, "//"))
    abort ();
  for (const char *c = out; *c;)
    {
      const char *slash = strchr (c, '/');
      size_t l = slash ? (size_t)(slash - c) : strlen (c);
      if (l == 0 || l > RC_SESSION_NAME_MAX || (l == 1 && c[0] == '.')
          || (l == 2 && c[0] == '.' && c[1] == '.'))
        abort ();
      c += l + (slash ? 1 : 0);
    }
  if (rc_session_path_normalize (out, n, again, sizeof again, true, &why) < 0
      || strcmp (out, again) != 0)
    abort ();
  return 0;
}
