# abuse: R13 never read a large stdin and sleep: no deadlock, the wall clock fires
# limits: wallTimeMs=1500 idleMs=10000
# stdin: 900000
# expect: limit=wall timedOut stdout~started
import time
print("started", flush=True)
time.sleep(3600)
