#!/usr/bin/env bash
# offsets.sh OUTDIR: for each CPython 3.10-3.13 whose headers are installed here
# (pyenv's versions, with their internal headers; Debian's /usr/include/python3.X from
# python3.X-dev), builds py_offsets.c against them and writes what it prints to
# OUTDIR/NAME.txt, NAME saying whose: "pyenv-3.11.7", "debian-3.11". The unit tests
# compare flametop's tables with these files.
set -eu
out=$1
here=$(dirname "$0")
mkdir -p "$out"
rm -f "$out"/*.txt
root=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
build() { # build NAME INCLUDE_DIR
	[ -f "$2/internal/pycore_interp.h" ] || return 0
	${CC:-cc} -I"$2" -I"$2/internal" -o "$out/$1" "$here/py_offsets.c" &&
		"$out/$1" >"$out/$1.txt" && rm -f "$out/$1"
}
for d in "$root"/versions/3.1[0-3].*/include/python3.1[0-3]; do
	[ -d "$d" ] || continue
	v=${d%/include/*}
	build "pyenv-${v##*/}" "$d"
done
for d in /usr/include/python3.1[0-3]; do
	[ -d "$d" ] && build "debian-${d##*/python}" "$d"
done
exit 0
