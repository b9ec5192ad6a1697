#!/usr/bin/env bash
# Files read for a process are read with its rights, and no file holds up a
# drain. Against root flametop, as nobody: a debug link that is a symlink
# to a root-only debug file, a root-only file bound at the build-id path in
# a user namespace's chroot, an execute-only binary (each: no names, where
# root's process gets them from the same files); 40 binaries whose debug
# link names a sparse 1 GiB file, and ten MiniDebugInfo bombs (no sample
# lost, and flametop on time). Real BPF.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "hostile file tests" "not root: BPF programs can't be loaded"
	exit 0
fi

NOBODY=65534
chmod 711 "$TEST_TMP"
mkdir -m 755 "$TEST_TMP/nb" "$TEST_TMP/pub"
chown $NOBODY:$NOBODY "$TEST_TMP/nb"
mkdir -m 700 "$TEST_TMP/secret"

# main -> debug_work -> debug_leaf spins for argv[1] seconds (tests/fixtures/debug_spin.c).
cp tests/fixtures/debug_spin.c "$TEST_TMP/spin.c"
NAMED=';main;debug_work;debug_leaf [0-9]+$'

# as_nobody CMD...: runs CMD as nobody, in the background ($bg_pid).
as_nobody() { start_bg setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; }

# as_nobody_niced CMD...: the same at the lowest priority: the crowds of
# spinners below are there to be sampled (one sample each is enough to
# have their files read), not to starve flametop of the CPU.
as_nobody_niced() { as_nobody nice -n 19 "$@"; }

# profile NAME PID: two seconds of PID into $TEST_TMP/NAME.folded (.err); then PID
# is stopped. (The workloads run long: on a busy machine flametop may take
# seconds to start, and a process gone before its names are read is read
# only files every user may read.)
profile() {
	sleep 0.3
	$FLAMETOP --folded --duration 2 -p "$2" >"$TEST_TMP/$1.folded" 2>"$TEST_TMP/$1.err"
	kill "$2" 2>/dev/null
}

# named NAME: the profile's stacks name debug_leaf (main;debug_work;debug_leaf).
named() { grep -qE "$NAMED" "$TEST_TMP/$1.folded"; }

# unnamed NAME BASE: no name from a debug file, only BASE+0x... frames.
unnamed() {
	grep -qE "^[^;]*;.*$2\+0x[0-9a-f]+ [0-9]+$" "$TEST_TMP/$1.folded" &&
		! grep -qE 'debug_leaf|debug_work' "$TEST_TMP/$1.folded"
}

# 1. A debug link beside nobody's copy of a stripped binary, a symlink to a
#    root-only (0600, in a 0700 directory) debug file: opened with nobody's
#    rights it is not there to read; root's process with the same link gets
#    its names.
gcc -O2 -g -Wl,--build-id=none -o "$TEST_TMP/full" "$TEST_TMP/spin.c"
objcopy --only-keep-debug "$TEST_TMP/full" "$TEST_TMP/secret/app.debug"
chmod 600 "$TEST_TMP/secret/app.debug"
strip --strip-all -o "$TEST_TMP/app" "$TEST_TMP/full"
(cd "$TEST_TMP/secret" && objcopy --add-gnu-debuglink=app.debug "$TEST_TMP/app")
for d in nb pub; do
	cp "$TEST_TMP/app" "$TEST_TMP/$d/app"
	ln -s "$TEST_TMP/secret/app.debug" "$TEST_TMP/$d/app.debug"
done
chown -h $NOBODY:$NOBODY "$TEST_TMP/nb/app" "$TEST_TMP/nb/app.debug"
start_bg "$TEST_TMP/pub/app" 60
profile link_root "$bg_pid"
check "root's process names its frames through the symlinked debug link" named link_root
as_nobody "$TEST_TMP/nb/app" 60
profile link_nobody "$bg_pid"
check "nobody's process does not: the root-only debug file is not read for it (app+0x...)" \
	unnamed link_nobody app
check "the summary says why ($(grep -o 'symbols: .*' "$TEST_TMP/link_nobody.err"))" \
	grep -qE 'symbols: .*1 debug file not read \(its process may not read it\)' \
	"$TEST_TMP/link_nobody.err"

# 2. A root-only debug file (0600, in a directory nobody can search) bound,
#    in nobody's user and mount namespaces, at the build-id path of a
#    chroot of nobody's: flametop looks in the process's root, with its
#    rights. The same bind of a file nobody may read names the frames.
if ! setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups unshare -Urm true 2>/dev/null; then
	not_ok "unprivileged user namespaces are needed (unshare -Urm as nobody)"
else
	gcc -O2 -g -static -Wl,--build-id=sha1 -o "$TEST_TMP/bid_full" "$TEST_TMP/spin.c"
	id=$(readelf -n "$TEST_TMP/bid_full" | sed -n 's/.*Build ID: //p')
	objcopy --only-keep-debug "$TEST_TMP/bid_full" "$TEST_TMP/pub/bid.debug"
	cp "$TEST_TMP/pub/bid.debug" "$TEST_TMP/pub/bid_secret.debug"
	chmod 600 "$TEST_TMP/pub/bid_secret.debug"
	root=$TEST_TMP/nb/root
	mkdir -p "$root/usr/lib/debug/.build-id/${id:0:2}"
	strip --strip-all -o "$root/spin" "$TEST_TMP/bid_full"
	touch "$root/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
	chown -R $NOBODY:$NOBODY "$root"
	# bound DEBUG_FILE NAME: the chrooted spin with DEBUG_FILE bound at its build-id path.
	bound() {
		as_nobody unshare -Urm sh -c 'mount --bind "$1" "$2/usr/lib/debug/.build-id/$3" &&
			exec chroot "$2" /spin 60' sh "$1" "$root" "${id:0:2}/${id:2}.debug"
		profile "$2" "$bg_pid"
	}
	bound "$TEST_TMP/pub/bid.debug" bind_readable
	check "a debug file nobody may read, bound at the build-id path in its chroot, names it" \
		named bind_readable
	bound "$TEST_TMP/pub/bid_secret.debug" bind_secret
	check "a root-only one bound there is not read for it (spin+0x...)" unnamed bind_secret spin
