#!/usr/bin/env bash
# Self cost of live sampling (figure a) and its peak memory (figure f, part 1).
#
# Four live profilers, each sampling every CPU at 99 Hz and each drawing into
# a 200x50 terminal of a private tmux server, each at its own default refresh:
# flametop's screen and perf top's both every 2 s; `perf top -F 99 -g` (frame
# pointers), `perf top -F 99 --call-graph dwarf` (perf's CFI unwinder, the one
# flametop's user stacks compare with), and bpftrace's profile:hz:99
# one-liner printing its map every second. They run one after the other,
# alternating within each run, each with the workloads started afresh:
# cpu_split (CPU-bound) and a shell loop running /bin/true back to back
# (process churn); then, as an extra row, with no workload at all. The figure
# is the CPU time of the profiler's own process (the scheduler's run time of
# each of its threads, /proc/PID/task/TID/schedstat, in ns) per wall second,
# over a window that starts WARMUP seconds after exec: the steady state. While
# the window lasts this script forks nothing (it waits with bash's read -t),
# so that an idle machine is idle. The CPU used before the window (startup,
# from utime + stime) is reported apart. Peak RSS is VmHWM at the end of the
# window. A profiler that ends before the window does leaves that run out,
# and says why. Measured, never asserted.
. "$(dirname "$0")/../bench_lib.sh"

WARMUP=4
TICK=$(getconf CLK_TCK)

# The cases, in the order they run and print, and their windows (s).
CASES=(${SELF_COST_CASES:-load idle python}) # SELF_COST_CASES=idle: that case alone
declare -A CASE_LABEL=([load]="cpu_split + /bin/true loop" [idle]="idle machine"
	[python]="2 busy python3.11 + /bin/true loop")
declare -A WINDOW=([load]=30 [idle]=30 [python]=30)
TOOLS=(flametop perf perf_dwarf bpftrace)
# The profilers each case runs (python: flametop against perf's DWARF unwinder, the issue's peer).
declare -A CASE_TOOLS=([python]="flametop perf_dwarf")
PY=/usr/bin/python3.11
[ -x "$PY" ] || CASE_TOOLS[python]=
case_runs() { [ -z "${CASE_TOOLS[$1]+set}" ] || [[ " ${CASE_TOOLS[$1]} " == *" $2 "* ]]; }

# Each profiler: its command line, a regex its screen matches once it works.
declare -A CMD MARK LABEL
CMD[flametop]="$FLAMETOP -F 99"
MARK[flametop]='^Total%'
LABEL[flametop]="flametop"
CMD[perf]="perf top -F 99 -g"
MARK[perf]='^Samples: '
LABEL[perf]="\`perf top -F 99 -g\`"
CMD[perf_dwarf]="perf top -F 99 --call-graph dwarf"
MARK[perf_dwarf]='^Samples: '
LABEL[perf_dwarf]="\`perf top -F 99 --call-graph dwarf\`"
CMD[bpftrace]="bpftrace $BENCH_TMP/profile.bt"
MARK[bpftrace]='^@\['
LABEL[bpftrace]="bpftrace \`profile:hz:99\`, printed every second"
cat >"$BENCH_TMP/profile.bt" <<'EOF'
profile:hz:99 { @[kstack, ustack, comm] = count(); }
interval:s:1 { print(@); clear(@); }
EOF

