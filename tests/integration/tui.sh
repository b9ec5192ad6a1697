#!/usr/bin/env bash
# The screen, in a real terminal: flametop runs in tmux, gets keys with
# send-keys, and is read back with capture-pane. The file viewer on a
# fixture first (no privileges needed), then live sampling of a known
# workload, read mode, resizes and every way out.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tmux.sh"
trap 'screen_stop; cleanup_test' EXIT

FIXTURE=tests/fixtures/viewer.folded

if ! command -v tmux >/dev/null; then
	skip "terminal tests" "tmux is not installed (make deps installs it)"
	exit 0
fi

# Colour codes in capture-pane -e output: SGR 30-38, 40-48, 90-97, 100-107.
has_colours() {
	grep -qE $'\e\\[([0-9;]*;)?(3[0-8]|4[0-8]|9[0-7]|10[0-7])(;[0-9;]*)?m'
}

# wait_ended PID: waits up to 5 s for PID to end (the checks after it say whether it did).
wait_ended() {
	for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
}

# 1. Without a terminal: one clear line, exit 2.
$FLAMETOP -i "$FIXTURE" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
check "-i without a terminal on stdout: exit 2 and one line ($(cat "$TEST_TMP/err"))" \
	bash -c "[ $rc = 2 ] && [ \$(wc -l <'$TEST_TMP/err') = 1 ] && grep -q 'needs a terminal' '$TEST_TMP/err'"
$FLAMETOP -d 1 >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
check "live without a terminal on stdout: exit 2 and one line" \
	bash -c "[ $rc = 2 ] && [ \$(wc -l <'$TEST_TMP/err') = 1 ] && grep -q 'needs a terminal' '$TEST_TMP/err'"

# 2. -i FILE --folded re-emits, with -K, -U, -p and -c applied; malformed lines are reported.
$FLAMETOP -i "$FIXTURE" --folded -K >"$TEST_TMP/k.folded" 2>"$TEST_TMP/err"
check "-i --folded -K keeps the kernel frames (and the processes)" diff -u - "$TEST_TMP/k.folded" <<'EOT'
cpu_split 420
bash;read_[k];vfs_read_[k] 50
swapper/0;do_idle_[k];default_idle_[k] 30
EOT
check "-i --folded reports 2 malformed lines, the first on line 5" \
	grep -q '2 malformed lines skipped (first: line 5' "$TEST_TMP/err"
$FLAMETOP -i "$FIXTURE" --folded -U -c bash >"$TEST_TMP/u.folded" 2>/dev/null
check "-i --folded -U -c bash: bash's user frames only" diff -u - "$TEST_TMP/u.folded" <<'EOT'
bash;main;readline 50
EOT
$FLAMETOP -i tests/fixtures/perf_pids.folded --folded -p 4343,99 >"$TEST_TMP/p.folded" 2>/dev/null
check "-i --folded -p: the pids of perf's comm-PID names, the stacks by command" diff -u - "$TEST_TMP/p.folded" <<'EOT'
perl;main;walk 5
bash;main 1
EOT
$FLAMETOP -i tests/fixtures/perf_pids.folded --folded --group pid >"$TEST_TMP/p.folded" 2>/dev/null
check "-i --folded --group pid: perf's comm-PID names by process" diff -u - "$TEST_TMP/p.folded" <<'EOT'
perl [4242];main;run 10
perl [4343];main;walk 5
bash [99];main 1
EOT

$FLAMETOP -i /etc/passwd --folded >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
check "-i of a file with no folded line (/etc/passwd) --folded: exit 2, one line, no output" \
	bash -c "[ $rc = 2 ] && [ \$(wc -l <'$TEST_TMP/err') = 1 ] && [ ! -s '$TEST_TMP/out' ] && grep -q 'not one line is a folded stack' '$TEST_TMP/err'"

# 3. The file viewer, in each terminal type flametop must be right in.
for term in xterm-256color screen tmux-256color linux; do
	screen_start 120 30 "TERM=$term $FLAMETOP -i $FIXTURE"
	check_screen "viewer, TERM=$term: the header names the file and the malformed lines" \
		"^file: $FIXTURE \| 5 stacks, 2 malformed lines skipped \(first: line 5"
	check_screen "viewer, TERM=$term: the hottest path is open down to leaf_a" \
		'60\.0%  60\.0%  +300  \|   \| \|---- leaf_a'
	check_screen "viewer, TERM=$term: the icicle draws kernel frames in braces" '\{vfs_read +\}'
	screen_keys q
	screen_check_exit "viewer, TERM=$term, q" 0
