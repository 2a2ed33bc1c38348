# abuse: a byte every 200 ms resets the idle clock: the wall clock must end it, not idle
# limits: idleMs=1000 wallTimeMs=2500
# expect: limit=wall timedOut !idleTimedOut stdout~^\.{5,}
import sys
import time
while True:
    sys.stdout.write(".")
    sys.stdout.flush()
    time.sleep(0.2)
