#!/usr/bin/env bash
# The screen's costs: a refresh (rebuild the view, draw 200x50) for 1k, 10k
# and 100k unique stacks (build/bench/tui), and loading a 1,000,000-line
# folded file with -i: wall time and peak memory (VmHWM). Measured only.
. "$(dirname "$0")/../bench_lib.sh"

LINES_IN=1000000

# peak_run CMD...: runs CMD, prints "seconds peak_kib" (VmHWM, polled until it exits).
peak_run() {
	local start end pid hwm=0 v
	start=$(date +%s.%N)
	"$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		v=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null)
		[ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
		sleep 0.01
	done
	wait "$pid"
	end=$(date +%s.%N)
	echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') $hwm"
}

echo "## The screen"
echo
echo "A refresh rebuilds the view trie, the flat list and the tree's rows from the"
echo "profile, then draws a 200x50 screen (tree above icicle) into the in-memory"
echo "screen; copying it to the terminal is left to ncurses. Synthetic profiles:"
echo "20 processes, 5 to 24 frames of framework, a 6-level tree branching 8 ways,"
echo "kernel frames on a third of the stacks. Medians of 7 runs."
echo
build/bench/tui
echo
# One stack per line, 1,000,000 distinct ones, shaped like the profiles above,
# in the order flametop and stackcollapse write them: neighbours share prefixes.
awk -v n="$LINES_IN" 'BEGIN {
	per = n / 20
	for (i = 0; i < n; i++) {
		p = int(i / per); line = "proc" p
		for (k = 0; k < 5 + p; k++) line = line ";framework_" p "_layer_" k
		v = i % per
		for (k = 6; k >= 0; k--) line = line ";fn_level" k "_" int(v / 8 ^ k) % 8
		if (i % 3 == 0) line = line ";do_syscall_64_[k];vfs_read_[k]"
		print line " " 1 + i % 97
	}
}' >"$BENCH_TMP/big.folded"
size=$(du -m "$BENCH_TMP/big.folded" | cut -f1)
view_t=() view_m=() fold_t=() fold_m=()
for _ in $(seq "$BENCH_RUNS"); do
	read -r t m < <(build/bench/tui --load "$BENCH_TMP/big.folded")
	view_t+=("$t")
	view_m+=("$m")
	read -r t m < <(peak_run "$FLAMETOP" -i "$BENCH_TMP/big.folded" --folded -o /dev/null)
	fold_t+=("$t")
	fold_m+=("$((m / 1024))")
done
echo "Loading a folded file of $LINES_IN distinct stacks ($size MB), $BENCH_RUNS runs:"
echo "the viewer's start (read into a profile, build the view, draw the first"
echo "screen: \`build/bench/tui --load\`), and \`flametop -i FILE --folded -o"
echo "/dev/null\` (read, build the view trie, write every stack out again)."
echo
echo "| what | wall time (s) | peak memory (MiB) | target |"
echo "|---|---:|---:|---:|"
echo "| viewer start | $(median_minmax "${view_t[@]}") | $(median_minmax "${view_m[@]}") | 2 s, 300 MiB |"
echo "| \`-i FILE --folded\` | $(median_minmax "${fold_t[@]}") | $(median_minmax "${fold_m[@]}") | |"