done

# 4. Keys in the viewer: collapse, expand all, K, U, search, zoom, flat view, help.
screen_start 100 30 "$FLAMETOP -i $FIXTURE"
screen_wait 'leaf_a'
screen_keys j -
check_no_screen "viewer: - collapses the selected row (cpu_split)" '---- leaf_a'
check_screen "viewer: the collapsed row is marked [+]" '\|-\[\+\] cpu_split'
screen_keys E
check_screen "viewer: E expands every row" '`---- vfs_read \[k\]'
screen_keys U
check_no_screen "viewer: U shows user frames only, as -U" 'vfs_read'
check_screen "viewer: the header says user frames only" '\| filters: none \| user frames only$'
screen_keys K
check_no_screen "viewer: K shows kernel frames only, as -K" 'leaf_a'
check_screen "viewer: with K, bash goes straight to its kernel frames" '`-\[-\] read \[k\]'
check_screen "viewer: the header says kernel frames only" '\| filters: none \| kernel frames only$'
screen_keys K
check_screen "viewer: K again shows every frame" '\| filters: none$'
screen_keys '\' l e a f _ b Enter
check_screen "viewer: \\ keeps the stacks through leaf_b, the shares of them, and says so" \
	'^window: cumulative, 100 of 500 samples \| filters: text "leaf_b" \| % of the filtered samples$'
check_no_screen "viewer: \\ leaves out the other stacks" 'bash'
check_screen "viewer: leaf_b is 100% of what the filter keeps" '^100\.0% 100\.0%  +100 .*---- leaf_b$'
screen_keys Escape
check_screen "viewer: Esc leaves the filter, and says what clears it" '^the filters stay: x clears them'
screen_keys x
check_screen "viewer: x clears the filter" 'filters: none$'
screen_keys / l e a f _ b Enter
check_screen "viewer: / leaves every stack and every share (leaf_b 20.0%)" '^ 20\.0%  20\.0%  +100 .*---- leaf_b$'
check_screen "viewer: ... and says what share the matches hold" \
	'^/leaf_b: 20\.0% of the samples \(100\) pass through 1 frame \| n N'
check_screen "viewer: ... the header says no filter" '\| filters: none$'
screen_keys Escape
check_no_screen "viewer: Esc ends the search" '^/leaf_b: '
screen_keys Tab
check_screen "viewer: Tab moves the focus to the icicle" '^Icicle'
screen_keys Home Down Down Down Enter
check_screen "viewer: Enter zooms the icicle on the selected frame" '^Icicle zoomed on work'
screen_keys Escape
check_screen "viewer: Esc zooms out" '^Icicle \(Enter: zoom in\)'
screen_keys Tab Tab Tab
check_screen "viewer: the flat view lists functions by self share" 'Self% Total%      Self  Shared Object +Function'
check_screen "viewer: leaf_a is the hottest function" '^ 60\.0%  60\.0%       300 +leaf_a'
check_screen "viewer: a kernel function's object is [kernel]" '^ 10\.0%  10\.0%        50  \[kernel\] +vfs_read \[k\]$'
screen_keys Home Enter
check_screen "viewer: Enter lists the callers of leaf_a, nearest first" '`-\[-\] work$'
screen_keys Escape '?'
check_screen "viewer: ? shows the help" 'Keys \(q or Esc closes this help'
check_no_screen "viewer: the help leaves out the live-only keys" 'mode: sample, read, offcpu'
screen_keys x

# 5. Resizing redraws at the new size; below 40x10 one line says so.
screen_resize 60 20
check_screen "resize to 60x20: the header is redrawn to fit" '^file: .*\.\. FILE$'
screen_text >"$TEST_TMP/60x20"
check "resize to 60x20: 20 lines, none wider than 60" \
	bash -c "[ \$(wc -l <'$TEST_TMP/60x20') = 20 ] && awk 'length > 60 { bad = 1 } END { exit bad }' '$TEST_TMP/60x20'"
screen_resize 30 8
check_screen "resize to 30x8: too small, and the size it needs, in 30 columns" '^too small: needs 40x10$'
check "resize to 30x8: the screen holds that one line only" \
	[ "$(screen_text | grep -c .)" = 1 ]
