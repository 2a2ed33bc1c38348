# abuse: R6 fill the workspace (the overlay upper): ENOSPC/EFBIG or a memory kill, never host disk
# limits: memoryMb=256 wallTimeMs=8000
# expect: exit=0&&stdout~ENOSPC|EFBIG||oomKilled
import errno
import os
import signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
chunk = b"W" * (1 << 20)
n = 0
try:
    with open(os.path.join(os.getcwd(), "fill.bin"), "wb", buffering=0) as f:
        for n in range(100000):
            f.write(chunk)
except OSError as e:
    print("stopped after %d MiB: %s" % (n, errno.errorcode.get(e.errno, e.errno)))
