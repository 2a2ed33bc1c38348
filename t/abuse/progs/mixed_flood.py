# abuse: R11 stdout and stderr flood interleaved: one combined budget
# limits: outputKb=32 wallTimeMs=2000 cpuMs=1500
# expect: truncated outlen<=32768 stdout~^out||stderr~^err
import os
a = b"out" * 3000
b = b"err" * 3000
while True:
    os.write(1, a)
    os.write(2, b)
