# shellcheck shell=bash
# help_lists.sh: the lists of flags and keys as flametop --help gives them
# (made from the tables in options.c and tui/actions.c), and the copies of
# them the README holds between "<!-- flametop --help: NAME -->" and the end
# of the fenced block after it. tests/integration/docs.sh compares them with
# the man page and the README; make docs writes the README's copies. Source
# after tests/lib.sh.

# help_section NAME: --help's section NAME ("Options", "Keys"): the lines
# after its title ("Options:", "Keys on the screen ...:") up to a blank one.
help_section() {
	$FLAMETOP --help | awk -v name="$1" 'index($0, name) == 1 && /:$/ { on = 1; next }
		on && /^$/ { exit } on'
}

# readme_block NAME [FILE]: the lines of the fenced block after FILE's
# (README.md's) "<!-- flametop --help: NAME -->".
readme_block() {
	awk -v mark="<!-- flametop --help: $1 -->" '$0 == mark { on = 1; next }
		on && /^```/ { if (inside) exit; inside = 1; next } on && inside' "${2:-README.md}"
}

# flags_of: the flags of a text of options ("-F", "--frequency", ...), one a line, sorted.
flags_of() {
	grep -oE -- '(^|[ ,[])--?[A-Za-z][A-Za-z-]*' | sed -E 's/^[ ,[]//' | sort -u
}

# help_flags: the flags --help lists.
help_flags() { help_section Options | grep -E '^  +-' | sed -E 's/^ +//; s/  .*//' | flags_of; }

# help_keys: the keys --help lists, a line a binding as the help labels it ("? h F1").
help_keys() { help_section Keys | cut -c3-10 | sed -E 's/ +$//' | sort; }

# man_section NAME [FILE]: the roff source of FILE's (flametop.1's) section NAME.
man_section() {
	awk -v name="$1" '/^\.SH / { on = ($2 == name); next } on' "${2:-flametop.1}"
}

# man_keys [FILE]: the tags of the man page's KEYS section (".TP" then ".B label"),
# roff's escapes undone.
man_keys() {
	man_section KEYS "${1:-flametop.1}" | awk 'prev == ".TP" && /^\.B / { sub(/^\.B /, ""); print } { prev = $0 }' |
		sed -e 's/\\-/-/g' -e 's/\\e/\\/g' | sort
}

# man_flags: the flags of the man page's OPTIONS section, as rendered.
man_flags() {
	groff -man -Tascii -P-cbou -rLL=200n "${1:-flametop.1}" 2>/dev/null |
		awk '/^OPTIONS/ { on = 1; next } /^[A-Z]/ { on = 0 } on && /^       -/' | flags_of
}
