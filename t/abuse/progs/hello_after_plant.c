/* abuse: follow-up on the same slot after planted links: a normal program compiles and runs normally */
/* role: followup */
/* expect: exit=0 stdout~^hello-after-plant$ compile=ok */
#include <stdio.h>
#include <unistd.h>

int
main (void)
{
  /* the workspace of this request must not contain what the last one planted */
  if (access ("./fifo", F_OK) == 0 || access ("/tmp/fifo", F_OK) == 0)
    puts ("LEFTOVER fifo");
  puts ("hello-after-plant");
  return 0;
}
