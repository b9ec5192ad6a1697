# shellcheck shell=bash
# bpf_progs.sh: which BPF programs are loaded and attached, for the tests
# (tests/lib.sh) and the benchmarks (tests/bench_lib.sh) alike, so that both
# start measuring at the same moment: once flametop's program traces.

# newest_program_id: the highest id of any loaded BPF program (0 if none).
newest_program_id() {
	bpftool prog show 2>/dev/null | sed -nE 's/^([0-9]+): .*/\1/p' | sort -n | tail -n 1 | grep . || echo 0
}

# newest_map_id: the highest id of any BPF map (0 if none).
newest_map_id() {
	bpftool map show 2>/dev/null | sed -nE 's/^([0-9]+): .*/\1/p' | sort -n | tail -n 1 | grep . || echo 0
}

# map_after NAME ID: the id of the first map named NAME made after map ID
# (the flametop started after ID: other flametops made theirs before or
# after it, not both), or nothing.
map_after() {
	bpftool map show name "$1" 2>/dev/null | sed -nE 's/^([0-9]+): .*/\1/p' |
		awk -v after="$2" '$1 > after' | sort -n | head -n 1
}

# flametop_programs_after ID: ids of flametop's programs newer than ID, one
# per line. Other flametops (and an earlier run's programs, which linger a
# moment after it exits) have older ids.
flametop_programs_after() {
	bpftool prog show 2>/dev/null |
		sed -nE 's/^([0-9]+): .* name (on_sample|on_vfs_read_fentry|on_vfs_read_kprobe|on_sys_enter_read|on_sched_switch) .*/\1/p' |
		awk -v after="$1" '$1 > after'
}

# flametop_programs_of PID: ids of the flametop programs (those
# flametop_programs_after names) that process PID holds: a flametop's own,
# whatever other flametops on the machine load meanwhile.
flametop_programs_of() {
	local ids
	ids=$(grep -hs '^prog_id:' /proc/"$1"/fdinfo/* | awk '{ print $2 }')
	[ -n "$ids" ] && flametop_programs_after 0 | grep -Fx -f <(echo "$ids")
}

# attached_programs: ids of the programs BPF links hold, one per line.
attached_programs() {
	bpftool link show 2>/dev/null | sed -nE 's/.* prog ([0-9]+).*/\1/p'
}

# wait_program_after ID: until a flametop program newer than ID is loaded
# and attached (at most 10 s). A program is loaded before its hook is tried
# (read mode tries two hooks before the one that works here), so loaded alone
# is not yet tracing. Kernels whose perf events take programs without a BPF
# link show no link: there, loaded is all there is to wait for (3 s more).
wait_program_after() {
	local loaded i
	for i in $(seq 100); do
		loaded=$(flametop_programs_after "$1")
		if [ -n "$loaded" ]; then
			grep -qxF -f <(echo "$loaded") <(attached_programs) && return 0
			[ "$i" -ge 30 ] && [ -z "$(attached_programs)" ] && return 0
		fi
		sleep 0.1
	done
	return 1
}

# programs_gone_after ID: no flametop program newer than ID stays loaded
# (the kernel frees them a moment after exit; wait up to 3 s).
programs_gone_after() {
	for _ in $(seq 30); do
		[ -z "$(flametop_programs_after "$1")" ] && return 0
		sleep 0.1
	done
	return 1
}