screen_resize 8 3
check_screen "resize to 8x3: the size it needs still shows" '^40x10$'
screen_resize 60 20
check_screen "resize to 60x20: the screen comes back" '^file:'
screen_keys '\' l e a f Enter
check_screen "at 60 columns the header keeps that shares are of the filtered samples" \
	'^cumulative, 400 of 500 \| text "leaf" \| % of the filtered( samples)?$'
screen_keys x
screen_resize 100 30
check_screen "resize back to 100x30: the screen comes back" '^file:'
screen_keys q
screen_check_exit "viewer, q" 0

# 6. --no-color and NO_COLOR: attributes only.
screen_start 100 30 "$FLAMETOP -i $FIXTURE"
screen_wait 'leaf_a'
if screen_attrs | has_colours; then ok "colours by default"; else not_ok "colours by default"; fi
screen_keys q
screen_exit_code >/dev/null
for how in "--no-color" "NO_COLOR=1"; do
	if [ "$how" = --no-color ]; then cmd="$FLAMETOP --no-color -i $FIXTURE"; else cmd="NO_COLOR=1 $FLAMETOP -i $FIXTURE"; fi
	screen_start 100 30 "$cmd"
	screen_wait 'leaf_a'
	if screen_attrs | has_colours; then not_ok "$how: no colour"; else ok "$how: no colour"; fi
	screen_keys E
	check_screen "$how: kernel frames still marked [k]" '---- vfs_read \[k\]$'
	screen_keys q
	screen_check_exit "$how, q" 0
done

# 7. -i - reads stdin and takes keys from the terminal.
screen_start 100 30 "cat $FIXTURE | $FLAMETOP -i -"
check_screen "-i -: the header names stdin" '^file: stdin \| 5 stacks'
screen_keys q
screen_check_exit "-i -, q" 0

# 7b. TERM=dumb and an unknown TERM: the same one-line refusal, exit 2.
for term in dumb nosuchterm; do
	screen_start 160 10 "TERM=$term $FLAMETOP -i $FIXTURE"
	check_screen "TERM=$term: one line saying the terminal can't be driven and what to do" \
		"^flametop: can't drive this terminal \\(TERM=$term\\): .*; set TERM to"
	check "TERM=$term: exit code 2" [ "$(screen_exit_code 5)" = 2 ]
done

# 7c. Keys as htop, less and vim users expect them, in the viewer.
screen_start 100 30 "$FLAMETOP -i tests/fixtures/perf_pids.folded"
screen_wait ' perl$'
screen_keys P
check_screen "viewer: P groups the tree by process" '^Total%  Self%     Count  Call tree, by process'
check_screen "viewer: a process reads 'perl [4242]'" '\|-\[-\] perl \[4242\]$'
screen_keys j p
check_screen "viewer: p opens on the selected row's process" 'Only pids \(comma-separated; empty: all\): 4242$'
screen_keys 9 9 Enter
check_screen "viewer: the first character typed replaces the pre-filled text (not 424299)" 'filters: pid 99 \|'
screen_keys p Left 1 Enter
check_screen "viewer: an arrow edits the pre-filled text instead" 'filters: pid 919 \|'
screen_keys x y
check_screen "viewer: a key bound to nothing says so" '^y: not a key here \(\? lists the keys\)'
screen_keys F5
check_screen "viewer: ... and names it (F5)" '^F5: not a key here'
screen_keys / R U N Enter
check_screen "viewer: / with a capital matches case (no RUN)" '^no frame shown contains "RUN"'
screen_keys / C-u r u
check_screen "viewer: ... while the prompt is still open" 'previous\): ru$'
check_screen "viewer: ... without a capital, any case: run is selected as it is typed" \
	'^ 62\.5%  62\.5%  +10 .*---- run$'
screen_keys Enter
check_screen "viewer: ... 10 of the 16 samples" '^/ru: 62\.5% of the samples \(10\) pass through 1 frame'
screen_keys / C-u z Escape
check_screen "viewer: Esc in the prompt goes back to the search before" '^/ru: 62\.5%'
screen_keys Tab Tab Tab Tab Home Enter
check_screen "viewer: Enter lists a function's callers" '^Total%            Count  Callers'
screen_keys q
check_screen "viewer: q leaves the callers first" 'Object +Function \(Enter: callers\)'
check "viewer: ... without quitting" [ "$(screen_exit_code 1)" = running ]
screen_keys q
screen_check_exit "viewer, q at the top" 0

