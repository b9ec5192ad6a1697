#!/usr/bin/env bash
# Code outside ordinary files: JIT code named by a perf map that the process
# wrote itself (and a planted map with the wrong owner, a symlink, or a
# root-only file the process bound over its map, ignored), anonymous
# executable memory labeled [anon], and vDSO functions.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "special mapping tests" "not root: BPF programs can't be loaded"
	exit 0
fi

NOBODY=65534
OTHER_UID=1 # daemon: neither the process's uid nor root
planted=()
trap 'rm -f "${planted[@]}"; cleanup_test' EXIT

# The JIT workload runs as nobody, from a directory nobody can read.
chmod 711 "$TEST_TMP"
mkdir -m 755 "$TEST_TMP/bin"
cp "$WORKLOADS/jit_spin" "$TEST_TMP/bin/"

# start_jit [write-map]: starts jit_spin as nobody; sets jit_pid, jit_addr, jit_size.
start_jit() {
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
		"$TEST_TMP/bin/jit_spin" 3 "$@" >"$TEST_TMP/jit.out" &
	jit_started
}

# start_jit_bound FILE: starts jit_spin as nobody in its own user and mount
# namespaces (unshare -Urm, no fork: the pid stays), with FILE bound over its
# /tmp/perf-PID.map there.
start_jit_bound() {
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups unshare -Urm sh -c \
		'touch /tmp/perf-$$.map && mount --bind "$1" /tmp/perf-$$.map && exec "$2" 3' \
		sh "$1" "$TEST_TMP/bin/jit_spin" >"$TEST_TMP/jit.out" &
	jit_started
}

# jit_started: the one just started is jit_pid; waits until it runs its code.
jit_started() {
	jit_pid=$!
	bg_pids+=("$jit_pid")
	planted+=("/tmp/perf-$jit_pid.map")
	for _ in $(seq 50); do grep -q . "$TEST_TMP/jit.out" && break; sleep 0.1; done
	read -r _ jit_addr jit_size <"$TEST_TMP/jit.out"
}

# profile_jit NAME: two seconds of the JIT workload into $TEST_TMP/NAME.folded.
profile_jit() {
	$FLAMETOP --folded --duration 2 -p "$jit_pid" >"$TEST_TMP/$1.folded" 2>"$TEST_TMP/$1.err"
}

if ! "$WORKLOADS/jit_spin" 0 >/dev/null; then
	skip "perf map tests" "jit_spin generates x86-64 code only"
else
	# 1. The process's own perf map names its JIT code.
	start_jit write-map
	check "the JIT wrote its own map, owned by its uid" \
		bash -c "[ \"\$(stat -c %u /tmp/perf-$jit_pid.map)\" = $NOBODY ]"
	profile_jit own
	check "JIT code is named from the process's perf map (;jit_spin_loop)" \
		grep -qE '^jit_spin;.*;jit_spin_loop [0-9]+$' "$TEST_TMP/own.folded"
	check "JIT code without unwind tables is stepped through by its frame record: _start;...;main;jit_spin_loop" \
		grep -qE '^jit_spin;_start;([^;]+;)*main;jit_spin_loop [0-9]+$' "$TEST_TMP/own.folded"

	# 2. A map planted by another user is ignored: the code stays [anon].
	start_jit
	echo "$jit_addr $jit_size planted_by_other" >"/tmp/perf-$jit_pid.map"
	chown "$OTHER_UID" "/tmp/perf-$jit_pid.map"
	profile_jit planted
	check "a perf map owned by another uid is ignored (;[anon], never planted_by_other)" \
		bash -c "grep -qE '^jit_spin;.*;\[anon\] [0-9]+$' '$TEST_TMP/planted.folded' &&
			! grep -q planted_by_other '$TEST_TMP/planted.folded'"

	# 3. A symlink in its place is not followed, even to a file of the right owner.
	start_jit
	echo "$jit_addr $jit_size planted_by_link" >"$TEST_TMP/bin/target.map"
	chown "$NOBODY" "$TEST_TMP/bin/target.map"
	ln -s "$TEST_TMP/bin/target.map" "/tmp/perf-$jit_pid.map"
	profile_jit link
	check "a perf map that is a symlink is ignored (;[anon], never planted_by_link)" \
		bash -c "grep -qE '^jit_spin;.*;\[anon\] [0-9]+$' '$TEST_TMP/link.folded' &&
			! grep -q planted_by_link '$TEST_TMP/link.folded'"

	# 4. One written by root is trusted.
	start_jit
	echo "$jit_addr $jit_size written_by_root" >"/tmp/perf-$jit_pid.map"
	profile_jit rootmap
	check "a perf map owned by root is used (;written_by_root)" \
		grep -qE '^jit_spin;.*;written_by_root [0-9]+$' "$TEST_TMP/rootmap.folded"

	# 5. A root-only file that the process, as root of its own user namespace,
	#    binds over its map: its owner is root, but the process may not read it,
	#    and flametop reads the map with the process's own access.
	secret="$TEST_TMP/bin/secret.map"
	: >"$secret"
	chmod 600 "$secret"
	if ! setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups unshare -Urm true 2>/dev/null; then
		skip "a root-only file bound over a perf map is not read" \
			"unprivileged user namespaces are disabled here"
	else
		start_jit_bound "$secret"
		echo "$jit_addr $jit_size root_only_secret" >"$secret" # the same inode, bound
		profile_jit bound
		check "a root-only file bound over the perf map in the process's namespaces is not read (;[anon], never root_only_secret)" \
			bash -c "grep -qE '^jit_spin;.*;\[anon\] [0-9]+$' '$TEST_TMP/bound.folded' &&
				! grep -q root_only_secret '$TEST_TMP/bound.folded'"
	fi
	rm -f "${planted[@]}"
