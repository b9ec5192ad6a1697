#!/usr/bin/env bash
# The docs agree with the program: the flags and keys --help lists (made
# from the one table of each in options.c and tui/actions.c) are those the
# man page's OPTIONS and KEYS sections describe, no more, no fewer, and the
# README's copies of both lists are --help's, line for line (make docs
# writes them). A flag or a key added to its table fails here until the
# man page has its entry and make docs has run.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../help_lists.sh"

# same "what" A B: A and B (files) hold the same lines; the diff otherwise.
same() {
	if diff -u "$2" "$3" >"$TEST_TMP/diff"; then ok "$1"; else
		not_ok "$1 ('-' only in the first, '+' only in the second)"
		diag <"$TEST_TMP/diff"
	fi
}

help_flags >"$TEST_TMP/help_flags"
help_keys >"$TEST_TMP/help_keys"
check "--help lists $(wc -l <"$TEST_TMP/help_flags") flags (-F, --frequency, ... --version)" \
	bash -c "[ \$(wc -l <'$TEST_TMP/help_flags') -ge 25 ] && grep -qx -- --frequency '$TEST_TMP/help_flags' && grep -qx -- --version '$TEST_TMP/help_flags'"
check "--help lists $(wc -l <"$TEST_TMP/help_keys") keys (? h F1, q F10, Ctrl-C, ...)" \
	bash -c "[ \$(wc -l <'$TEST_TMP/help_keys') -ge 30 ] && grep -qx '? h F1' '$TEST_TMP/help_keys' && grep -qx 'Ctrl-C' '$TEST_TMP/help_keys'"

if command -v groff >/dev/null; then
	man_flags >"$TEST_TMP/man_flags"
	same "the man page's OPTIONS describe every flag of --help, and no other" \
		"$TEST_TMP/help_flags" "$TEST_TMP/man_flags"
else
	skip "the man page's OPTIONS against --help" "groff is not installed (make deps installs groff-base)"
fi
man_keys >"$TEST_TMP/man_keys"
same "the man page's KEYS describe every key of --help, and no other" \
	"$TEST_TMP/help_keys" "$TEST_TMP/man_keys"

for list in Options Keys; do
	help_section "$list" >"$TEST_TMP/help_$list"
	readme_block "$list" >"$TEST_TMP/readme_$list"
	same "README's list of $list is --help's, line for line (make docs writes it)" \
		"$TEST_TMP/help_$list" "$TEST_TMP/readme_$list"
done

# The checks can fail: a key missing from a copy of the man page is found.
sed '/^\.B x$/{N;d}' flametop.1 >"$TEST_TMP/short.1"
check "a man page without x's entry is told apart" \
	bash -c "! diff -q '$TEST_TMP/help_keys' <(. tests/help_lists.sh; man_keys '$TEST_TMP/short.1') >/dev/null"
