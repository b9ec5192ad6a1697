#!/usr/bin/env bash
# Read mode's cost: read() calls per second with 1-byte reads on /dev/zero,
# untraced, under flametop --mode read, and under the equivalent bpftrace
# one-liner on the same kernel tracepoint (sys_enter); what each adds to a
# read, in the reading thread's CPU time (so that what else runs on a shared
# machine is left out: the tracer's program runs in that thread), and the
# tracer's own program's time per read (run_time_ns / run_cnt,
# kernel.bpf_stats_enabled=1). Two loops: read_rate (C, one call site) and
# Debian's python3 calling os.read() in a loop (a deep C stack under the
# interpreter). Runs alternate.
. "$(dirname "$0")/../bench_lib.sh"

SECS=3
WARM_UP=1.5 # seconds each loop reads before it counts: the tracer builds its tables meanwhile
PYTHON=/usr/bin/python3.11
cat >"$BENCH_TMP/read_loop.py" <<'EOF'
import os, sys, time
fd = os.open("/dev/zero", os.O_RDONLY)
start = time.monotonic()
while time.monotonic() < start + float(sys.argv[2]):
    for _ in range(10000):
        os.read(fd, 1)
n, start, cpu = 0, time.monotonic(), time.thread_time()
while time.monotonic() < start + float(sys.argv[1]):
    for _ in range(10000):
        os.read(fd, 1)
    n += 10000
elapsed, cpu = time.monotonic() - start, time.thread_time() - cpu
print("calls_per_sec=%d cpu_ns_per_call=%d" % (n / elapsed, cpu * 1e9 / n))
EOF

# rate LOOP: "CALLS_PER_SEC CPU_NS_PER_CALL" of LOOP (c or python) over SECS.
rate() {
	if [ "$1" = c ]; then
		"$WORKLOADS/read_rate" "$SECS" "$WARM_UP"
	else
		"$PYTHON" "$BENCH_TMP/read_loop.py" "$SECS" "$WARM_UP"
	fi | sed -n 's/calls_per_sec=\([0-9]*\) cpu_ns_per_call=\([0-9]*\)/\1 \2/p'
}

# traced NAME LOOP OUT CMD...: LOOP's rate while CMD traces (started with its
# output in OUT, waited for, ended with SIGINT); "RATE CPU_NS NS_IN_BPF" with
# the cost of its program whose name starts with NAME ("" for any).
traced() {
	local prog=$1 loop=$2 out=$3 newest pid r
	shift 3
	newest=$(newest_program_id)
	"$@" >"$out" 2>&1 &
	pid=$!
	if [ "$prog" = on_sys_enter_read ]; then
		wait_program_after "$newest"
	else
		for _ in $(seq 100); do grep -q Attaching "$out" && break; sleep 0.1; done
		sleep 0.3
	fi
	r=$(rate "$loop")
	echo "$r $(bpftool prog show 2>/dev/null | awk -v after="$newest" -F: '$1 > after' |
		grep -E "name $prog" | run_cost | cut -d' ' -f1)"
	interrupt "$pid"
}

BPFTRACE_PROG='tracepoint:raw_syscalls:sys_enter /args->id == 0 || args->id == 17 || args->id == 19 || args->id == 295 || args->id == 327/ { @[kstack, ustack, comm] = count(); }'

have_bpftrace=
if ensure_package bpftrace bpftrace && with_tracefs; then
	have_bpftrace=1
fi
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
declare -A plain plain_cpu ft ft_cpu ft_ns bt bt_cpu bt_ns
for _ in $(seq "$BENCH_RUNS"); do
	for loop in c python; do
		read -r r c <<<"$(rate "$loop")"
		plain[$loop]+="$r " plain_cpu[$loop]+="$c "
		read -r r c n <<<"$(traced on_sys_enter_read "$loop" "$BENCH_TMP/ft_$loop.err" \
			$FLAMETOP --folded --mode read -o /dev/null)"
		ft[$loop]+="$r " ft_cpu[$loop]+="$c " ft_ns[$loop]+="${n:-0} "
		if [ -n "$have_bpftrace" ]; then
			read -r r c n <<<"$(traced "" "$loop" "$BENCH_TMP/bt.out" \
				bpftrace -e "$BPFTRACE_PROG")"
			bt[$loop]+="$r " bt_cpu[$loop]+="$c " bt_ns[$loop]+="${n:-0} "
		fi
	done
