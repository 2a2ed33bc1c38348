/* abuse: R11 endless stderr flood: capped like stdout */
/* limits: outputKb=64 wallTimeMs=2000 cpuMs=1500 */
/* expect: truncated outlen<=65536 stderr~^HEAD-OF-STDERR limit=wall|cpu */
#include <string.h>
#include <unistd.h>

int
main (void)
{
  static char buf[65536];
  const char head[] = "HEAD-OF-STDERR\n";
  memset (buf, 'e', sizeof buf);
  if (write (2, head, sizeof head - 1) < 0)
    return 1;
  for (;;)
    if (write (2, buf, sizeof buf) < 0)
      return 1;
}
