/* abuse: R31 compile bomb: the file includes itself (nesting until the compiler's depth limit) */
/* expect: compile=fail !stdout~RAN */
#include __FILE__
int
main (void)
{
  return 0;
}
