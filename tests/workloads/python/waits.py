"""waits.py SECONDS OUT: sleeps 30 ms in wait_a() and 10 ms in wait_b(), in turn,
for SECONDS or until SIGTERM, doing a little after each call; then writes to OUT
the seconds each wait took by the script's own clock (time.monotonic()):
"wait_a wait_b calls". SIGUSR1 starts the count afresh (at flametop's start: on
a loaded machine a sleep's lateness changes over time)."""
import signal
import sys
import time

spent = [0.0, 0.0, 0]


def wait_a():
    time.sleep(0.030)  # MARK:wait_a


def wait_b():
    time.sleep(0.010)  # MARK:wait_b


def restart(*_):
    spent[:] = [0.0, 0.0, 0]


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGUSR1, restart)
    end = time.monotonic() + float(sys.argv[1])
    try:
        while time.monotonic() < end:
            t0 = time.monotonic()
            wait_a()
            t1 = time.monotonic()
            spent[2] += 1
            wait_b()
            t2 = time.monotonic()
            spent[2] += 1
            spent[0] += t1 - t0
            spent[1] += t2 - t1
    finally:
        with open(sys.argv[2], "w") as f:
            f.write(f"{spent[0]} {spent[1]} {spent[2]}\n")


main()
