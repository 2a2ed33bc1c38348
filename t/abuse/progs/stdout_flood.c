/* abuse: R10 write(1) in an endless loop: the head is kept, the rest dropped, worker RSS bounded */
/* limits: outputKb=64 wallTimeMs=2000 cpuMs=1500 */
/* expect: truncated outlen<=65536 stdout~^HEAD-OF-OUTPUT limit=wall|cpu */
#include <string.h>
#include <unistd.h>

int
main (void)
{
  static char buf[65536];
  const char head[] = "HEAD-OF-OUTPUT\n";
  memset (buf, 'z', sizeof buf);
  if (write (1, head, sizeof head - 1) < 0)
    return 1;
  for (;;)
    if (write (1, buf, sizeof buf) < 0)
      return 1;
}
