# shellcheck shell=bash
# lib.sh: what the integration and terminal tests share. Tests print TAP
# ("ok N - what", "not ok N - what", "ok N - what # SKIP why"); tests/run.sh
# counts the lines.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

FLAMETOP=${FLAMETOP:-./flametop}
WORKLOADS=build/workloads
TEST_TMP=$(mktemp -d /tmp/flametop-test.XXXXXX)
tap_n=0
bg_pids=()

cleanup_test() {
	# A stopped workload gets the TERM only once continued.
	for p in "${bg_pids[@]}"; do kill "$p" 2>/dev/null && kill -CONT "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TEST_TMP"
}
trap cleanup_test EXIT

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
diag() { sed 's/^/# /'; }

# check "what" command...: ok when the command succeeds.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# need_root "what": true when root; otherwise prints a skip with the reason.
need_root() {
	[ "$(id -u)" = 0 ] && return 0
	skip "$1" "needs root to load BPF programs"
	return 1
}

# start_bg cmd...: runs a command in the background; its pid is in $bg_pid.
start_bg() {
	"$@" &
	bg_pid=$!
	bg_pids+=("$bg_pid")
}

# folded_sum FILE REGEX: sum of the counts of lines whose stack matches REGEX.
folded_sum() {
	awk -v re="$2" '{ n = $NF; sub(/ [0-9]+$/, ""); if ($0 ~ re) s += n } END { print s + 0 }' "$1"
}

# ratio_within A B TARGET TOLERANCE: |A/B - TARGET| <= TOLERANCE * TARGET.
ratio_within() {
	awk -v a="$1" -v b="$2" -v t="$3" -v tol="$4" \
		'BEGIN { if (b == 0) exit 1; r = a / b; d = r - t; if (d < 0) d = -d; exit !(d <= tol * t) }'
}

# newest_program_id: the highest id of any loaded BPF program (0 if none).
newest_program_id() {
	bpftool prog show 2>/dev/null | sed -nE 's/^([0-9]+): .*/\1/p' | sort -n | tail -n 1 | grep . || echo 0
}

# flametop_programs_after ID: ids of flametop's programs newer than ID, one
# per line. Other flametops (and an earlier run's programs, which linger a
# moment after it exits) have older ids.
flametop_programs_after() {
	bpftool prog show 2>/dev/null |
		sed -nE 's/^([0-9]+): .* name (on_sample|on_vfs_read_fentry|on_vfs_read_kprobe|on_sys_enter_read) .*/\1/p' |
		awk -v after="$1" '$1 > after'
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
