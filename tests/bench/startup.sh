#!/usr/bin/env bash
# Startup (figure e), while cpu_split runs:
#  1. exec to the first complete screen: `flametop -d 1` in a 200x50 terminal
#     of a private tmux server, polled with `tmux capture-pane` every
#     POLL_MS ms (plus the capture itself) from just before the exec, until
#     the screen shows the tree's header ("Total%") and its root row ("[-]
#     all"); the time the header alone appeared is kept too. The same is done
#     for a shell that prints those two lines at once: the floor that tmux
#     and the polling put under every figure.
#  2. exec to the first byte of `flametop --folded --duration 1` on a pipe
#     (build/bench/first_line), minus the 1 s of the duration.
# Runs alternate; medians of BENCH_RUNS runs. Measured, never asserted.
. "$(dirname "$0")/../bench_lib.sh"

POLL_MS=10
LIMIT=10 # seconds: a screen not complete by then is a failed run

# pause: sleeps POLL_MS without starting a process (sleep(1) would add ~10 ms):
# a read with a timeout on a pipe nobody writes to.
exec {PAUSE_FD}<> <(:)
printf -v PAUSE_S '%d.%03d' $((POLL_MS / 1000)) $((POLL_MS % 1000))
pause() { read -r -t "$PAUSE_S" -u "$PAUSE_FD"; }

FIRST_LINE=build/bench/first_line
if [ ! -x "$FIRST_LINE" ] || [ "$FIRST_LINE" -ot tests/bench/first_line.c ]; then
	FIRST_LINE=$BENCH_TMP/first_line
	${CC:-gcc} -O2 -o "$FIRST_LINE" tests/bench/first_line.c || exit 1
fi

# ms_since T: milliseconds since T (microseconds since the epoch), to 0.1 ms,
# without starting a process.
ms_since() {
	local d=$((${EPOCHREALTIME/./} - $1))
	printf '%d.%d' $((d / 1000)) $((d % 1000 / 100))
}

# first_screen COMMAND: runs COMMAND in a new terminal and polls it; prints
# "header_ms complete_ms polls" (the times since just before the exec), or
# "fail REASON".
first_screen() {
	local t0 pid s header='' complete='' polls=0
	t0=${EPOCHREALTIME/./}
	pid=$(bench_tmux_start ft 200 50 "exec $1 2>$BENCH_TMP/ft.err")
	while [ -z "$complete" ]; do
		s=$(bench_tmux capture-pane -p -t ft 2>/dev/null)
		polls=$((polls + 1))
		if [[ $s == Total%* || $s == *$'\n'Total%* ]]; then
			[ -n "$header" ] || header=$(ms_since "$t0")
			[[ $s =~ \[[-+]\]\ all($'\n'|$) ]] && complete=$(ms_since "$t0")
		fi
		[ -n "$complete" ] && break
		if ! alive "$pid"; then
			echo "fail ended ($(bench_tmux_death ft)): $(grep . "$BENCH_TMP/ft.err" | tail -n 1 | tr -d '|')"
			bench_tmux_end ft "$pid"
			return
		fi
		if ((${EPOCHREALTIME/./} - t0 > LIMIT * 1000000)); then
			echo "fail no complete screen in $LIMIT s"
			bench_tmux_end ft "$pid"
			return
		fi
		pause
	done
	bench_tmux_end ft "$pid"
	echo "$header $complete $polls"
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

on_exit bench_tmux_stop
"$WORKLOADS/cpu_split" 600 >/dev/null &
on_exit "stop_pid $!"

BASELINE="sh -c 'printf \"Total%%  Self%%\\n100.0%%  [-] all\\n\"; exec sleep 60'"
header=() complete=() floor=() folded=() folded_exit=() poll_ms=() fails=()
for _ in $(seq "$BENCH_RUNS"); do
	read -r h c p <<<"$(first_screen "$FLAMETOP -d 1")"
	if [ "$h" = fail ]; then
		fails+=("screen: $c $p")
	else
		header+=("$h") complete+=("$c")
		poll_ms+=("$(awk -v c="$c" -v p="$p" 'BEGIN { printf "%.1f", c / p }')")
	fi
	read -r f e <<<"$(first_folded)"
	if [ "$f" = fail ]; then
		fails+=("folded: $e")
	else
		folded+=("$f") folded_exit+=("$e")
	fi
	read -r h c p <<<"$(first_screen "$BASELINE")"
	[ "$h" != fail ] && floor+=("$c")
done

echo "## Startup"
echo
echo "While cpu_split runs. Median of $BENCH_RUNS runs (min-max), alternating, in ms."
echo
echo "- **First screen**: \`flametop -d 1\` started in a 200x50 tmux terminal, polled"
echo "  with \`tmux capture-pane\` from just before the exec until the screen shows the"
echo "  tree's header (\`Total%\`) and its root row (\`[-] all\`). A poll took"
echo "  $(median "${poll_ms[@]}") ms (median; a capture, then $POLL_MS ms of sleep), so each figure is late by"
echo "  up to that much. The floor is the same measure for a shell that prints those"
echo "  two lines at once: what tmux and the polling add to every figure."
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
echo "| floor: a shell printing the same lines | $(median_minmax "${floor[@]}") | |"
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
