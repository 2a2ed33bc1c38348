# abuse: R16 time.sleep(10**6): wall clock, CPU near 0
# limits: wallTimeMs=1500 idleMs=10000 cpuMs=5000
# expect: limit=wall timedOut !idleTimedOut cpuMs<500 wallMs>=1400 wallMs<5000
import time
time.sleep(10 ** 6)
