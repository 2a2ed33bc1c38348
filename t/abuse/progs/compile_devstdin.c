/* abuse: R31 compile bomb: #include "/dev/stdin" at compile time */
/* expect: compile=any !stdout~RAN */
#include "/dev/stdin"
#include <stdio.h>
int
main (void)
{
  puts ("compiled anyway");
  return 0;
}
