#!/usr/bin/env bash
# In-kernel cost per event: run_time_ns / run_cnt of flametop's BPF programs
# with kernel.bpf_stats_enabled=1, in sample mode (a CPU-bound workload, a
# syscall-heavy one, and the idle machine) and in read mode; beside it, the
# same figure for bpftrace's program doing the same work (stack ids of both
# sides and a count), under the same workload, for scale.
. "$(dirname "$0")/../bench_lib.sh"

SECS=4

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

# measure_bpftrace PROBE WORKLOAD [ACTION]: ns per event of bpftrace's program
# on PROBE doing ACTION (by default what flametop does: count both stacks).
measure_bpftrace() {
	local probe=$1 workload=$2 action=${3:-"@[kstack, ustack, comm] = count();"} wl= bt id
	[ -n "$workload" ] && { "$WORKLOADS/$workload" $((SECS + 3)) >/dev/null & wl=$!; }
	[ "$workload" = reader_ab ] && { sleep 0.2; kill -USR1 "$wl"; }
	id=$(newest_program_id)
	bpftrace -e "$probe { $action }" >/dev/null 2>&1 &
	bt=$!
	sleep "$SECS"
	bpftool prog show 2>/dev/null | awk -v after="$id" -F: '$1 > after' | run_cost | cut -d' ' -f1
	interrupt "$bt"
	[ -n "$wl" ] && { kill "$wl" 2>/dev/null; wait "$wl" 2>/dev/null; }
}

have_bpftrace=
ensure_package bpftrace bpftrace && have_bpftrace=1
# bt_cell V...: a table cell of bpftrace figures, or why there are none.
bt_cell() {
	if [ -n "$have_bpftrace" ]; then median_minmax "$@"; else echo "not run: no bpftrace"; fi
}
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
declare -A ns runs bt_ns
READ_PROBE='tracepoint:raw_syscalls:sys_enter /args->id == 0/'
declare -A probe=([sample]='profile:hz:99' [read]="$READ_PROBE")
[ -n "$have_bpftrace" ] && with_tracefs
cases=("sample|cpu_split|on_sample|" "sample|syscall_loop|on_sample|" "sample||on_sample|"
	"read|reader_ab|on_sys_enter_read|--mode read")
# Where a sample's cost comes from: bpftrace counting only, or walking one
# stack, beside flametop walking one stack (-K, -U). cpu_split is sampled in
# user mode (-K walks nothing there: flametop's own work alone), syscall_loop
# mostly in the kernel.
parts=("counts the sample, walks no stack|cpu_split|@ = count();|-K"
	"walks the user stack|cpu_split|@[ustack] = count();|-U"
	"walks the kernel stack|syscall_loop|@[kstack] = count();|-K")
declare -A part_bt part_ft
for _ in $(seq "$BENCH_RUNS"); do
	for c in "${cases[@]}"; do
		IFS='|' read -r mode wl prog flags <<<"$c"
		read -r n r <<<"$(measure "$prog" "$wl" $flags)"
		ns[$c]+="${n:-0} "
		runs[$c]=${r:-0}
		[ -n "$have_bpftrace" ] && bt_ns[$c]+="$(measure_bpftrace "${probe[$mode]}" "$wl") "
	done
	for p in "${parts[@]}"; do
		IFS='|' read -r _ wl action flags <<<"$p"
		[ -n "$have_bpftrace" ] &&
			part_bt[$p]+="$(measure_bpftrace 'profile:hz:99' "$wl" "$action") "
		part_ft[$p]+="$(measure on_sample "$wl" "$flags" | cut -d' ' -f1) "
	done
done
undo_tracefs
sysctl -qw kernel.bpf_stats_enabled="$old"

echo "## In-kernel cost per event"
echo
echo "run_time_ns / run_cnt of flametop's program (kernel.bpf_stats_enabled=1), $SECS s per run,"
echo "median of $BENCH_RUNS runs (min-max), kernel and user stacks walked. Target: <= 1500 ns per sample."
echo
echo "bpftrace: \`profile:hz:99\` (sample) or \`$READ_PROBE\` (read) with"
echo "\`@[kstack, ustack, comm] = count()\`, under the same workload."
echo
for c in "${cases[@]}"; do
	IFS='|' read -r mode wl prog flags <<<"$c"
	# shellcheck disable=SC2086
	printf '%s\t%s\t%s\t%s\t%s\n' "$mode" "${wl:-idle machine}" "$(median_minmax ${ns[$c]})" \
		"${runs[$c]}" "$(bt_cell ${bt_ns[$c]})"
done | md_table mode workload "flametop ns per event" "events in the last run" "bpftrace ns per event"
echo
echo "Where a sample's cost comes from (same runs): bpftrace's \`profile:hz:99\` doing"
echo "less, beside flametop walking one stack only. cpu_split is sampled in user mode, so"
echo "flametop -K walks no stack there: its own work alone (filters, the double buffer,"
echo "the count, the stats)."
echo
for p in "${parts[@]}"; do
	IFS='|' read -r what wl action flags <<<"$p"
	# shellcheck disable=SC2086
	printf '%s\t%s\t%s\t%s\n' "$what (bpftrace \`$action\`, flametop $flags)" "$wl" \
		"$(bt_cell ${part_bt[$p]})" "$(median_minmax ${part_ft[$p]})"
done | md_table "the program" workload "bpftrace ns per sample" "flametop ns per sample"
echo
own=$(median ${part_ft[${parts[0]}]})
uwalk=$(median ${part_bt[${parts[1]}]:-})
kwalk=$(median ${part_bt[${parts[2]}]:-})
echo "Where the time goes: at 99 Hz every sample starts with cold caches (on this VM a"
echo "page not in the TLB costs a walk of two page tables), so every cache line a sample"
echo "touches counts, and run to run the figures move by half. flametop's own work,"
echo "without a stack walk (the filters, the double buffer, the key's slot, the count, the"
echo "stats), costs $own ns a sample here; a key met again on a CPU is counted from that"
echo "CPU's memo of the keys it counted last, without a map lookup for the key or its"
echo "stacks. flametop walks user stacks itself, along the frame pointers, and stops"
echo "where a frame pointer does not lead up the stack; the kernel's walker, which"
echo "bpftrace's ustack uses, reads on into the number libc's start code leaves in the"
if [ -n "$have_bpftrace" ]; then
	echo "register and takes a fault there, most samples ($uwalk ns for bpftrace walking only"
	echo "the user stack). Kernel stacks are the kernel's ORC unwinder for both: $kwalk ns for"
	echo "bpftrace walking only the kernel stack$(awk -v k="$kwalk" 'BEGIN { if (k > 1500) printf ", alone more than the 1.5 us target" }')."
else
	echo "register and takes a fault there, most samples. Kernel stacks are the kernel's ORC"
	echo "unwinder for both (no bpftrace here to measure the walks alone)."
fi
echo "An idle CPU's stack is walked once per (ip, sp) and reused. Read mode's events come"
echo "back to back with warm caches: each stack is hashed in BPF and crosses to user space"
echo "once, and a key met again is counted from the memo."
