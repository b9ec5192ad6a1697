"""Two hot lines in one function, 3:1 by construction, for the annotate view.

annotate.py SECONDS: work() runs for SECONDS; of every four turns of its
loop, three run the line marked hot_a and one the line marked hot_b, each
the same work (a sum over a range, in C). With FILE: the function is
compiled as if it came from FILE (a FIFO, a directory, a file the process
may not read, "<string>"), named spin, and runs for SECONDS.
"""
import sys
import time


def work(seconds):
    end = time.monotonic() + seconds
    total = 0
    while time.monotonic() < end:
        for i in range(400):
            if i % 4:
                total += sum(range(600))  # MARK:hot_a
            else:
                total += sum(range(600))  # MARK:hot_b
    return total


SPIN = """
def spin(seconds, clock):
    end = clock() + seconds
    total = 0
    while clock() < end:
        total += sum(range(600))
    return total
"""


def main():
    seconds = float(sys.argv[1])
    if len(sys.argv) > 2:
        scope = {}
        exec(compile(SPIN, sys.argv[2], "exec"), scope)
        scope["spin"](seconds, time.monotonic)
    else:
        work(seconds)


main()
