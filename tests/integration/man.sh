#!/usr/bin/env bash
# The man page: it renders without a warning, it names every flag --help
# names and no other, and make install puts it and the binary under PREFIX.
. "$(dirname "$0")/../lib.sh"

MAN=flametop.1

# The flags of a text of options: "-F", "--frequency", ... one per line, sorted.
flags_of() {
	grep -oE -- '(^|[ ,[])--?[A-Za-z][A-Za-z-]*' | sed -E 's/^[ ,[]//' | sort -u
}

if ! command -v groff >/dev/null; then
	skip "man page" "groff is not installed (make deps installs groff-base)"
	exit 0
fi
groff -man -ww -z "$MAN" 2>"$TEST_TMP/warnings"
check "the man page renders without a warning ($(head -c 300 "$TEST_TMP/warnings"))" \
	test ! -s "$TEST_TMP/warnings"

# --help's option lines, and the tags of the man page's OPTIONS section as rendered.
$FLAMETOP --help | grep -E '^  +-' | sed -E 's/^ +//; s/  .*//' | flags_of >"$TEST_TMP/help"
groff -man -Tascii -P-cbou -rLL=200n "$MAN" 2>/dev/null |
	awk '/^OPTIONS/ { on = 1; next } /^[A-Z]/ { on = 0 } on && /^       -/' |
	flags_of >"$TEST_TMP/man"
check "--help names $(wc -l <"$TEST_TMP/help") flags (-F, --frequency, ... --version)" \
	bash -c "[ \$(wc -l <'$TEST_TMP/help') -ge 25 ] && grep -qx -- --frequency '$TEST_TMP/help' && grep -qx -- -F '$TEST_TMP/help'"
if diff -u "$TEST_TMP/help" "$TEST_TMP/man" >"$TEST_TMP/diff"; then
	ok "every flag of --help is in the man page's OPTIONS, and no other"
else
	not_ok "every flag of --help is in the man page's OPTIONS, and no other ('-' only in --help, '+' only in the man page)"
	diag <"$TEST_TMP/diff"
fi

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
