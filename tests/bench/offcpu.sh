#!/usr/bin/env bash
# Off-CPU mode's cost: two threads passing a byte through pipes (hundreds of
# thousands of context switches a second), untraced, under flametop --mode
# offcpu, and under bpftrace doing the same on sched_switch (a start time
# and the stacks per thread at switch-out, the time summed by stack at
# switch-in). Runs alternate. Also the in-kernel cost per context switch:
# run_time_ns / run_cnt of each tracer's program.
. "$(dirname "$0")/../bench_lib.sh"

SECS=3
rate() { "$WORKLOADS/switch_rate" "$SECS" | sed -n 's/switches_per_sec=\([0-9]*\).*/\1/p'; }

# traced CMD...: starts the tracer CMD, measures the rate under it and the
# per-switch cost of its newest program; prints "rate ns_per_switch".
traced() {
	local newest pid r cost
	newest=$(newest_program_id)
	"$@" >"$BENCH_TMP/tracer.out" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		[ -n "$(bpftool prog show 2>/dev/null | awk -v after="$newest" -F: '$1 > after')" ] && break
		sleep 0.1
	done
	sleep 1
	r=$(rate)
	cost=$(bpftool prog show 2>/dev/null | awk -v after="$newest" -F: '$1 > after' |
		grep -E 'name (on_sched_switch|sched_switch) ' | run_cost | cut -d' ' -f1)
	interrupt "$pid"
	echo "${r:-0} ${cost:-0}"
}

BPFTRACE_PROG='tracepoint:sched:sched_switch {
	$s = @start[args->next_pid];
	if ($s) { @t[@ks[args->next_pid], @us[args->next_pid]] = sum(nsecs - $s); delete(@start[args->next_pid]); }
	if (args->prev_pid) { @start[args->prev_pid] = nsecs; @ks[args->prev_pid] = kstack; @us[args->prev_pid] = ustack; }
}'

have_bpftrace=
if ensure_package bpftrace bpftrace && with_tracefs; then
	have_bpftrace=1
fi
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
plain=() ft=() ft_ns=() bt=() bt_ns=()
for _ in $(seq "$BENCH_RUNS"); do
	plain+=("$(rate)")
	read -r r c <<<"$(traced $FLAMETOP --mode offcpu --folded -o /dev/null)"
	ft+=("$r") ft_ns+=("$c")
	if [ -n "$have_bpftrace" ]; then
		read -r r c <<<"$(traced bpftrace -e "$BPFTRACE_PROG")"
		bt+=("$r") bt_ns+=("$c")
	fi
done
sysctl -qw kernel.bpf_stats_enabled="$old"
undo_tracefs

echo "## Off-CPU mode"
echo
echo "Context switches per second of two threads passing a byte through pipes, $SECS s per"
echo "run, median of $BENCH_RUNS runs (min-max), alternating; every thread of the machine"
echo "traced. ns per switch: run_time_ns / run_cnt of the tracer's sched_switch program"
echo "(kernel.bpf_stats_enabled=1). bpftrace: \`tracepoint:sched:sched_switch\` storing a"
echo "start time and both stacks per thread at switch-out, summing the time by stack at"
echo "switch-in. flametop also walks the user stack with the unwind tables (bpftrace's"
echo "ustack: frame pointers) and counts waits still open at each drain."
echo
echo "| | switches/s | vs untraced | ns per switch |"
echo "|---|---|---|---|"
echo "| untraced | $(median_minmax "${plain[@]}") | 1.00 | |"
echo "| flametop --mode offcpu | $(median_minmax "${ft[@]}") | $(ratio "$(median "${ft[@]}")" "$(median "${plain[@]}")") | $(median_minmax "${ft_ns[@]}") |"
if [ -n "$have_bpftrace" ]; then
	echo "| bpftrace (above) | $(median_minmax "${bt[@]}") | $(ratio "$(median "${bt[@]}")" "$(median "${plain[@]}")") | $(median_minmax "${bt_ns[@]}") |"
	echo
	echo "flametop / bpftrace, cost per switch: $(ratio "$(median "${ft_ns[@]}")" "$(median "${bt_ns[@]}")") (target <= 1);"
	echo "throughput under tracing: $(ratio "$(median "${ft[@]}")" "$(median "${bt[@]}")") (target >= 1)."
else
	echo "| bpftrace | not run: bpftrace could not be installed or tracefs mounted | | |"
fi