screen_start 100 20 "$FLAMETOP -i $FIXTURE"
screen_wait 'leaf_a'
screen_keys p
check_screen "viewer: p on a file without pids says so" 'p: this file names no process ids'
screen_keys '?'
check_screen "viewer: the help starts with the first keys" '^ Up k +up; icicle: to the caller'
screen_keys End
check_screen "viewer: the help scrolls to its end" 'python3 \[1234\]: a process'
check_no_screen "viewer: ... its first keys scrolled away" '^ Up k '
screen_keys q
check_screen "viewer: q closes the help" '^Total%  Self%     Count  Call tree$'
screen_keys q
screen_check_exit "viewer after the help, q" 0

if [ "$(id -u)" != 0 ]; then
	skip "live screen tests" "not root: BPF programs can't be loaded"
	exit 0
fi

# 8. Live: a known workload, filters, toggles, pause, save, mode swap, quit.
mkdir -p "$TEST_TMP/cwd"
newest=$(newest_program_id)
start_bg "$WORKLOADS/cpu_split" 60
split_pid=$bg_pid
screen_start 100 30 "cd '$TEST_TMP/cwd' && $(realpath "$FLAMETOP") -d 0.5"
check_screen "live: the header names the mode, hook, rate and CPUs" \
	'^sample: perf_event (cpu-clock|cycles), 99 Hz, [0-9]+ CPUs \| [0-9-]+ samples/s, [0-9]+ lost +LIVE$'
check_screen "live: the header shows the window and no filter" '^window: recent \(last 0\.5 s\), [0-9]+ samples \| filters: none'
screen_keys p "$split_pid" Enter
check_screen "live: p sets a pid filter, shown in the header" "filters: pid $split_pid \\| % of the filtered samples\$"
screen_keys E
check_screen "live: leaf_a of the workload appears" '---- leaf_a$' 15
check_no_screen "live: the pid filter keeps other processes out" 'swapper' 5
screen_keys C
check_no_screen "live: C collapses every row" '---- leaf_a$'
check_screen "live: the process row is collapsed" '`-\[\+\] cpu_split'
screen_keys e
check_screen "live: e opens the hottest path again" '---- leaf_a$'
screen_keys K
check_no_screen "live: K shows kernel frames only" '---- leaf_a$'
screen_keys U
check_screen "live: U shows user frames only" '\| user frames only$'
check_screen "live: with U, leaf_a stays" '---- leaf_a$'
screen_keys U ' '
check_screen "live: Space pauses the display" 'PAUSED$'
screen_keys ' '
check_screen "live: Space resumes" 'LIVE$'
screen_keys s
check_screen "live: s asks for a file name, a new one after the clock" \
	'Save as \(\.folded, \.svg flame graph, \.pb\.gz or \.pprof\): flametop-[0-9]{8}-[0-9]{6}\.folded'
screen_keys Enter
check_screen "live: s says where it saved, how many samples and stacks" \
	'saved [0-9]+ samples \([0-9]+ stacks\) as folded to flametop-[0-9]{8}-[0-9]{6}\.folded'
saved=$(ls "$TEST_TMP/cwd"/flametop-*.folded 2>/dev/null | head -n 1)
said=$(screen_text | grep -oE 'saved [0-9]+ samples \([0-9]+ stacks' | grep -oE '[0-9]+' | tr '\n' ' ')
in_file="$(awk '{ s += $NF } END { print s + 0 }' "$saved") $(grep -c . "$saved")"
check "live: s's counts are the file's: its samples and its stacks (said $said, the file $in_file)" \
	[ "$said" = "$in_file " ]
check "live: the saved file is folded stacks of the workload ($saved)" \
	bash -c "[ -s '$saved' ] && ! grep -vqE '^[^;]+(;[^;]+)* [0-9]+$' '$saved' && grep -q '^cpu_split;.*;leaf_a [0-9]*$' '$saved'"
screen_keys s C-u view.svg Enter
check_screen "live: s with a .svg name saves a flame graph" 'saved [0-9]+ samples \([0-9]+ frames\) as SVG to view\.svg'
check "live: the SVG holds the workload's leaf_a, filtered by its pid" \
	bash -c "grep -q '<title>leaf_a' '$TEST_TMP/cwd/view.svg' && grep -q 'pid $split_pid' '$TEST_TMP/cwd/view.svg' &&
		! grep -q '<title>swapper' '$TEST_TMP/cwd/view.svg'"