fi

# 5. vDSO functions are named from the process's vDSO image. A vDSO frame
# left as [vdso]+0xOFF must lie where the image's own symbols name nothing:
# on a kvm-clock machine __vdso_clock_gettime calls a static function (the
# pvclock read) that only the kernel's build knows by name.
vdso_funcs() { # PID: "start end" of each function the vDSO's symbols name, image offsets
	local range i
	# Until the forked shell has exec'd the workload, its memory goes away
	# under a read (seen in CI: the read came out empty).
	for i in $(seq 50); do
		[[ "$(readlink "/proc/$1/exe")" == */clock_loop ]] && break
		sleep 0.02
	done
	range=$(awk '$NF == "[vdso]" { print $1; exit }' "/proc/$1/maps")
	[ -n "$range" ] || return 1
	dd if="/proc/$1/mem" of="$TEST_TMP/vdso.so" bs=4096 skip=$((0x${range%-*} / 4096)) \
		count=$(((0x${range#*-} - 0x${range%-*}) / 4096)) 2>/dev/null || return 1
	readelf -sW "$TEST_TMP/vdso.so" 2>/dev/null | while read -r _ value size type _; do
		[ "$type" = FUNC ] && echo "$((16#$value)) $((16#$value + size))"
	done
}
covered_offsets() { # FOLDED FUNCS: the [vdso]+0xOFF frames a function of FUNCS covers
	grep -oE '\[vdso\]\+0x[0-9a-f]+' "$1" | sort -u | while read -r f; do
		awk -v o="$((${f#*+}))" '$1 <= o && o < $2 { found = 1 } END { exit !found }' "$2" &&
			echo "$f"
	done
}
start_bg "$WORKLOADS/clock_loop" 3
vdso_funcs "$bg_pid" >"$TEST_TMP/vdso.funcs"
$FLAMETOP --folded --duration 2 -p "$bg_pid" >"$TEST_TMP/vdso.folded" 2>"$TEST_TMP/vdso.err"
check "vDSO frames are named (;__vdso_clock_gettime)" \
	grep -qE '^clock_loop;.*;__vdso_clock_gettime [0-9]+$' "$TEST_TMP/vdso.folded"
check "the vDSO image's symbols can be read (/proc/PID/mem)" test -s "$TEST_TMP/vdso.funcs"
covered=$(covered_offsets "$TEST_TMP/vdso.folded" "$TEST_TMP/vdso.funcs")
outside=$(grep -oE '\[vdso\]\+0x[0-9a-f]+' "$TEST_TMP/vdso.folded" | sort -u | tr '\n' ' ')
check "no vDSO frame the image's symbols cover is left unnamed (${covered:-none}; outside them: ${outside:-none})" \
	test -z "$covered"
check "the vDSO's stacks are whole: _start;...;main;clock_loop;clock_gettime;__vdso_clock_gettime" \
	grep -qE '^clock_loop;_start;([^;]+;)*main;clock_loop;clock_gettime[^;]*;__vdso_clock_gettime [0-9]+$' \
	"$TEST_TMP/vdso.folded"
