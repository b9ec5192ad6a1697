"""threads.py SECONDS OUT: four threads, each hot in a function of its own (one
hashing big buffers with hashlib, which releases the GIL meanwhile), for
SECONDS; each writes "native-thread-id function" to OUT as it starts."""
import hashlib
import sys
import threading
import time

END = time.monotonic() + float(sys.argv[1])
OUT = open(sys.argv[2], "w")
LOCK = threading.Lock()


def note(name):
    with LOCK:
        OUT.write(f"{threading.get_native_id()} {name}\n")
        OUT.flush()


def spin_alpha():
    note("spin_alpha")
    while time.monotonic() < END:
        sum(i * i for i in range(2000))


def spin_beta():
    note("spin_beta")
    while time.monotonic() < END:
        x = 0
        for i in range(2000):
            x ^= i


def spin_gamma():
    note("spin_gamma")
    while time.monotonic() < END:
        sorted(range(2000), key=lambda v: -v)


def hash_delta():
    note("hash_delta")
    buf = b"x" * (16 << 20)
    while time.monotonic() < END:
        hashlib.sha256(buf).digest()


threads = [threading.Thread(target=f) for f in (spin_alpha, spin_beta, spin_gamma, hash_delta)]
for t in threads:
    t.start()
for t in threads:
    t.join()
