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
	# TEST_KEEP=1 keeps the files a failed test left, to look at.
	if [ -n "${TEST_KEEP:-}" ]; then echo "# kept $TEST_TMP" >&2; else rm -rf "$TEST_TMP"; fi
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

# libc's read() as flametop names it: with or without the symbol version
# libc's symbol table may give it (as it gives __libc_start_main@@GLIBC_2.34).
LIBC_READ='read(@@GLIBC_[0-9.]+)?'

# tables_settle: waits until a workload flametop has just seen has its unwind
# tables in. flametop builds a process's tables once it first sees the
# process (~40 ms here, more on a busy machine); until then the process's
# user stacks end early, in a [truncated] frame. The read workloads read now
# and then while they wait for their start signal, so that they are seen.
tables_settle() { sleep 1; }

# sampling_events PID: how many cpu-clock sampling events flametop PID holds
# open (its perf_event fds beyond the two dummy ones that watch kernel symbols).
sampling_events() {
	local n
	n=$(ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'perf_event')
	echo $((n > 2 ? n - 2 : 0))
}

# wait_sampling PID: until flametop PID samples (its programs loaded and
# attached: on a busy machine that can take seconds), or has ended (60 s at
# most).
wait_sampling() {
	for _ in $(seq 600); do
		[ "$(sampling_events "$1")" -gt 0 ] && return
		kill -0 "$1" 2>/dev/null || return
		sleep 0.1
	done
}

# end_of PID SECS: waits for flametop PID (started here) to end, killing it
# after SECS. Sets $rc, its exit status.
end_of() {
	for _ in $(seq $(($2 * 10))); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null # still there: it does not listen
	wait "$1"
	rc=$?
}

# interrupt_sampling PID SECS: once flametop PID (started here) samples,
# lets it sample for SECS, sends it SIGINT and waits for it to end (killing
# it after 10 s). Sets $took, the seconds from the SIGINT to its end, and
# $rc, its exit status.
interrupt_sampling() {
	local t0
	wait_sampling "$1"
	sleep "$2"
	t0=$(date +%s.%N)
	kill -INT "$1"
	end_of "$1" 10
	took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
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

# chrome ARGS...: headless Chromium with a fresh profile, no network, quiet
# (the SVG tests and make screenshots).
chrome() {
	local dir
	dir=$(mktemp -d "$TEST_TMP/chrome.XXXXXX")
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --hide-scrollbars \
		--user-data-dir="$dir" "$@" 2>/dev/null
}

. tests/bpf_progs.sh
