/* base64_test.c - RFC 4648 vectors, every byte value round trip, and the
 * strictness of the decoder (common/base64.c). */
#include <config.h>

#include "common/base64.h"
#include "t/unit/tap.h"

#include <string.h>

static int
decodes (const char *text, const char *want, size_t want_len)
{
  char *out;
  size_t len;
  int ok = rc_base64_decode (text, strlen (text), &out, &len) == 0 && len == want_len
           && memcmp (out, want, len) == 0 && out[len] == '\0';
  free (out);
  return ok;
}

static int
refused (const char *text)
{
  char *out;
  size_t len;
  return rc_base64_decode (text, strlen (text), &out, &len) < 0 && out == NULL;
}

int
main (void)
{
  static const char *const vec[][2] = { { "", "" },
                                        { "f", "Zg==" },
                                        { "fo", "Zm8=" },
                                        { "foo", "Zm9v" },
                                        { "foob", "Zm9vYg==" },
                                        { "fooba", "Zm9vYmE=" },
                                        { "foobar", "Zm9vYmFy" } };
  char all[256];
  struct rc_buf b = { 0 };
  bool ok = true;

  for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++)
    {
      rc_buf_reset (&b);
      rc_base64_encode (&b, vec[i][0], strlen (vec[i][0]));
      ok &= b.len == strlen (vec[i][1]) && memcmp (b.data, vec[i][1], b.len) == 0
            && decodes (vec[i][1], vec[i][0], strlen (vec[i][0]));
    }
  tap_ok (ok, "RFC 4648 test vectors both ways");
  for (int i = 0; i < 256; i++)
    all[i] = (char)i;
  rc_buf_reset (&b);
  rc_base64_encode (&b, all, sizeof all);
  tap_ok (decodes (b.data, all, sizeof all), "bytes 0 to 255 round trip");
  tap_ok (refused ("Zg=") && refused ("Zg") && refused ("Z===") && refused ("====")
              && refused ("Zm9v\n") && refused ("Zm9-") && refused ("Zh==") && refused ("Zm9=Zm9v"),
          "short, unpadded, misplaced padding, whitespace, url alphabet and stray bits refused");
  rc_buf_free (&b);
  return tap_done ();
}
