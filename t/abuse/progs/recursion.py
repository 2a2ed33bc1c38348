# abuse: R29 Python recursion with the recursion limit lifted: frames exhaust memory (3.11 keeps them off the C stack) or the stack: a crash, not a hang
# limits: wallTimeMs=20000 idleMs=20000 cpuMs=20000 memoryMb=64
# expect: exit!=0||oomKilled !timedOut
import sys
sys.setrecursionlimit(10 ** 8)


def down(n):
    return down(n + 1) + 1


print(down(0))