# cpu_ticks PID: utime + stime of PID's threads, those ended included, in clock ticks.
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk 'NF { print $12 + $13 }'; }
# run_ns PID: sets RUN_NS, the run time of PID's threads in ns, and
# RUN_TIDS, their ids. Forks nothing.
run_ns() {
	local f ns
	RUN_NS=0 RUN_TIDS=''
	for f in /proc/"$1"/task/*/schedstat; do
		read -r ns _ <"$f" 2>/dev/null || continue
		RUN_NS=$((RUN_NS + ns))
		f=${f%/schedstat}
		RUN_TIDS+="${f##*/},"
	done
}
# vm_hwm PID: peak resident set, KiB. vm_rss PID: the resident set now, KiB.
vm_hwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null; }
vm_rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null; }
# mib KIB: KIB in MiB, one decimal.
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
# count_forks: sets FORKS, the processes created on this machine since boot. Forks nothing.
count_forks() {
	local k v
	while read -r k v _; do
		[ "$k" = processes ] && FORKS=$v && return
	done </proc/stat
}
# since T: seconds since EPOCHREALTIME T.
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# A pipe nobody writes to: read -t on it is a sleep without a fork.
exec {NAP_FD}<> <(:)
# lives PID SECS: waits SECS (whole); false as soon as PID has ended. Forks nothing.
lives() {
	local end=$((${EPOCHREALTIME/./} + $2 * 1000000))
	while alive "$1"; do
		((${EPOCHREALTIME/./} >= end)) && return 0
		read -r -t 0.2 -u "$NAP_FD" _
	done
	return 1
}

# Workloads run from this shell, so that however it ends they are stopped.
WL_PIDS=()
workloads_start() { # CASE
	[ "$1" = idle ] && return
	if [ "$1" = python ]; then
		# Two Python processes busy in Python functions 3 deep (outer -> middle -> leaf).
		"$PY" tests/workloads/python/split.py $((WARMUP + WINDOW[$1] + 30)) /dev/null &
		WL_PIDS+=($!)
		"$PY" tests/workloads/python/split.py $((WARMUP + WINDOW[$1] + 30)) /dev/null &
		WL_PIDS+=($!)
	else
		"$WORKLOADS/cpu_split" $((WARMUP + WINDOW[$1] + 30)) >/dev/null &
		WL_PIDS+=($!)
	fi
	/bin/bash -c 'while :; do /bin/true; done' &
	WL_PIDS+=($!)
}
workloads_stop() {
	local p
	for p in "${WL_PIDS[@]}"; do stop_pid "$p"; done
	WL_PIDS=()
}
on_exit workloads_stop
on_exit bench_tmux_stop

# measure TOOL SECS: runs TOOL in a terminal and measures it over SECS after
# the warm-up. Sets R_CPU (% of one CPU), R_START (CPU ms before the window),
# R_HWM and R_RSS (KiB, at the window's end), R_FORKS (processes created per
# second, machine-wide); or R_FAIL (why not).
measure() {
	local tool=$1 secs=$2 pid c0 c1 r0 r1 tids0 tids1 f0 f1 t0 t1 texec screen0 screen1 screen err
	R_CPU='' R_START='' R_HWM='' R_RSS='' R_FORKS='' R_FAIL=''
	texec=$EPOCHREALTIME
	pid=$(bench_tmux_start "$tool" 200 50 "exec ${CMD[$tool]} 2>$BENCH_TMP/$tool.err")
	if lives "$pid" "$WARMUP"; then
		c0=$(cpu_ticks "$pid")
		screen0=$(bench_tmux capture-pane -p -t "$tool")
		count_forks
		f0=$FORKS t0=${EPOCHREALTIME/./}
		run_ns "$pid"
		r0=$RUN_NS tids0=$RUN_TIDS
		if lives "$pid" "$secs"; then
			run_ns "$pid"
			r1=$RUN_NS tids1=$RUN_TIDS t1=${EPOCHREALTIME/./}
			count_forks
			f1=$FORKS
			R_HWM=$(vm_hwm "$pid")
			R_RSS=$(vm_rss "$pid")
			screen1=$(bench_tmux capture-pane -p -t "$tool")
		fi
	fi
	alive "$pid" || R_FAIL="ended ($(bench_tmux_death "$tool")) $(since "$texec") s after exec"
	screen=$(bench_tmux capture-pane -p -S -200 -t "$tool" 2>/dev/null)
	bench_tmux_end "$tool" "$pid"
	if [ -n "$R_FAIL" ]; then
		err=$(grep -v RLIMIT_MEMLOCK "$BENCH_TMP/$tool.err" | grep . | tail -n 1)
		R_FAIL+="${err:+, last words: \`$(cut -c1-80 <<<"$err" | tr -d '`|')\`}"
		return 1
	fi
	if ! grep -qE -e "${MARK[$tool]}" <<<"$screen"; then
		R_FAIL="no screen: \`$(grep -m1 . <<<"$screen" | cut -c1-80 | tr -d '`|')\`"
		return 1
	fi
	if [ "$screen0" = "$screen1" ]; then
		R_FAIL="stalled: its screen did not change over the window"
		return 1
	fi
	# A thread that ended in the window took its run time with it.
	if [ "$tids0" != "$tids1" ]; then
		R_FAIL="its threads changed during the window ($tids0 -> $tids1)"
		return 1
	fi
	read -r R_CPU R_START R_FORKS < <(awk -v r0="$r0" -v r1="$r1" -v c0="$c0" -v f0="$f0" \
		-v f1="$f1" -v t0="$t0" -v t1="$t1" -v hz="$TICK" 'BEGIN {
		w = (t1 - t0) / 1e6
		printf "%.3f %.0f %.1f\n", (r1 - r0) / 1e9 / w * 100, c0 / hz * 1000, (f1 - f0) / w }')
}

