#!/usr/bin/env bash
# In-kernel cost per event: run_time_ns / run_cnt of flametop's BPF programs
# with kernel.bpf_stats_enabled=1, in sample mode (a CPU-bound workload, a
# syscall-heavy one, and the idle machine) and in read mode.
. "$(dirname "$0")/../bench_lib.sh"

SECS=4
prog_cost() { # NAME: "ns_per_run runs" of the newest loaded program NAME
	bpftool prog show 2>/dev/null | grep -E "name $1 " | tail -n 1 |
		sed -nE 's/.*run_time_ns ([0-9]+) run_cnt ([0-9]+).*/\1 \2/p' |
		awk '$2 > 0 { printf "%.0f %d\n", $1 / $2, $2 }'
}

# measure PROG WORKLOAD FLAGS...: ns per event of flametop's PROG while
# WORKLOAD (or nothing) runs.
measure() {
	local prog=$1 workload=$2 wl=
	shift 2
	[ -n "$workload" ] && { "$WORKLOADS/$workload" $((SECS + 3)) >/dev/null & wl=$!; }
	[ "$workload" = reader_ab ] && { sleep 0.2; kill -USR1 "$wl"; }
	$FLAMETOP --folded --duration $((SECS + 1)) -o /dev/null "$@" 2>/dev/null &
	local ft=$!
	sleep "$SECS"
	prog_cost "$prog"
	wait "$ft"
	[ -n "$wl" ] && { kill "$wl" 2>/dev/null; wait "$wl" 2>/dev/null; }
}

old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
declare -A ns runs
cases=("sample|cpu_split|on_sample|" "sample|syscall_loop|on_sample|" "sample||on_sample|"
	"read|reader_ab|on_sys_enter_read|--mode read")
for _ in $(seq "$BENCH_RUNS"); do
	for c in "${cases[@]}"; do
		IFS='|' read -r mode wl prog flags <<<"$c"
		read -r n r <<<"$(measure "$prog" "$wl" $flags)"
		ns[$c]+="${n:-0} "
		runs[$c]=${r:-0}
	done
done
sysctl -qw kernel.bpf_stats_enabled="$old"

echo "## In-kernel cost per event"
echo
echo "run_time_ns / run_cnt of flametop's program (kernel.bpf_stats_enabled=1), $SECS s per run,"
echo "median of $BENCH_RUNS runs (min-max), kernel and user stacks walked. Target: <= 1500 ns per sample."
echo
echo "| mode | workload | ns per event | events in the last run |"
echo "|---|---|---|---|"
for c in "${cases[@]}"; do
	IFS='|' read -r mode wl prog flags <<<"$c"
	# shellcheck disable=SC2086
	echo "| $mode | ${wl:-idle machine} | $(median_minmax ${ns[$c]}) | ${runs[$c]} |"
done