screen_keys s C-u view.pb.gz Enter
check_screen "live: s with a .pb.gz name saves a pprof profile (its samples, and its stacks: one pprof sample each)" \
	'saved [0-9]+ samples \([0-9]+ stacks\) as pprof to view\.pb\.gz'
check "live: the pprof file reads back with the workload's stacks" \
	bash -c "$FLAMETOP -i '$TEST_TMP/cwd/view.pb.gz' --folded 2>/dev/null | grep -q '^cpu_split;.*;leaf_a [0-9]*$'"
screen_keys m
check_screen "live: m swaps to read mode, and the header says through which hook" \
	'^read: (fentry/vfs_read|kprobe/vfs_read|syscall-entry tracepoint), [0-9]+ CPUs'
if grep -q 'syscall-entry tracepoint' <(screen_text); then
	check_screen "live: read mode says why the better hooks failed" '^hook: syscall-entry tracepoint, as better ones failed: fentry/vfs_read'
	screen_keys '?' End
	check_screen "live: the help shows that line in full, past what the header cuts (kprobe/vfs_read: ...)" \
		'^ .*kprobe/vfs_read: [a-z]'
	screen_keys q
fi
screen_keys m
check_screen "live: m again: off-CPU mode" '^offcpu: sched_switch BTF tracepoint'
screen_keys m
check_screen "live: a third m is back in sample mode, its profile kept" '^sample: perf_event'
screen_keys Escape
check_screen "live: Esc leaves the pid filter" "filters: pid $split_pid "
screen_keys x
check_screen "live: x clears it" 'filters: none'
screen_keys q
screen_check_exit "live, q" 0
check "live: nothing stays attached after q" programs_gone_after "$newest"

# header_figures: "SPAN COUNT" of the header's recent window, e.g. "2.0 396"; "" before one closed.
header_figures() {
	screen_text | sed -nE 's/^window: recent \(last ([0-9.]+) s\), ([0-9]+) samples.*/\1 \2/p'
}

# within_rate "SPAN COUNT": the count is no more than 99 Hz x the span x the CPUs (the span
# printed to 0.1 s, so 0.05 s more), and the span at least MIN seconds.
within_rate() {
	awk -v f="$1" -v n="$NCPUS" -v min="${2:-0}" \
		'BEGIN { split(f, a, " "); exit !(a[1] >= min && a[2] <= 99 * (a[1] + 0.05) * n) }'
}
NCPUS=$(getconf _NPROCESSORS_ONLN)

# 8b. The first screen shows data (or says it is collecting) within its first refresh.
newest=$(newest_program_id)
for i in 1 2 3; do
	screen_start 100 30 "$FLAMETOP -d 2"
	if screen_wait '^window: recent \(last 0\.[0-9] s\), [1-9][0-9]* samples|collecting samples' 2; then
		ok "launch $i: the first screen shows data within its first refresh"
	else
		not_ok "launch $i: the first screen shows data within its first refresh"
		screen_text | diag
	fi
	screen_keys q
	screen_exit_code >/dev/null
done

# 8c. The header's window is the time it spans, and the rate is over that span.
start_bg "$WORKLOADS/cpu_split" 60
split_pid=$bg_pid
screen_start 110 30 "$FLAMETOP -d 1"
screen_wait '^window: recent \(last 1\.[0-9] s\)'
ft_pid=$(ps -o pid= --ppid "$(screen_var pane_pid)" | tr -d ' ')
figures=$(header_figures)
check "the recent window spans a refresh delay and holds no more than it ($figures)" \
	within_rate "$figures" 0.9
kill -STOP "$ft_pid"
sleep 3
kill -CONT "$ft_pid"
screen_wait '^window: recent \(last [3-9]\.[0-9] s\)' 3
figures=$(header_figures)
check "after 3 s stopped (Ctrl-Z), the header says the window spans them ($figures)" \
	within_rate "$figures" 2.9
screen_keys d 0 . 5 Enter
check_screen "d 0.5 sets half a second (the typed text replaced the 1)" 'refreshing every 0\.5 s'
check_screen "the next window spans the new delay" '^window: recent \(last 0\.[5-6] s\)'
screen_keys ' '
check_screen "Space pauses" 'PAUSED$'
sleep 2
screen_keys ' '
check_screen "Space resumes" 'LIVE$'
screen_wait '^window: recent \(last 0\.[5-6] s\)' 3
figures=$(header_figures)
check "after a 2 s pause, the window is the last interval's ($figures)" within_rate "$figures" 0.4