ensure_package perf linux-perf || CMD[perf]= CMD[perf_dwarf]=
ensure_package bpftrace bpftrace || CMD[bpftrace]=
declare -A cpu start hwm rss forks fail nfail
for _ in $(seq "$BENCH_RUNS"); do
	for c in "${CASES[@]}"; do
		for t in "${TOOLS[@]}"; do
			[ -n "${CMD[$t]}" ] && case_runs "$c" "$t" || continue
			workloads_start "$c"
			if measure "$t" "${WINDOW[$c]}"; then
				cpu[$c|$t]+="$R_CPU "
				start[$c|$t]+="$R_START "
				hwm[$c|$t]+="$(mib "$R_HWM") "
				rss[$c|$t]+="$(mib "$R_RSS") "
				forks[$c|$t]+="$R_FORKS "
			else
				fail[$c|$t]=$R_FAIL
				nfail[$c|$t]=$((${nfail[$c|$t]:-0} + 1))
			fi
			workloads_stop
		done
	done
done

# fig CASE TOOL ARRAY: "median (min-max)" of ARRAY[CASE|TOOL].
fig() {
	local -n a=$3
	# shellcheck disable=SC2086
	median_minmax ${a[$1|$2]:-}
}
# med CASE TOOL ARRAY [FORMAT]: the median alone (3 significant digits).
med() {
	local -n a=$3
	# shellcheck disable=SC2086
	median ${a[$1|$2]:-} | awk -v f="${4:-%.3g}" '{ printf f "\n", $1 }'
}
# vs CASE TOOL ARRAY: flametop's median over TOOL's, or n/a.
vs() {
	local -n a=$3
	if [ -z "${a[$1|flametop]:-}" ] || [ -z "${a[$1|$2]:-}" ]; then
		echo n/a
		return
	fi
	ratio "$(med "$1" flametop "$3" %.6g)" "$(med "$1" "$2" "$3" %.6g)"
}
echo "## Self cost of live sampling"
echo
echo "CPU time of the profiler's own process (the scheduler's run time of each of its"
echo "threads, /proc/PID/task/TID/schedstat, in ns) per wall second, in % of one CPU,"
echo "every CPU sampled at 99 Hz, each profiler at its default refresh (flametop and"
echo "perf top every 2 s, bpftrace's script every second), the screen in a 200x50 tmux"
echo "terminal. The window starts $WARMUP s after exec and lasts ${WINDOW[load]} s under load, ${WINDOW[idle]} s"
echo "otherwise; this script forks nothing during it. The CPU used before it (startup"
echo "and warm-up, utime + stime) is reported apart. The profilers alternate within"
echo "each run, each with the workloads started afresh: cpu_split (CPU-bound, one CPU)"
echo "and \`while :; do /bin/true; done\` in bash (process churn); processes/s counts"
echo "every process created on the machine during the window (the churn, or whatever"
echo "else ran). Median of $BENCH_RUNS runs (min-max). Peak RSS is VmHWM at the window's"
echo "end, RSS VmRSS then (kernel memory for maps and buffers is in neither, but what"
echo "the profiler maps of them is)."
echo
echo "| workload | profiler | CPU, % of one CPU | CPU before the window (ms) | peak RSS (MiB) | RSS at the end (MiB) | processes/s |"
echo "|---|---|---:|---:|---:|---:|---:|"
for c in "${CASES[@]}"; do
	for t in "${TOOLS[@]}"; do
		case_runs "$c" "$t" || continue
		row="| ${CASE_LABEL[$c]} | ${LABEL[$t]} |"
		if [ -z "${CMD[$t]}" ]; then
			echo "$row not run: $t could not be installed | | | | |"
		elif [ -z "${cpu[$c|$t]:-}" ]; then
			echo "$row not run: in $BENCH_RUNS of $BENCH_RUNS runs ${fail[$c|$t]} | | | | |"
		else
			echo "$row $(fig "$c" "$t" cpu) | $(fig "$c" "$t" start) | $(fig "$c" "$t" hwm) | $(fig "$c" "$t" rss) | $(med "$c" "$t" forks %.0f) |"
		fi
	done
