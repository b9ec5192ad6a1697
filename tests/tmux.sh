# shellcheck shell=bash
# tmux.sh: runs flametop's screen in a private tmux server and reads it back,
# for the terminal test and the screenshots. Source after tests/lib.sh.

SCREEN_EXIT="$TEST_TMP/screen.exit"
screen_n=0 # each terminal gets a tmux server of its own: no server is ever reused

tmux_() { tmux -L "flametop-test-$$-$screen_n" -f /dev/null "$@"; }

# screen_start W H COMMAND...: runs COMMAND (one shell line) in a new W x H
# terminal; its exit status goes to $SCREEN_EXIT when it ends.
screen_start() {
	local w=$1 h=$2
	shift 2
	rm -f "$SCREEN_EXIT"
	screen_stop
	screen_n=$((screen_n + 1))
	tmux_ new-session -d -s ft -x "$w" -y "$h" \
		"cd '$PWD' && $*; echo \$? >'$SCREEN_EXIT'; exec sleep 600"
}

# screen_stop: ends the current terminal's tmux server and removes its socket.
screen_stop() {
	tmux_ kill-server 2>/dev/null
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/flametop-test-$$-$screen_n"
}
screen_text() { tmux_ capture-pane -p -t ft; }
screen_attrs() { tmux_ capture-pane -p -e -t ft; }
screen_keys() { tmux_ send-keys -t ft "$@"; }
screen_resize() { tmux_ resize-window -t ft -x "$1" -y "$2"; }
screen_var() { tmux_ display-message -p -t ft "#{$1}"; }

# screen_wait REGEX [SECONDS]: true as soon as the screen matches REGEX.
screen_wait() {
	local re=$1 deadline=$((SECONDS + ${2:-10}))
	while [ "$SECONDS" -lt "$deadline" ]; do
		screen_text | grep -qE -e "$re" && return 0
		sleep 0.1
	done
	return 1
}

# screen_gone REGEX [SECONDS]: true as soon as the screen no longer matches REGEX.
screen_gone() {
	local re=$1 deadline=$((SECONDS + ${2:-10}))
	while [ "$SECONDS" -lt "$deadline" ]; do
		screen_text | grep -qE -e "$re" || return 0
		sleep 0.1
	done
	return 1
}

# check_screen "what" REGEX [SECONDS]: a test, ok when the screen matches REGEX
# within SECONDS (10); else the screen goes to the log.
check_screen() {
	if screen_wait "$2" "${3:-10}"; then ok "$1"; else
		not_ok "$1"
		screen_text | diag
	fi
}

# screen_selected: the text of the row the selection is on, among rows with shares
# (flametop --no-color: the selection is reverse video).
screen_selected() {
	screen_attrs | grep -E $'^\e\\[(0;)?7m' | sed 's/\x1b\[[0-9;]*m//g' | grep -m1 '^ *[0-9.]*%'
}

# check_selected "what" REGEX: a test, ok when the selected row matches REGEX within a
# few seconds.
check_selected() {
	for _ in $(seq 30); do
		screen_selected | grep -qE -e "$2" && { ok "$1"; return; }
		sleep 0.1
	done
	not_ok "$1 (the selection is on: $(screen_selected))"
}

# check_no_screen "what" REGEX [SECONDS]: a test, ok when the screen stops
# matching REGEX within SECONDS (10).
check_no_screen() {
	if screen_gone "$2" "${3:-10}"; then ok "$1"; else
		not_ok "$1"
		screen_text | diag
	fi
}

# screen_check_exit "what" CODE [FILE]: the command ended with CODE (as
# screen_exit_code reads it, from FILE when given) and gave the terminal back
# as it found it: no alternate screen, the cursor shown.
screen_check_exit() {
	local code
	code=$(screen_exit_code 10 "${3:-}")
	check "$1: exit status $2 (got $code)" [ "$code" = "$2" ]
	check "$1: no alternate screen, cursor shown" \
		[ "$(screen_var alternate_on)$(screen_var cursor_flag)" = 01 ]
}

# screen_exit_code [SECONDS [FILE]]: the command's exit status once it ended,
# or "running"; from FILE where the command writes it there itself.
screen_exit_code() {
	local deadline=$((SECONDS + ${1:-10})) file=${2:-$SCREEN_EXIT}
	while [ "$SECONDS" -lt "$deadline" ]; do
		[ -s "$file" ] && { cat "$file"; return 0; }
		sleep 0.1
	done
	echo running
}
