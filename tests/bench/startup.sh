#!/usr/bin/env bash
# Startup (figure e), while cpu_split runs:
#  1. exec to the first complete screen: `flametop -d 1` on a 200x50
#     pseudo-terminal (build/bench/first_screen), its output read as it is
#     written, from just before the fork until it holds the tree's header
#     ("Total%") and then its root row ("[-] all"); the time the header alone
#     appeared is kept too. No terminal emulator and no polling stand
#     between flametop's write and the clock.
#  2. exec to the first byte of `flametop --folded --duration 1` on a pipe
#     (build/bench/first_line), minus the 1 s of the duration.
# Runs alternate; medians of BENCH_RUNS runs. Measured, never asserted.
. "$(dirname "$0")/../bench_lib.sh"

# built: the path of the bench helper NAME, built here when missing or stale.
built() {
	local bin=build/bench/$1
	if [ ! -x "$bin" ] || [ "$bin" -ot "tests/bench/$1.c" ]; then
		bin=$BENCH_TMP/$1
		${CC:-gcc} -O2 -o "$bin" "tests/bench/$1.c" || return 1
	fi
	echo "$bin"
}
FIRST_LINE=$(built first_line) || exit 1
FIRST_SCREEN=$(built first_screen) || exit 1

# first_screen: "header_ms complete_ms" of flametop -d 1 (since just before
# its fork), or "fail REASON".
first_screen() {
	local out h c status
	out=$(TERM=xterm-256color "$FIRST_SCREEN" 200 50 'Total%' '[-] all' \
		"$FLAMETOP" -d 1 2>"$BENCH_TMP/ft.err")
	h=$(sed -n 's/^text1_ms=//p' <<<"$out")
	c=$(sed -n 's/^text2_ms=//p' <<<"$out")
	status=$(sed -n 's/^status=//p' <<<"$out")
	if [ "$c" = none ] || [ -z "$c" ]; then
		echo "fail no complete screen (status $status): $(grep . "$BENCH_TMP/ft.err" | tail -n 1 | tr -d '|')"
		return
	fi
	echo "$h $c"
}

# first_folded: "first_ms exit_ms" of flametop --folded --duration 1, both
# minus the duration, or "fail REASON".
first_folded() {
	local out first end status
	out=$("$FIRST_LINE" "$FLAMETOP" --folded --duration 1 2>"$BENCH_TMP/folded.err")
	first=$(sed -n 's/^first_byte_ms=//p' <<<"$out")
	end=$(sed -n 's/^exit_ms=//p' <<<"$out")
	status=$(sed -n 's/^status=//p' <<<"$out")
	if [ "$status" != 0 ] || [ "$first" = none ]; then
		echo "fail status $status: $(grep . "$BENCH_TMP/folded.err" | tail -n 1 | tr -d '|')"
		return
	fi
	awk -v f="$first" -v e="$end" 'BEGIN { printf "%.1f %.1f\n", f - 1000, e - 1000 }'
}

"$WORKLOADS/cpu_split" 600 >/dev/null &
on_exit "stop_pid $!"

header=() complete=() folded=() folded_exit=() fails=()
for _ in $(seq "$BENCH_RUNS"); do
	read -r h c <<<"$(first_screen)"
	if [ "$h" = fail ]; then
		fails+=("screen: $c")
	else
		header+=("$h") complete+=("$c")
	fi
	read -r f e <<<"$(first_folded)"
	if [ "$f" = fail ]; then
		fails+=("folded: $e")
	else
		folded+=("$f") folded_exit+=("$e")
	fi
done

echo "## Startup"
echo
echo "While cpu_split runs. Median of $BENCH_RUNS runs (min-max), alternating, in ms."
echo
echo "- **First screen**: \`flametop -d 1\` started on a 200x50 pseudo-terminal"
echo "  (TERM=xterm-256color), its output read as it is written, from just before the"
echo "  fork until it holds the tree's header (\`Total%\`) and then its root row (\`[-]"
echo "  all\`): no terminal emulator and no polling between the write and the clock."
echo "- **First folded line**: exec to the first byte of \`flametop --folded --duration"
echo "  1\` read from a pipe, minus the 1000 ms of the duration (and to its exit)."
echo
echo "| measure | ms | target |"
echo "|---|---:|---:|"
if [ ${#complete[@]} -gt 0 ]; then
	echo "| exec to the first complete screen (header and tree) | $(median_minmax "${complete[@]}") | <= 200 |"
	echo "| ... to the first screen with the header | $(median_minmax "${header[@]}") | |"
else
	echo "| exec to the first complete screen | not measured | <= 200 |"
fi
if [ ${#folded[@]} -gt 0 ]; then
	echo "| exec to the first folded line, minus 1000 | $(median_minmax "${folded[@]}") | <= 200 |"
	echo "| ... to the exit, minus 1000 | $(median_minmax "${folded_exit[@]}") | |"
else
	echo "| exec to the first folded line | not measured | <= 200 |"
fi
if [ ${#fails[@]} -gt 0 ]; then
	echo
	echo "Runs left out: $(printf '%s; ' "${fails[@]}" | sed 's/; $//')."
fi
