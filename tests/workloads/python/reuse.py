"""reuse.py SECONDS OUT: runs alpha() under phase_a() for SECONDS, then drops
alpha and its code object, makes beta's (a copy of alpha's with another name:
no other code object made between) where the allocator gives it back, at the
address alpha's had as a rule, and runs beta() under phase_b() for SECONDS.
Writes to OUT "reused" when beta's code object took alpha's address, else
"moved". A frame of phase_b named alpha is a name kept for a code object that
is gone. Phase A ends SECONDS after SIGUSR1 (sent once flametop runs), or after
a minute without it."""
import signal
import sys
import time
import types

SECONDS = float(sys.argv[1])
end_a = time.monotonic() + 60


def restart(signum, frame):
    global end_a
    end_a = time.monotonic() + SECONDS


def work():
    s = 0
    for i in range(20000):
        s += i
    return s


def named(name):
    """A function running work()'s code in a code object of its own named NAME."""
    if sys.version_info >= (3, 11):
        code = work.__code__.replace(co_name=name, co_qualname=name)
    else:
        code = work.__code__.replace(co_name=name)
    return types.FunctionType(code, globals(), name)


def phase_a(alpha):
    while time.monotonic() < end_a:
        alpha()


def phase_b(beta):
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        beta()


def main():
    signal.signal(signal.SIGUSR1, restart)
    alpha = named("alpha")
    phase_a(alpha)
    was = id(alpha.__code__)
    del alpha
    beta = named("beta")
    with open(sys.argv[2], "w") as out:
        out.write("reused\n" if id(beta.__code__) == was else "moved\n")
    phase_b(beta)


main()
