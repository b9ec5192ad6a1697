#!/usr/bin/env bash
# What the screen shows can be quoted, in a real terminal (tmux): rows in
# the order of their counts, header lines that all speak of the window
# shown, filters from the command line that stay, K and U as -K and -U, a
# terminal given back as it was even when flametop can't drive it, htop's
# function keys. The file viewer first (no privileges needed), then live.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tmux.sh"
. "$(dirname "$0")/../bpf_progs.sh"
trap 'screen_stop; cleanup_test' EXIT

FIXTURE=tests/fixtures/viewer.folded

if ! command -v tmux >/dev/null; then
	skip "terminal tests" "tmux is not installed (make deps installs it)"
	exit 0
fi

# 1. A terminal curses can't drive (TERM=dumb, an unknown TERM) is refused
# and left as it was: stty -a says the same before and after, in a real pty.
for term in dumb nosuchterm; do
	for how in file stdin; do
		if [ "$how" = file ]; then run="TERM=$term $FLAMETOP -i $FIXTURE"; else
			run="cat $FIXTURE | TERM=$term $FLAMETOP -i -"
		fi
		rm -f "$TEST_TMP/stty.before" "$TEST_TMP/stty.after"
		screen_start 200 20 "stty -a >'$TEST_TMP/stty.before'; $run 2>'$TEST_TMP/dumb.err'; \
echo \$? >'$TEST_TMP/dumb.rc'; stty -a >'$TEST_TMP/stty.after'"
		screen_exit_code 10 >/dev/null
		check "TERM=$term, -i from a $how: refused in one line, exit 2 ($(cat "$TEST_TMP/dumb.err"))" \
			bash -c "[ \"\$(cat '$TEST_TMP/dumb.rc')\" = 2 ] && [ \$(wc -l <'$TEST_TMP/dumb.err') = 1 ] && grep -q \"can't drive this terminal\" '$TEST_TMP/dumb.err'"
		if [ -s "$TEST_TMP/stty.before" ] && diff -u "$TEST_TMP/stty.before" "$TEST_TMP/stty.after" >"$TEST_TMP/stty.diff"; then
			ok "TERM=$term, -i from a $how: stty -a is as it was (icanon echo icrnl onlcr)"
		else
			not_ok "TERM=$term, -i from a $how: stty -a is as it was (icanon echo icrnl onlcr)"
			diag <"$TEST_TMP/stty.diff"
		fi
	done
done

# 2. htop's function keys: F1 the help, F3 a search, F4 a filter, F10 quit;
# any other key is named.
screen_start 100 30 "$FLAMETOP -i $FIXTURE"
screen_wait 'leaf_a'
screen_keys F1
check_screen "F1 shows the help" 'Keys \(q or Esc closes this help'
screen_keys q F3
check_screen "F3 opens the search" '^Search frames containing \(n N: next, previous\):'
screen_keys l e a f _ b Enter
check_screen "... which marks leaf_b: 20.0% of the samples" '^/leaf_b: 20\.0% of the samples \(100\) pass through 1 frame'
screen_keys F4
check_screen "F4 opens the filter" '^Only stacks with a frame containing \(empty: all\):'
screen_keys Escape F7
check_screen "F7, bound to nothing, is named" '^F7: not a key here'
screen_keys F10
screen_check_exit "F10 quits" 0

# 3. -K and -U mean what K and U mean: kernel frames only, user frames
# only; the same key again shows both; the header says which.
screen_start 100 30 "$FLAMETOP -i $FIXTURE -K"
check_screen "-K: kernel frames only, the header says" '\| filters: none \| kernel frames only$'
screen_keys E
check_screen "-K: bash goes straight to its kernel frames" '`-\[-\] read \[k\]$'
screen_keys K
check_screen "-K, then K: every frame" '\| filters: none$'
check_screen "-K, then K: leaf_a is back" '---- leaf_a$'
screen_keys U
check_screen "-K, K, then U: user frames only" '\| filters: none \| user frames only$'
screen_keys q
screen_exit_code >/dev/null
screen_start 100 30 "$FLAMETOP -i $FIXTURE -U"
check_screen "-U: user frames only, the header says" '\| filters: none \| user frames only$'
screen_keys U
check_screen "-U, then U: every frame" '\| filters: none$'
screen_keys q
screen_exit_code >/dev/null

if [ "$(id -u)" != 0 ]; then
	skip "live screen tests" "not root: BPF programs can't be loaded"
	exit 0
fi

# 4. Rows in the order of their counts (read mode counts every call: the
# numbers are known). read_steps reads from read_a and read_b as told; the
# cumulative window keeps them. A row never shows above a sibling counted
# two or more higher; a sample's jitter holds the last order.
mkfifo "$TEST_TMP/steps"
exec {STEPS}<>"$TEST_TMP/steps" # open both ways: neither end waits for the other
"$WORKLOADS/read_steps" <"$TEST_TMP/steps" >"$TEST_TMP/steps.out" & # start_bg's would be /dev/null
steps_pid=$!
bg_pids+=("$steps_pid")
tables_settle
screen_start 100 40 "$FLAMETOP --mode read -p $steps_pid -d 0.2"
screen_wait '[0-9]+ reads/s' 10
screen_keys z E

