# abuse: R1 Python os.fork() forever in every process
# limits: pids=32 cpuMs=2000 wallTimeMs=4000
# expect: limit=cpu|wall timedOut stdout~EAGAIN|BlockingIOError
import os
said = False
while True:
    try:
        os.fork()
    except OSError as e:
        if not said:
            said = True
            print("fork: %s" % ("EAGAIN" if e.errno == 11 else e), flush=True)
