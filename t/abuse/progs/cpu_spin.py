# abuse: R14 while True: pass, caught by the CPU clock
# limits: cpuMs=1000 wallTimeMs=20000 idleMs=20000
# expect: limit=cpu timedOut cpuMs>=900
while True:
    pass
