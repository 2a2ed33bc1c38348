/* abuse: R12/R13 flood stdout without reading a large stdin: stdin and output must not deadlock */
/* limits: wallTimeMs=2000 outputKb=64 */
/* stdin: 900000 */
/* expect: truncated limit=wall||exit=0 outlen<=65536 */
#include <string.h>
#include <unistd.h>

int
main (void)
{
  char buf[4096];
  memset (buf, 'y', sizeof buf);
  for (long i = 0; i < 100000; i++)
    if (write (1, buf, sizeof buf) < 0)
      return 1;
  return 0;
}
