"""reads.py SECONDS FILE: reads FILE in 4 KiB chunks, over and over, for SECONDS."""
import os
import sys
import time


def read_chunks(path):
    with open(path, "rb", buffering=0) as f:
        while f.read(4096):  # MARK:read
            pass


def main():
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        read_chunks(sys.argv[2])
        time.sleep(0.001)


main()