done
undo_tracefs
sysctl -qw kernel.bpf_stats_enabled="$old"
hook=$(sed -nE 's/.*reads in [0-9.]+ s \(([^)]*)\).*/\1/p' "$BENCH_TMP/ft_c.err")

# added NS BASE: microseconds a read's CPU time gains, NS traced against BASE untraced.
added() { awk -v n="$1" -v b="$2" 'BEGIN { if (n > 0 && b > 0) printf "%.2f", (n - b) / 1000; else print "n/a" }'; }

echo "## Read mode throughput"
echo
echo "read() calls per second, 1-byte reads on /dev/zero, one process, $SECS s per run"
echo "after $WARM_UP s of the same (the tracer knows the process and has its unwind tables),"
echo "median of $BENCH_RUNS runs (min-max), alternating; every read of the machine traced."
echo "flametop hook: ${hook:-unknown}. \"CPU ns per read\": the reading thread's CPU time"
echo "over its reads (the tracer's program runs in it; what else the machine runs does"
echo "not); \"us added\": that, traced, less untraced (medians); \"ns in BPF\": the tracer's"
echo "program's run_time_ns / run_cnt (kernel.bpf_stats_enabled=1) over the run, every"
echo "read of the machine. bpftrace: \`@[kstack, ustack, comm] = count()\` on"
echo "raw_syscalls:sys_enter, the read family."
echo
echo "| loop | tracer | calls/s | vs untraced | CPU ns per read | us added per read | ns in BPF per read |"
echo "|---|---|---|---|---|---|---|"
# row LABEL TRACER RATES CPUS NS BASE_RATE BASE_CPU: a table row, medians (min-max).
row() {
	# shellcheck disable=SC2086
	echo "| $1 | $2 | $(median_minmax $3) | $(ratio "$(median $3)" "$6") | $(median_minmax $4) | $(added "$(median $4)" "$7") | ${5:+$(median_minmax $5)} |"
}
for loop in c python; do
	label=$([ "$loop" = c ] && echo "C (read_rate)" || echo "Debian's python3.11, os.read()")
	# shellcheck disable=SC2086
	base=$(median ${plain[$loop]}) base_cpu=$(median ${plain_cpu[$loop]})
	row "$label" untraced "${plain[$loop]}" "${plain_cpu[$loop]}" "" "$base" "$base_cpu"
	row "$label" "flametop --mode read" "${ft[$loop]}" "${ft_cpu[$loop]}" "${ft_ns[$loop]}" "$base" "$base_cpu"
	if [ -n "$have_bpftrace" ]; then
		row "$label" bpftrace "${bt[$loop]}" "${bt_cpu[$loop]}" "${bt_ns[$loop]}" "$base" "$base_cpu"
	else
		echo "| $label | bpftrace | not run: bpftrace could not be installed or tracefs mounted | | | | |"
	fi
done
echo
# shellcheck disable=SC2086
[ -n "$have_bpftrace" ] && echo "flametop / bpftrace throughput: C loop $(ratio "$(median ${ft[c]})" "$(median ${bt[c]})"), python $(ratio "$(median ${ft[python]})" "$(median ${bt[python]})") (target >= 0.9)."
echo "Target: at most 1.5 us per read on the C loop. A thread that reads again"
echo "and again from the same place takes its stacks from its memos of its last walks"
echo "where they hold (walk_memo.bpf.h); the last runs' summaries:"
echo
for loop in c python; do
	echo "- $loop: walks reused: $(sed -n 's/^flametop: walks reused: //p' "$BENCH_TMP/ft_$loop.err");"
	echo "  $(sed -n 's/^flametop: \(user stacks by .*\)/\1/p' "$BENCH_TMP/ft_$loop.err")."
done
