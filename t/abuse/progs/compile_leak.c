/* abuse: I11/F incbin the host canary secret, /etc/shadow and the init's environ at compile time: nothing secret reaches the output */
/* expect: compile=any */
__asm__ (".section .rodata\n"
         "canary: .incbin \"@CANARY_DIR@/secret.txt\"\n"
         "shadow: .incbin \"/etc/shadow\"\n"
         ".previous\n");
#include "/proc/1/environ"
int
main (void)
{
  return 0;
}
