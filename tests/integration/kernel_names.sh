#!/usr/bin/env bash
# Kernel frames of code loaded after flametop started: a second flametop in
# read mode loads a BPF program that runs on every read of a read-heavy
# workload; the first one, sampling, must name its frames (the kernel
# table is read again), never give them an older program's name.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "kernel naming tests" "not root: BPF programs can't be loaded"
	exit 0
fi

# The sampler runs until the second flametop is done, however long that one
# takes to load on a busy machine, then gets SIGINT (its stacks are written
# then, as at the end of --duration).
start_bg "$WORKLOADS/syscall_loop" 60
loop_pid=$bg_pid
before=$(newest_program_id)
$FLAMETOP --folded -p "$loop_pid" >"$TEST_TMP/sample.folded" 2>"$TEST_TMP/sample.err" &
sampler=$!
wait_program_after "$before"
sleep 1
$FLAMETOP --folded --mode read --duration 2 -p "$loop_pid" >/dev/null 2>"$TEST_TMP/read.err"
read_rc=$?
sleep 0.5
kill -INT "$sampler"
end_of "$sampler" 10
check "the second flametop traced reads (exit $read_rc)" [ "$read_rc" = 0 ]
check "the sampler named the program loaded after it started (bpf_prog_<tag>_on_sys_enter_read [bpf])" \
	grep -qE ';bpf_prog_[0-9a-f]+_on_sys_enter_read \[bpf\]_\[k\]' "$TEST_TMP/sample.folded"
check "no frame of the read path was left [unknown] or given another program's name" \
	bash -c "! grep -E 'syscall_trace_enter_\[k\];(.*;)?(\[unknown\]|bpf_prog_[0-9a-f]+_on_sample[^;]*)_\[k\]' '$TEST_TMP/sample.folded'"
