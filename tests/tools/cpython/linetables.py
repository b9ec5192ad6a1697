"""linetables.py: prints, as C, the line tables of a few code objects of the
interpreter that runs it, and the lines CPython itself gives their
instructions (code.co_lines()): tests/unit/python_linetables.h, the ground
truth of python/linetable.c's unit tests. Made with each of 3.10 to 3.13:

    for v in 3.10 3.11 3.12 3.13; do python$v linetables.py; done > python_linetables.h
"""
import sys
import types

SOURCE = '''
def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            total += i
        elif i % 3 == 1:
            total -= 1
        else:
            total *= 2
    while total > 100:
        total //= 2
    return total

def handler(x):
    try:
        y = 1 / x
    except ZeroDivisionError:
        y = 0
    finally:
        x += 1
    return [v * 2
            for v in range(x)
            if v > y]

def far(a):
    b = a + 1
''' + "\n" * 300 + '''    c = b + 2
''' + "\n" * 3000 + '''    return (a,
            b,
            c)

def long_body():
''' + "".join(f"    v{i} = {i} * {i}\n" for i in range(200)) + '''    return v199
'''


def codes(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from codes(c)


def main():
    v = sys.version_info
    tag = f"{v.major}{v.minor}"
    module = compile(SOURCE, "sample.py", "exec")
    cases = []
    for i, c in enumerate(codes(module)):
        ranges = [(s, e, line if line is not None else -1) for s, e, line in c.co_lines()]
        name = f"lt{tag}_{i}"
        print(f"static const uint8_t {name}_table[] = {{ "
              + ", ".join(str(b) for b in c.co_linetable) + " };")
        print(f"static const struct lt_range {name}_ranges[] = {{ "
              + ", ".join(f"{{ {s}, {e}, {l} }}" for s, e, l in ranges) + " };")
        cases.append((name, c.co_firstlineno, c.co_qualname if v.minor >= 11 else c.co_name))
    print(f"static const struct lt_case lt{tag}[] = {{")
    for name, first, qual in cases:
        print(f"\t{{ \"{qual}\", 0x03{v.minor:02x}, {first}, {name}_table, sizeof({name}_table), "
              f"{name}_ranges, sizeof({name}_ranges) / sizeof({name}_ranges[0]) }},")
    print("};")


main()
