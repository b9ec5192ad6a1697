"""split.py SECONDS OUT: outer -> middle -> leaf_a / leaf_b, leaf_a given 3 times
leaf_b's work, for SECONDS or until SIGTERM; then writes to OUT the CPU seconds
each leaf took as the thread's own clock (time.thread_time()) measured them:
"leaf_a leaf_b"; SIGUSR1 starts the count afresh (at flametop's start). The
lines the tests expect in the frames carry MARK comments."""
import signal
import sys
import time


def leaf_a(n):
    total = 0
    for i in range(n):  # MARK:leaf_a
        total += i * i  # MARK:leaf_a
    return total


def leaf_b(n):
    total = 0
    for i in range(n):  # MARK:leaf_b
        total += i * i  # MARK:leaf_b
    return total


def middle(spent):
    t0 = time.thread_time()
    leaf_a(300000)  # MARK:call_a
    t1 = time.thread_time()
    leaf_b(100000)  # MARK:call_b
    t2 = time.thread_time()
    spent[0] += t1 - t0
    spent[1] += t2 - t1


def outer(seconds, spent):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        middle(spent)  # MARK:call_middle


def main():
    spent = [0.0, 0.0]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGUSR1, lambda *_: spent.__setitem__(slice(None), [0.0, 0.0]))
    try:
        outer(float(sys.argv[1]), spent)  # MARK:call_outer
    finally:
        with open(sys.argv[2], "w") as f:
            f.write(f"{spent[0]} {spent[1]}\n")


main()  # MARK:call_main