done
echo
for c in "${CASES[@]}"; do
	for t in "${TOOLS[@]}"; do
		[ -n "${cpu[$c|$t]:-}" ] && [ -n "${fail[$c|$t]:-}" ] &&
			echo "- ${LABEL[$t]}, ${CASE_LABEL[$c]}: ${nfail[$c|$t]} of $BENCH_RUNS runs left out, ${fail[$c|$t]}."
	done
	[ -n "${cpu[$c|flametop]:-}" ] || continue
	if [ "$c" = python ]; then
		echo "- ${CASE_LABEL[$c]} (each walked in Python, 3 Python frames over ~12 native ones):"
		echo "  flametop $(med "$c" flametop cpu)% of one CPU, flametop / perf top --call-graph dwarf $(vs "$c" perf_dwarf cpu) (target <= 0.1)."
		continue
	fi
	line="- ${CASE_LABEL[$c]}: flametop $(med "$c" flametop cpu)% of one CPU (target <= 0.3%)"
	line+=", flametop / perf top -g $(vs "$c" perf cpu) (target <= 0.25)"
	line+=", flametop / perf top --call-graph dwarf $(vs "$c" perf_dwarf cpu) (target <= 0.1)"
	line+=", flametop / bpftrace $(vs "$c" bpftrace cpu)"
	echo "$line."
done
if [ -n "${hwm[load|flametop]:-}" ]; then
	echo "- Peak RSS under load: flametop $(med load flametop hwm) MiB (target <= 30 MB, 28.6 MiB),"
	echo "  flametop / perf top $(vs load perf hwm), flametop / bpftrace $(vs load bpftrace hwm)."
fi
bt_fail="${fail[load|bpftrace]:-} ${fail[idle|bpftrace]:-}"
if [[ $bt_fail == *"exit status 0"* || $bt_fail == *stalled* ]]; then
	echo "- bpftrace 0.17 stops by itself when processes come and go: it exits (status 0), or"
	echo "  lives on without sampling or printing. strace on this machine shows it closing file"
	echo "  descriptors that are no longer its own (its epoll and perf event ones among them)"
	echo "  while it names the user stacks of processes that have exited. Its \"failed to look"
	echo "  up stack id -17\" messages are another matter: stacks lost to hash collisions in"
	echo "  its stack map (-EEXIST)."
