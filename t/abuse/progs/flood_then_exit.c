/* abuse: flood past the budget then exit 0: truncation is not a kill, the exit code survives */
/* limits: outputKb=16 wallTimeMs=5000 */
/* expect: truncated exit=0 limit=null !timedOut outlen<=16384 */
#include <string.h>
#include <unistd.h>

int
main (void)
{
  static char buf[8192];
  memset (buf, 'f', sizeof buf);
  for (int i = 0; i < 1024; i++) /* 8 MiB, well past the budget */
    if (write (1, buf, sizeof buf) < 0)
      return 1;
  return 0;
}
