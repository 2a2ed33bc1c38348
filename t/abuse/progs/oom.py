# abuse: R3 Python list of bytearrays past the memory limit
# limits: memoryMb=64
# expect: oomKilled limit=memory !timedOut
hoard = []
for i in range(256):
    hoard.append(bytearray(b"x" * (1 << 20)))
print("allocated 256 MiB under a 64 MiB limit")
