/* abuse: R31 compile bomb: #include "/dev/zero" (the compiler reads forever): compile limit or error, never runs */
/* expect: compile=fail !stdout~RAN */
#include "/dev/zero"
int
main (void)
{
  return 0;
}
