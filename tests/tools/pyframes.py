"""pyframes.py FILE: the Python frames of each stack of a folded FILE (as flametop
writes them: "group;frame;...;frame COUNT"), one line each:

    COUNT<TAB>GROUP<TAB>FRAMES<TAB>NATIVE

FRAMES are the stack's Python frames, outermost first, as "qualname@file:LINE"
(file as written), joined by " > " where they follow each other and by " | "
where native frames come between them; "-" when there are none. Placeholders of the
Python walk ("[python: ...]") show as such. NATIVE is "whole", or "cut" when the
native walk stopped short ("[truncated]"): the Python frames are then placed by the
leaf end (python/merge.h). For the shell tests' awk."""
import re
import sys

PY = re.compile(r"^(.*?) \((.*):(\d+)\)$")


def frames(stack):
    out, gap = [], False
    for f in stack:
        m = PY.match(f)
        if m and not f.endswith("_[k]"):
            token = f"{m.group(1)}@{m.group(2)}:{m.group(3)}"
        elif f.startswith("[python:"):
            token = f
        else:
            gap = bool(out)
            continue
        out.append((" | " if gap else " > ") + token if out else token)
        gap = False
    return "".join(out) if out else "-"


def main():
    for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        stack, _, count = line.rpartition(" ")
        parts = stack.split(";")
        native = "cut" if "[truncated]" in parts else "whole"
        print(f"{count}\t{parts[0]}\t{frames(parts[1:])}\t{native}")


main()