# 8d. A paused screen keeps its data whatever the keys do (cumulative window: it grows).
screen_keys z
check_screen "z: the cumulative window, with the time it holds" '^window: cumulative \([0-9.]+ s\)'
screen_keys ' '
screen_wait 'PAUSED$'
sleep 0.3
screen_text | sed '$d' >"$TEST_TMP/paused.before"
sleep 1.5
screen_keys K K c Escape '\' y Escape / Escape p Escape
sleep 0.5
screen_text | sed '$d' >"$TEST_TMP/paused.after"
if diff -u "$TEST_TMP/paused.before" "$TEST_TMP/paused.after" >"$TEST_TMP/paused.diff"; then
	ok "paused: K K, c, \\, / and p rebuild from the data it had when paused"
else
	not_ok "paused: K K, c, \\, / and p rebuild from the data it had when paused"
	diag <"$TEST_TMP/paused.diff"
fi
screen_keys r
check_screen "paused: r waits until it resumes" 'Space resumes it first'
screen_keys ' '
check_no_screen "resumed: new samples show" "$(sed -n 2p "$TEST_TMP/paused.before" | sed 's/[][().|*]/./g')" 3

# 8e. r starts from zero: the first window after it holds no sample from before it.
screen_keys z d 2 Enter
sleep 2.5
screen_keys r
screen_wait '^window: recent \(last 0\.[0-9] s\)' 2
figures=$(header_figures)
check "r: the first window after it holds only its own samples ($figures)" within_rate "$figures"

# 8f. Grouping by process, and p's check that the pid exists.
screen_keys p "$split_pid" Enter P
check_screen "P: the tree by process reads 'cpu_split [PID]'" "-\\[[-+]\\] cpu_split \\[$split_pid\\]\$"
screen_keys p 1 0 7 3 7 4 1 0 0 0 Enter
check_screen "p refuses a pid that does not exist, as -p does" '^p 1073741000: no such process$'
check_screen "... and keeps the filter it had" "filters: pid $split_pid \\|"
screen_keys q
screen_check_exit "live, q" 0
check "live: nothing stays attached after q" programs_gone_after "$newest"

# 9. Ctrl-C, SIGTERM and SIGHUP end the screen cleanly too.
newest=$(newest_program_id)
screen_start 100 30 "$FLAMETOP -d 0.5"
screen_wait 'LIVE'
screen_keys C-c
screen_check_exit "live, Ctrl-C" 0
screen_start 100 30 "$FLAMETOP -d 0.5"
screen_wait 'LIVE'
kill -TERM "$(ps -o pid= --ppid "$(screen_var pane_pid)")"
screen_check_exit "live, SIGTERM" 0
screen_start 100 30 "exec $FLAMETOP -d 0.5"
screen_wait 'LIVE'
ft_pid=$(screen_var pane_pid)
tmux_ kill-pane -t ft
wait_ended "$ft_pid"
check "live, SIGHUP (the terminal went away): flametop ends" bash -c "! kill -0 $ft_pid 2>/dev/null"
check "live: nothing stays attached after SIGHUP" programs_gone_after "$newest"

# 10. Ctrl-Z stops flametop and gives the shell its terminal back; fg brings
# the screen back, drawn whole, and it still answers keys.
screen_start 100 30 "PS1='prompt> ' bash --norc -i"
screen_wait 'prompt> '
screen_keys "$FLAMETOP -d 0.5" Enter
screen_wait 'LIVE'
ft_pid=$(pgrep -n -P "$(pgrep -n -P "$(screen_var pane_pid)" bash)" flametop)
screen_keys C-z
check "Ctrl-Z: the shell has its terminal back (job stopped)" screen_wait 'Stopped'
check "Ctrl-Z: flametop is stopped" [ "$(ps -o stat= -p "$ft_pid" | cut -c1)" = T ]
check "Ctrl-Z: the screen's alternate buffer is left" [ "$(screen_var alternate_on)" = 0 ]
screen_keys "fg" Enter
check "fg: the screen is drawn again" screen_wait '^sample: .*LIVE'
check "fg: flametop runs again" [ "$(ps -o stat= -p "$ft_pid" | cut -c1)" != T ]
screen_keys q
wait_ended "$ft_pid"
check "fg, then q: flametop ends" bash -c "! kill -0 $ft_pid 2>/dev/null"
check "fg, then q: no alternate screen, cursor shown" \
	[ "$(screen_var alternate_on)$(screen_var cursor_flag)" = 01 ]
screen_stop
