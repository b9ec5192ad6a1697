"""forks.py SECONDS OUT: fork()s; the child runs child_work(), the parent
parent_work(), for SECONDS; OUT gets "parent PID" and "child PID"."""
import os
import sys
import time


def spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        sum(i * i for i in range(1000))


def child_work(seconds):
    spin(seconds)


def parent_work(seconds):
    spin(seconds)


def main():
    seconds = float(sys.argv[1])
    with open(sys.argv[2], "w") as f:
        f.write(f"parent {os.getpid()}\n")
    pid = os.fork()
    if pid == 0:
        with open(sys.argv[2], "a") as f:
            f.write(f"child {os.getpid()}\n")
        child_work(seconds)
        os._exit(0)
    parent_work(seconds)
    os.waitpid(pid, 0)


main()
