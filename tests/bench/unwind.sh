#!/usr/bin/env bash
# The user-stack unwinder's cost (issue figures of item 8): in the kernel per
# sample, the table walk beside the frame-pointer walk and bpftrace's ustack;
# building the tables; the memory they take, for libc, python3 and every file
# this machine's processes map. Measured, never asserted.
. "$(dirname "$0")/../bench_lib.sh"

SECS=4
TABLES=build/bench/unwind_tables
LIBC=$(ldd /bin/true | awk '/libc\.so/ { print $3 }')
PYTHON=$(readlink -f /usr/bin/python3)

field() { sed -n "s/^$1=//p" <<<"$2"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1048576 }'; }

# The workloads, two of each (one per CPU here: nearly every sample walks a
# stack): unwind_work at -O2 as gcc builds it, and Debian's python3 in a
# recursive function.
gcc -O2 -g -o "$BENCH_TMP/c_work" tests/workloads/unwind_work.c
cat >"$BENCH_TMP/fib.py" <<'EOF'
import sys, time
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    fib(20)
EOF
declare -A WORKLOAD=([c]="$BENCH_TMP/c_work" [python]="$PYTHON $BENCH_TMP/fib.py")
declare -A COMM=([c]=c_work [python]=$(basename "$PYTHON" | cut -c1-15))
declare -A WL_LABEL=([c]="C -O2 (unwind_work)" [python]="Debian's python3")
WL_PIDS=()
workloads_start() { # KIND
	for _ in 1 2; do
		${WORKLOAD[$1]} $((SECS + 4)) >/dev/null &
		WL_PIDS+=($!)
	done
	sleep 0.3
}
workloads_stop() {
	local p
	for p in "${WL_PIDS[@]}"; do stop_pid "$p"; done
	WL_PIDS=()
}
on_exit workloads_stop

# walk_cost KIND FLAGS...: ns per sample of flametop's on_sample, user stacks
# only, of the workload's processes.
walk_cost() {
	local kind=$1 ft
	shift
	workloads_start "$kind"
	$FLAMETOP --folded --duration $((SECS + 1)) -o /dev/null -U -c "${COMM[$kind]}" "$@" \
		2>"$BENCH_TMP/ft.err" &
	ft=$!
	sleep "$SECS"
	prog_cost on_sample | cut -d' ' -f1
	wait "$ft"
	workloads_stop
}

# bpftrace_cost KIND: the same for bpftrace's `@[ustack] = count()`.
bpftrace_cost() {
	local kind=$1 bt id
	workloads_start "$kind"
	id=$(newest_program_id)
	bpftrace -e "profile:hz:99 /comm == \"${COMM[$kind]}\"/ { @[ustack] = count(); }" \
		>/dev/null 2>&1 &
	bt=$!
	sleep "$SECS"
	bpftool prog show 2>/dev/null | awk -v after="$id" -F: '$1 > after' | run_cost | cut -d' ' -f1
	interrupt "$bt"
	workloads_stop
}

have_bpftrace=
ensure_package bpftrace bpftrace && have_bpftrace=1
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
on_exit "sysctl -qw kernel.bpf_stats_enabled=$old"
declare -A tab fp bt whole
for _ in $(seq "$BENCH_RUNS"); do
	for k in c python; do
		tab[$k]+="$(walk_cost "$k") "
		whole[$k]=$(grep 'user stacks by' "$BENCH_TMP/ft.err" | sed 's/^flametop: //')
		fp[$k]+="$(walk_cost "$k" --unwind fp) "
		[ -n "$have_bpftrace" ] && bt[$k]+="$(bpftrace_cost "$k") "
	done
done

libc_ms=() py_ms=()
for _ in $(seq "$BENCH_RUNS"); do
	out=$($TABLES "$LIBC")
	libc_ms+=("$(field build_ms "$out")")
	libc_out=$out
	out=$($TABLES "$PYTHON")
	py_ms+=("$(field build_ms "$out")")
	py_out=$out
done
machine=$($TABLES --machine)

echo "## The user-stack unwinder"
echo
echo "In the kernel, per sample: run_time_ns / run_cnt of flametop's on_sample"
echo "(kernel.bpf_stats_enabled=1) with user stacks only (-U), $SECS s per run, two copies of"
echo "the workload (one per CPU, so that nearly every sample walks one of their stacks), -c"
echo "keeping theirs; beside it the frame-pointer walk (--unwind fp) and bpftrace's"
echo "\`profile:hz:99 /comm == .../ { @[ustack] = count(); }\` (the kernel's frame-pointer"
echo "walker), the same way. Median of $BENCH_RUNS runs (min-max). Target: the table walk at"
echo "most 2x the frame-pointer walk per sample."
echo
for k in c python; do
	# shellcheck disable=SC2086
	printf '%s\t%s\t%s\t%s\t%s\n' "${WL_LABEL[$k]}" "$(median_minmax ${tab[$k]})" \
		"$(median_minmax ${fp[$k]})" "$(ratio "$(median ${tab[$k]})" "$(median ${fp[$k]})")" \
		"$(if [ -n "$have_bpftrace" ]; then median_minmax ${bt[$k]}; else echo "not run: no bpftrace"; fi)"
done | md_table workload "unwind tables, ns" "frame pointers, ns" "tables / fp" "bpftrace ustack, ns"
echo
for k in c python; do
	echo "- ${WL_LABEL[$k]}, the last run's walks: ${whole[$k]}."
done
echo "- The frame-pointer walk stops at the first frame of code built without them"
echo "  (all of Debian's libc and python3): it does less work because it walks a frame or"
echo "  two. The table walk goes on to the start code: per frame, the mapping (a binary"
echo "  search of the process's executable mappings), the table's row (a search within"
echo "  256 bytes of code), the rule, and one or two reads of the user stack."
echo
echo "Building the tables (libdw over the file's .eh_frame; median of $BENCH_RUNS runs of 5"
echo "builds each) and the kernel memory one takes once laid out for the walk (rows of 8"
echo "bytes, one bucket of 8 bytes per 256 bytes of code, rounded to pages). Target:"
echo "libc's table in under 20 ms."
echo
{
	printf '%s\t%s\t%s\t%s\t%s\n' "libc ($LIBC)" "$(median_minmax "${libc_ms[@]}")" \
		"$(field rows "$libc_out")" "$(field fdes "$libc_out")" "$(mib "$(field kernel_bytes "$libc_out")")"
	printf '%s\t%s\t%s\t%s\t%s\n' "python3 ($PYTHON)" "$(median_minmax "${py_ms[@]}")" \
		"$(field rows "$py_out")" "$(field fdes "$py_out")" "$(mib "$(field kernel_bytes "$py_out")")"
} | md_table file "build, ms" rows FDEs "kernel memory, MiB"
echo
echo "- The whole machine now: $(field files "$machine") files mapped executable by"
echo "  $(field processes "$machine") processes, $(field with_table "$machine") with CFI: $(field rows "$machine") rows over $(field rules "$machine") distinct"
echo "  rules, $(mib "$(field kernel_bytes "$machine")") MiB of kernel memory once loaded, $(field build_ms "$machine") ms to build them one"
echo "  after the other. flametop builds only the tables of files sampled processes map,"
echo "  most wanted first, in a thread, and puts a round's tables in at once (each put"
echo "  waits for an RCU grace period, ~24 ms here); the default budget (--unwind-memory)"
echo "  is 128 MB, process slots included."
