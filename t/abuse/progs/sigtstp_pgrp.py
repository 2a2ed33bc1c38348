# abuse: R17 SIGTSTP to its own process group, with a forked child in it too
# limits: wallTimeMs=1500 idleMs=10000
# expect: limit=wall timedOut stdout~stopping
import os
import signal
import time

if os.fork() == 0:
    while True:
        time.sleep(1)
print("stopping", flush=True)
os.killpg(0, signal.SIGTSTP)
os.killpg(0, signal.SIGSTOP)
time.sleep(3600)