# step "a N": read_steps makes N reads from read_a (or b); waits until done.
step() {
	local before
	before=$(grep -c done "$TEST_TMP/steps.out")
	echo "$1" >&"$STEPS"
	for _ in $(seq 100); do
		[ "$(grep -c done "$TEST_TMP/steps.out")" -gt "$before" ] && return 0
		sleep 0.05
	done
}

# rows A B: waits until the screen shows read_a counted A and read_b B, then
# says which comes first ("a" or "b"), or "none".
rows() {
	local got
	for _ in $(seq 100); do
		got=$(screen_text | awk -v a="$1" -v b="$2" '
			$NF == "read_a" && $3 == a { la = NR } $NF == "read_b" && $3 == b { lb = NR }
			END { if (la && lb) print (la < lb ? "a" : "b") }')
		[ -n "$got" ] && { echo "$got"; return; }
		sleep 0.1
	done
	echo none
}

step "a 100"
step "b 90"
check "order: read_a 100 shows above read_b 90" [ "$(rows 100 90)" = a ]
step "b 15"
check "order: read_b 105 shows above read_a 100 (5 apart: the square root of 105 held them before)" \
	[ "$(rows 100 105)" = b ]
step "a 6"
check "order: read_a 106 stays below read_b 105 (a sample apart: the screen holds still)" \
	[ "$(rows 106 105)" = b ]
step "a 1"
check "order: read_a 107 goes above read_b 105 (two apart)" [ "$(rows 107 105)" = a ]
exec {STEPS}>&- # read_steps ends
screen_keys q
screen_exit_code >/dev/null

# 5. One window per screen: in off-CPU mode the states line and the walks
# line follow z; a window without a user stack says so.
start_bg "$WORKLOADS/offcpu_work" sleep 60
sleeper=$bg_pid
screen_start 120 30 "$FLAMETOP --mode offcpu -p $sleeper -d 0.5"
screen_wait '^window: recent \(last 0\.[0-9] s\)' 10
sleep 3
check_screen "recent window: the off-CPU line is the last interval's (under 1 s)" '^off-CPU 0\.[0-9]+ s: '
screen_keys z
check_screen "z, cumulative window: the off-CPU line is the whole window's (2 s or more)" \
	'^off-CPU ([2-9]|[1-9][0-9]+)\.[0-9]+ s: '
check_screen "cumulative window: the walks line counts walks, no share of the interval's" \
	'^user stacks by unwind tables: [0-9.]+% whole'
screen_keys q
screen_exit_code >/dev/null
start_bg sleep 60
idle=$bg_pid
screen_start 120 30 "$FLAMETOP -p $idle -d 0.3"
check_screen "a window without a user stack (a sleeping process sampled) says so" \
	'^user stacks by unwind tables: none walked$'
screen_keys q
screen_exit_code >/dev/null

# 6. Filters from the command line stay: Esc backs out of what is open, never
# out of -p; x clears it, and the help says so. The header says when the
# process has exited.
start_bg "$WORKLOADS/cpu_split" 4
short=$bg_pid
screen_start 100 30 "$FLAMETOP -p $short -d 0.5"
check_screen "-p: the header names the pid filter" "filters: pid $short \\| % of the filtered samples\$"
screen_keys Escape Escape Tab Escape Escape
check_screen "Esc, Tab, Esc: the -p filter stays" "filters: pid $short \\|"
check_screen "... and the status line says what clears it" '^the filters stay: x clears them'
screen_keys '?'
check_screen "the help says x clears the filters" ' x +clear the filters: p, c, \\'
screen_keys q
check_screen "once the process has exited, the header says so" "pid $short \\| pid $short exited \\|" 10
screen_keys x
check_screen "x clears the filter of the command line" 'filters: none$'
screen_keys q
screen_exit_code >/dev/null

# 7. A batch run of -p ends when its processes have, as perf record -p's does.
start_bg "$WORKLOADS/cpu_split" 2
short=$bg_pid
SECONDS=0
$FLAMETOP --folded -p "$short" --duration 30 >"$TEST_TMP/short.folded" 2>"$TEST_TMP/short.err"
took=$SECONDS
check "--folded -p: the run ends once the process has exited (in ${took}s of --duration 30)" \
	[ "$took" -lt 15 ]
check "... saying so" grep -q '^flametop: every process of -p has exited: the run ends$' "$TEST_TMP/short.err"
check "... with its stacks written" grep -q '^cpu_split;.*leaf_a [0-9]*$' "$TEST_TMP/short.folded"

# 8. At 60 columns the header keeps the lost count.
screen_start 60 20 "$FLAMETOP -d 0.5"
check_screen "60 columns: the first line keeps the lost count" '[0-9-]+ samples/s, [0-9]+ lost +LIVE$'
screen_keys q
screen_check_exit "60 columns, q" 0