fi
# What a wakeup costs here, before any work (measured after the profilers, alone).
if [ -x build/bench/wakeup_cost ]; then
	wake=$(build/bench/wakeup_cost 0 16 32 | sed -n 's/^resident_mib=\([0-9]*\) wakeup_us=\([0-9.]*\)$/\1 \2/p')
	if [ "$(wc -l <<<"$wake")" = 3 ]; then
		echo "- A wakeup's price on this machine (build/bench/wakeup_cost: the CPU time of a poll()"
		echo "  that slept 2 s, five times, with memory written once and then left alone):"
		awk 'NR == 1 { bare = $2 }
			{ printf "%s%s us with %s MiB resident", (NR > 1 ? ", " : "  "), $2, $1 }
			END { printf ".\n  A profiler that wakes every 2 s pays ~%.4f%% of a CPU for the wakeups alone.\n", bare / 2e6 * 100 }' <<<"$wake"
	fi
fi
echo "- Where flametop's time goes under churn (perf on flametop, and its thread CPU time"
echo "  by stage): each newly sampled process is noted from BPF. While notes come in a"
echo "  burst they are read at most every 80 ms (~12 wakeups a second under churn; on this"
echo "  VM a wakeup costs 30-50 us of CPU in poll() alone, and a timer slack of 4 ms lets"
echo "  the kernel fold these timed wakeups into others). Most /bin/true processes have"
echo "  exited by the time their note is read: a signal 0 tells so without a lookup in"
echo "  /proc, and the mappings the kernel announced (perf mmap records, read for every"
echo "  process on the machine) describe them. The rest is the maps of the processes still"
echo "  running, a drain every second and a refresh every 2 s."
echo "- On an idle machine flametop wakes once every 2 s: a drain (one a second only while"
echo "  drains find 256 stacks or more), the refresh (the view made again: the recent window"
echo "  changes whole) and the redraw (flametop hands curses only the cells that changed, a"
echo "  run of a row at a time). Its thread's CPU time by stage, from a scratch build that"
echo "  times each (90-120 s runs, 2026-12-02, before the two changes below): the drain"
echo "  0.18-0.23 ms (naming the few stacks new since the last, /proc/stat for the idle CPUs'"
echo "  share, the counters), the view rebuilt and drawn into the screen buffer 0.07 ms, the"
echo "  changed cells handed to curses 0.1 ms, curses' update of the terminal 0.17-0.25 ms,"
echo "  the wakeup and its poll 0.1-0.2 ms: 0.8-0.9 ms every 2 s, where 0.1x perf top"
echo "  --call-graph dwarf's would be 0.74. Since: the icicle's height no longer follows the"
echo "  deepest stack of each 2 s window (it moved a row at most refreshes, and every row of"
echo "  it was drawn again), and cells go to curses a run at a time: three alternated 40 s"
echo "  runs in a 200x50 pane, 0.30-0.37 ms of CPU a second against 0.41-0.55 before. Then"
echo "  (ecb2ef3) the screen held still: swapper/0 and swapper/1, 1-2 samples apart, traded"
echo "  places at random refreshes and flipped the whole icicle (~2,800 cells), and a box's"
echo "  edge moved a column with each sample or two (~13 rows); now siblings within a"
echo "  count's noise keep their order and an edge within a column of the last drawing"
echo "  stays. Curses' update costs ~7 us a changed row here (0.01 ms with none, 0.1-0.3 ms"
echo "  with 15-30): alternated 36 s runs, 0.021-0.025% of a CPU against 0.040-0.069%"
echo "  before. What changes on an idle screen now is the figures. A process sampled"
echo "  now and then (tmux, a daemon, flametop itself) keeps its maps and its names while it"
echo "  runs; until aec9dbf it was read and named again at each sample (0.1-1.5 ms)."