fi

# 3. An execute-only binary (0711, root's) with its symbols: nobody may run
#    it, not read it (nm says Permission denied). Reached through map_files,
#    it is not read for nobody's process: its frames are spin+0x..., and the
#    summary says why. Root's process of the same file is named.
cp "$TEST_TMP/full" "$TEST_TMP/pub/xo"
chmod 711 "$TEST_TMP/pub/xo"
check "nobody may not read the execute-only binary" \
	bash -c "! setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups nm '$TEST_TMP/pub/xo' >/dev/null 2>&1"
as_nobody "$TEST_TMP/pub/xo" 60
profile xo_nobody "$bg_pid"
check "nobody's process of an execute-only binary is not named from it (xo+0x...)" \
	unnamed xo_nobody xo
check "the summary says why, once ($(grep -o 'symbols: .*' "$TEST_TMP/xo_nobody.err"))" \
	grep -qE 'symbols: 1 file not read for a process that may not read it \(execute-only\)' \
	"$TEST_TMP/xo_nobody.err"
start_bg "$TEST_TMP/pub/xo" 60
profile xo_root "$bg_pid"
check "root's process of the same binary is named" named xo_root

# 4. 40 stripped binaries of nobody's, beside the sparse 1 GiB file their
#    debug link names: each CRC check read 1 GiB on the drain thread (24 s
#    late, 1,096 of 1,963 samples lost). A debug file that large beside its
#    binary is not read; nothing is lost and flametop ends on time.
# (Each in a directory of its own, so that all have one name for -c: -p with
# many pids makes the BPF programs take long to load.)
for i in $(seq 40); do
	mkdir "$TEST_TMP/nb/s$i"
	cp "$TEST_TMP/app" "$TEST_TMP/nb/s$i/sparse"
	truncate -s 1G "$TEST_TMP/nb/s$i/app.debug" # where its debug link points
done
chown -R $NOBODY:$NOBODY "$TEST_TMP/nb"
pids=()
for i in $(seq 40); do
	as_nobody_niced "$TEST_TMP/nb/s$i/sparse" 60
	pids+=("$bg_pid")
done
# sample_named NAME: the processes named NAME sampled for 3 s, then SIGINT.
# Sets $lost, the events lost in the summary, $took, the seconds from the
# SIGINT to the end (a liveness bound: at most 2, with margin, the machine
# being shared; 0.1-0.5 s here), and $rc, the exit status.
sample_named() {
	start_bg $FLAMETOP --folded -c "$1" -o "$TEST_TMP/$1.folded" 2>"$TEST_TMP/$1.err"
	interrupt_sampling "$bg_pid" 3
	lost=$(sed -n 's/.* \([0-9][0-9]*\) lost.*/\1/p' "$TEST_TMP/$1.err" | head -n 1)
}
sample_named sparse
check "40 sparse 1 GiB debug link candidates: no sample lost (${lost:-?} lost)" test "${lost:-1}" = 0
check "... and flametop ends within 2 s of SIGINT (${took} s, exit ${rc})" \
	awk -v t="$took" -v rc="$rc" 'BEGIN { exit !(t <= 2 && rc == 0) }'
check "... and the summary says why they were not read ($(grep -o 'symbols: .*' "$TEST_TMP/sparse.err"))" \
	grep -qE '[0-9]+ debug files? not read \(too large beside its binary\)' "$TEST_TMP/sparse.err"
kill "${pids[@]}" 2>/dev/null

# 5. Ten binaries whose MiniDebugInfo unpacks to 256 MiB of zeros (each
#    unpacked to 256 MiB on the drain thread: 10.7 s, 346 MB). It is
#    unpacked in a thread, to 32 MiB at most: nothing lost, on time.
head -c 256M /dev/zero | xz -1 >"$TEST_TMP/bomb.xz"
pids=()
for i in $(seq 10); do
	mkdir "$TEST_TMP/nb/b$i"
	strip --strip-all -o "$TEST_TMP/nb/b$i/bomb" "$TEST_TMP/full"
	objcopy --add-section .gnu_debugdata="$TEST_TMP/bomb.xz" "$TEST_TMP/nb/b$i/bomb"
	chown -R $NOBODY "$TEST_TMP/nb/b$i"
	as_nobody_niced "$TEST_TMP/nb/b$i/bomb" 60
	pids+=("$bg_pid")
done
sample_named bomb
check "ten MiniDebugInfo bombs: no sample lost (${lost:-?} lost)" test "${lost:-1}" = 0
check "... and flametop ends within 2 s of SIGINT (${took} s, exit ${rc})" \
	awk -v t="$took" -v rc="$rc" 'BEGIN { exit !(t <= 2 && rc == 0) }'
check "... and the summary says why ($(grep -o 'symbols: .*' "$TEST_TMP/bomb.err"))" \
	grep -qE '[0-9]+ debug files? not read \(MiniDebugInfo past 32 MiB unpacked\)' \
	"$TEST_TMP/bomb.err"
kill "${pids[@]}" 2>/dev/null
