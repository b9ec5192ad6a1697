#!/usr/bin/env bash
# The screen under AddressSanitizer and UndefinedBehaviorSanitizer: flametop
# built with them (build/asan/flametop) runs the file viewer, then the live
# screen, in tmux, and gets every key of the help, prompts answered; it must
# not stop, report nothing, and quit with 0.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tmux.sh"
trap 'screen_stop; cleanup_test' EXIT

SANITIZED=build/asan/flametop
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

if ! command -v tmux >/dev/null; then
	skip "sanitized terminal tests" "tmux is not installed (make deps installs it)"
	exit 0
fi

# press KEY...: sends the keys one by one, a moment apart, as a person types.
press() {
	for k in "$@"; do
		screen_keys "$k"
		sleep 0.05
	done
}

# every_key LIVE: every key the help lists, in its order; prompts get an answer.
every_key() {
	press Up k Down j Left Right PPage NPage Home g End G Enter Escape
	press Tab Enter Escape Tab Tab Enter Escape Tab BTab BTab BTab Home
	press + - e E C K K U U
	press p 1 Enter Escape x            # a pid filter (Esc leaves it), then none
	press c b a s h Enter x             # a command filter, then none
	press '\' m a i n Enter x           # a text filter, then none
	press / m a i n Enter n N Escape    # a search, its matches, then none
	press F3 r e a d Escape F4 Escape   # the same through htop's keys, cancelled
	press P P P o o z z
	screen_keys s
	screen_keys -l "$TEST_TMP/saved.folded"
	press Enter
	press Space Space r d 1 Enter
	press '?' Down Up q h Escape F1 q
	# The annotate view of a function (live: made in its thread; the viewer: no addresses).
	press Home j j j a
	sleep 1
	press n N i Down Up NPage PPage End Home Tab BTab i Escape
	if [ "$1" = live ]; then
		# m in the flat layout: the other mode's profile is empty (no frame yet).
		for _ in 1 2 3 4 5 6; do
			screen_text | grep -q 'Self% Total%' && break
			press Tab
		done
		press m
		sleep 2 # read mode attaches
		press m
		sleep 2 # off-CPU mode attaches
		press m
		sleep 2
	fi
}

# check_no_report "what": the sanitizers said nothing on stderr.
check_no_report() {
	if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer' "$TEST_TMP/san.err"; then
		not_ok "$1: no sanitizer report"
		head -n 30 "$TEST_TMP/san.err" | diag
	else
		ok "$1: no sanitizer report"
	fi
}

# check_sanitized "what" LIVE: drives the running screen, then quits it with F10.
check_sanitized() {
	local what=$1 code
	every_key "$2"
	check "$what: still running after every key" test ! -s "$SCREEN_EXIT"
	check "$what: the screen draws after every key (its header)" \
		screen_wait '^(file|sample|read|offcpu): ' 5
	# F10 goes back (out of a zoom, a filter) before it quits.
	for _ in 1 2 3 4 5; do
		press F10
		code=$(screen_exit_code 2)
		[ "$code" = running ] || break
	done
	check "$what: F10 quits, exit code 0 (got $code)" [ "$code" = 0 ]
	check_no_report "$what"
	check "$what: s saved the view" test -s "$TEST_TMP/saved.folded"
	rm -f "$TEST_TMP/saved.folded"
}

# 1. The file viewer.
screen_start 100 30 "$SANITIZED -i tests/fixtures/viewer.folded 2>$TEST_TMP/san.err"
if screen_wait 'leaf_a' 20; then ok "sanitized viewer starts"; else
	not_ok "sanitized viewer starts"
	screen_text | diag
fi
check_sanitized "sanitized viewer" file

# 2. -i of a directory, on a terminal: one line, exit 2.
screen_start 100 30 "$SANITIZED -i /etc 2>$TEST_TMP/dir.err"
code=$(screen_exit_code 20)
check "sanitized -i /etc: exit 2, one line 'is a directory' ($(cat "$TEST_TMP/dir.err"))" \
	test "$code" = 2 -a "$(cat "$TEST_TMP/dir.err")" = "flametop: -i /etc: is a directory"

# 3. The live screen of a process that never runs: its profile stays empty
# (no frame at all), in every layout.
need_root "sanitized live screen" || exit 0
start_bg sleep 600
screen_start 100 30 "$SANITIZED -d 0.2 -p $bg_pid 2>$TEST_TMP/san.err"
if screen_wait 'samples/s' 30; then ok "sanitized live screen of an idle process starts"; else
	not_ok "sanitized live screen of an idle process starts"
	screen_text | diag
fi
press Tab Tab Tab Tab
sleep 0.5
check "sanitized live screen, empty profile: still running in every layout" \
	test ! -s "$SCREEN_EXIT"
press q
code=$(screen_exit_code 20)
check "sanitized live screen, empty profile: q quits, exit code 0 (got $code)" [ "$code" = 0 ]
check_no_report "sanitized live screen, empty profile"

# 4. The live screen of the whole machine, every key.
screen_start 100 30 "$SANITIZED -d 0.3 2>$TEST_TMP/san.err"
if screen_wait 'samples/s' 30; then ok "sanitized live screen starts"; else
	not_ok "sanitized live screen starts"
	screen_text | diag
	cat "$TEST_TMP/san.err" | head -n 30 | diag
fi
check_sanitized "sanitized live screen" live
