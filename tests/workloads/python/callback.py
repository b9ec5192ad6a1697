"""callback.py SECONDS: sorted() calling back into Python (key=py_key), for SECONDS."""
import sys
import time


def py_key(x):
    s = 0
    for i in range(40):  # MARK:key
        s += i
    return -x


def sorter():
    data = list(range(2000))
    return sorted(data, key=py_key)  # MARK:sorted


def main():
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        sorter()


main()
