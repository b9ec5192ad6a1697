"""groundtruth.py SECONDS: some work in its own module-level code, and some in
outer() -> inner(), over and over, for SECONDS: run under -X perf, perf's stack
of a sample in the module's code reaches <module>, the others their function."""
import sys
import time


def inner(n):
    s = 0
    for i in range(n):
        s += i
    return s


def outer(n):
    return inner(n) + inner(n // 2)


end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    s = 0
    for i in range(20000):
        s += i * i
    outer(20000)
