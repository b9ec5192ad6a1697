#!/usr/bin/env bash
# make docs: writes --help's lists of flags and keys into the README, each
# in the fenced block after its "<!-- flametop --help: NAME -->" line
# (tests/integration/docs.sh checks them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/help_lists.sh"

for list in Options Keys; do
	help_section "$list" >"$TEST_TMP/$list"
	grep -qx "<!-- flametop --help: $list -->" README.md || {
		echo "docs: README.md has no \"<!-- flametop --help: $list -->\" line" >&2
		exit 1
	}
	awk -v mark="<!-- flametop --help: $list -->" -v list="$TEST_TMP/$list" '
		$0 == mark { print; on = 1; next }
		on && /^```/ && !inside { print; inside = 1
			while ((getline line < list) > 0) print line
			next }
		on && inside && /^```/ { on = 0; inside = 0 }
		on && inside { next }
		{ print }' README.md >"$TEST_TMP/README.md"
	cp "$TEST_TMP/README.md" README.md
done
echo "wrote the lists of flags and keys into README.md"
