"""deep.py DEPTH SECONDS: spins for SECONDS in a leaf DEPTH Python frames deep:
<module>, then DEPTH - 2 functions of their own (f0 calls f1 ...), then leaf().
Every frame a code object of its own: the walk tags each (the dearest case)."""
import sys
import time

DEPTH = int(sys.argv[1])
END = time.monotonic() + float(sys.argv[2])


def leaf():
    while time.monotonic() < END:
        sum(range(100))


source = "".join(f"def f{i}():\n    return f{i + 1}()\n" for i in range(DEPTH - 3))
source += f"def f{DEPTH - 3}():\n    return leaf()\n"
scope = {"leaf": leaf}
exec(compile(source, "deep_generated.py", "exec"), scope)
scope["f0"]()
