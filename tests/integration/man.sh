#!/usr/bin/env bash
# The man page: it renders without a warning, and make install puts it and
# the binary under PREFIX (docs.sh holds its flags and keys to --help's).
. "$(dirname "$0")/../lib.sh"

MAN=flametop.1

if ! command -v groff >/dev/null; then
	skip "man page" "groff is not installed (make deps installs groff-base)"
	exit 0
fi
groff -man -ww -z "$MAN" 2>"$TEST_TMP/warnings"
check "the man page renders without a warning ($(head -c 300 "$TEST_TMP/warnings"))" \
	test ! -s "$TEST_TMP/warnings"

# make install under a PREFIX (and a DESTDIR), nothing written elsewhere.
prefix=$TEST_TMP/prefix
make --no-print-directory -s install PREFIX="$prefix" >"$TEST_TMP/install" 2>&1
check "make install PREFIX=...: flametop in PREFIX/bin runs" \
	bash -c "[ -x '$prefix/bin/flametop' ] && '$prefix/bin/flametop' --version | grep -q '^flametop '"
check "make install PREFIX=...: the man page in PREFIX/share/man/man1, as shipped" \
	cmp -s "$MAN" "$prefix/share/man/man1/flametop.1"
make --no-print-directory -s install PREFIX=/opt/ft DESTDIR="$TEST_TMP/stage" >/dev/null 2>&1
check "make install DESTDIR=... PREFIX=/opt/ft: staged under DESTDIR" \
	bash -c "[ -x '$TEST_TMP/stage/opt/ft/bin/flametop' ] && [ -f '$TEST_TMP/stage/opt/ft/share/man/man1/flametop.1' ] && [ ! -e /opt/ft ]"
