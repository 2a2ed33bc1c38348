/* abuse: R14 for(;;); caught by the CPU clock, not the wall clock */
/* limits: cpuMs=1000 wallTimeMs=20000 idleMs=20000 */
/* expect: limit=cpu timedOut !idleTimedOut !oomKilled cpuMs>=900 */
int
main (void)
{
  volatile unsigned long n = 0;
  for (;;)
    n++;
}
