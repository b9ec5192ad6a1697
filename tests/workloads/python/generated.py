"""generated.py SECONDS: makes, runs and drops freshly generated functions in a
loop: gen_N, compiled from a file named <gen-N> with N blank lines before it (its
first line N + 1), so that a frame named with another code object's name shows:
its name's N and its file's or line's would differ. Each runs some 10 ms; every
other one is kept for the next 80 (a second or so, about flametop's drain
period) and read while alive, the others dropped after the next 4: gone, and
others made at their addresses, when read."""
import collections
import sys
import time

KEPT = (collections.deque(maxlen=4), collections.deque(maxlen=80))


def run_one(n):
    source = "\n" * n + f"def gen_{n}(k):\n    s = 0\n    for i in range(k):\n        s += i\n    return s\n"
    scope = {}
    exec(compile(source, f"<gen-{n}>", "exec"), scope)
    scope[f"gen_{n}"](300000)
    KEPT[n % 2].append(scope)


def main():
    end = time.monotonic() + float(sys.argv[1])
    n = 0
    while time.monotonic() < end:
        run_one(n % 1000)
        n += 1


main()
