# abuse: R29 Python recursion with the recursion limit lifted: the C stack overflows, a crash not a hang
# limits: wallTimeMs=8000 memoryMb=256
# expect: exit!=0 !timedOut
import sys
sys.setrecursionlimit(10 ** 8)


def down(n):
    return down(n + 1) + 1


print(down(0))
