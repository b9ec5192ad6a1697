#!/usr/bin/env bash
# Read mode's cost: read() calls per second with 1-byte reads on /dev/zero,
# untraced, under flametop --mode read, and under the equivalent bpftrace
# one-liner on the same kernel tracepoint (sys_enter). Runs alternate.
. "$(dirname "$0")/../bench_lib.sh"

SECS=3
rate() { "$WORKLOADS/read_rate" "$SECS" | sed -n 's/calls_per_sec=//p'; }

under_flametop() {
	local newest ft r
	newest=$(newest_program_id)
	$FLAMETOP --folded --mode read -o /dev/null 2>"$BENCH_TMP/ft.err" &
	ft=$!
	wait_program_after "$newest"
	r=$(rate)
	kill -INT "$ft"
	wait "$ft"
	echo "$r"
}

BPFTRACE_PROG='tracepoint:raw_syscalls:sys_enter /args->id == 0 || args->id == 17 || args->id == 19 || args->id == 295 || args->id == 327/ { @[kstack, ustack, comm] = count(); }'
under_bpftrace() {
	local bt r
	bpftrace -e "$BPFTRACE_PROG" >"$BENCH_TMP/bt.out" 2>&1 &
	bt=$!
	for _ in $(seq 100); do grep -q Attaching "$BENCH_TMP/bt.out" && break; sleep 0.1; done
	sleep 0.3
	r=$(rate)
	interrupt "$bt"
	echo "$r"
}

have_bpftrace=
if ensure_package bpftrace bpftrace && with_tracefs; then
	have_bpftrace=1
fi
plain=() ft=() bt=()
for _ in $(seq "$BENCH_RUNS"); do
	plain+=("$(rate)")
	ft+=("$(under_flametop)")
	[ -n "$have_bpftrace" ] && bt+=("$(under_bpftrace)")
done
undo_tracefs
hook=$(sed -nE 's/.*reads in [0-9.]+ s \(([^)]*)\).*/\1/p' "$BENCH_TMP/ft.err")

echo "## Read mode throughput"
echo
echo "read() calls per second, 1-byte reads on /dev/zero, one process, $SECS s per run,"
echo "median of $BENCH_RUNS runs (min-max), alternating. flametop hook: ${hook:-unknown}."
echo
echo "| | calls/s | vs untraced |"
echo "|---|---|---|"
echo "| untraced | $(median_minmax "${plain[@]}") | 1.00 |"
echo "| flametop --mode read | $(median_minmax "${ft[@]}") | $(ratio "$(median "${ft[@]}")" "$(median "${plain[@]}")") |"
if [ -n "$have_bpftrace" ]; then
	echo "| bpftrace \`@[kstack, ustack, comm] = count()\` on raw_syscalls:sys_enter | $(median_minmax "${bt[@]}") | $(ratio "$(median "${bt[@]}")" "$(median "${plain[@]}")") |"
	echo
	echo "flametop / bpftrace: $(ratio "$(median "${ft[@]}")" "$(median "${bt[@]}")") (target >= 0.9)."
else
	echo "| bpftrace | not run: bpftrace could not be installed or tracefs mounted | |"
fi
