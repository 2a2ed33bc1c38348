# abuse: R2 threading.Thread until the interpreter cannot start another
# limits: pids=32
# expect: exit=0 stdout~threads-stopped-at=([12]?[0-9]|3[0-2])$
import os
import threading
import time

n = 0
try:
    for n in range(100000):
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
except RuntimeError:
    pass
print("threads-stopped-at=%d" % n, flush=True)
os._exit(0)
