"""frees.py OUT [RATE]: frees code objects for as long as it runs (RATE rounds a
second at most; default: as fast as it can), and says how many.
Writes to OUT first the file offset of the interpreter's code_dealloc() (as
the code type's own tp_dealloc slot names it, read through ctypes) and the
file it is in, then, every 100 rounds, "freed N": each round compiles a
fresh function and drops it, freeing at least two code objects (the
module's and the function's) before the next round. A reader that takes its count, then a
count of its own, then the two again, knows the process freed at least
2 * (N2 - N1 - 100) code objects between its own two."""
import ctypes
import sys
import time
import types

TP_DEALLOC_AT = 48  # offsetof(PyTypeObject, tp_dealloc) on a 64-bit build


def code_dealloc():
    at = ctypes.c_void_p.from_address(id(types.CodeType) + TP_DEALLOC_AT).value
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if lo <= at < hi and len(parts) > 5:
                return at - lo + int(parts[2], 16), parts[5]
    return 0, "?"


out = open(sys.argv[1], "w", buffering=1)
offset, path = code_dealloc()
out.write("code_dealloc %d %s\n" % (offset, path))
rate = float(sys.argv[2]) if len(sys.argv) > 2 else 0
start = time.monotonic()
rounds = 0
while True:
    if rate and rounds > rate * (time.monotonic() - start):
        time.sleep(0.01)
        continue
    ns = {}
    exec("def f%d(x):\n    return x + %d\n" % (rounds, rounds), ns)
    ns.clear()  # the function and its globals hold each other: freed now, not by the GC
    rounds += 1
    if rounds % 100 == 0:
        out.write("freed %d\n" % rounds)
