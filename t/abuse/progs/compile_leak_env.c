/* abuse: I11 #include "/proc/self/environ": gcc reads proc files as empty, but whatever the compiler sees or prints holds no secret */
/* expect: compile=any */
#include "/proc/self/environ"
int
main (void)
{
  return 0;
}
