#!/usr/bin/env bash
# Stripped binaries named from their debug files, built here: a build-id
# debug file in a container's own root, a .gnu_debuglink (CRC checked), and
# MiniDebugInfo. Real BPF, names asserted. FIFOs where a debug file or the
# binary was are never opened.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "debug file tests" "not root: BPF programs can't be loaded (nor chroot)"
	exit 0
fi

# main -> debug_work -> debug_leaf spins for argv[1] seconds (tests/fixtures/debug_spin.c).
cp tests/fixtures/debug_spin.c "$TEST_TMP/spin.c"
CFLAGS_W="-O2 -g"
NAMED=';main;debug_work;debug_leaf [0-9]+$'

# profile NAME PID: two seconds of PID into $TEST_TMP/NAME.folded.
profile() {
	$FLAMETOP --folded --duration 2 -p "$2" >"$TEST_TMP/$1.folded" 2>"$TEST_TMP/$1.err"
}

# 1. A build-id debug file in the process's own root (a chroot), not on the host.
root=$TEST_TMP/root
mkdir -p "$root"
gcc $CFLAGS_W -static -Wl,--build-id=sha1 -o "$TEST_TMP/static_full" "$TEST_TMP/spin.c"
strip --strip-all -o "$root/spin" "$TEST_TMP/static_full"
id=$(readelf -n "$root/spin" | sed -n 's/.*Build ID: //p')
start_bg chroot "$root" /spin 3
profile nodebug "$bg_pid"
check "stripped, no debug file: frames are spin+0x... (no names)" \
	bash -c "grep -qE '^spin;.*spin\+0x[0-9a-f]+ [0-9]+$' '$TEST_TMP/nodebug.folded' &&
		! grep -q debug_leaf '$TEST_TMP/nodebug.folded'"
mkdir -p "$root/usr/lib/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug "$TEST_TMP/static_full" "$root/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
start_bg chroot "$root" /spin 3
profile buildid "$bg_pid"
check "build-id debug file in the container's root names it (main;debug_work;debug_leaf)" \
	grep -qE "^spin;.*$NAMED" "$TEST_TMP/buildid.folded"
check "no host path holds that debug file" test ! -e "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"

# 2. A .gnu_debuglink next to the binary, CRC-checked.
dl=$TEST_TMP/dl
mkdir -p "$dl"
gcc $CFLAGS_W -Wl,--build-id=none -o "$dl/full" "$TEST_TMP/spin.c"
objcopy --only-keep-debug "$dl/full" "$dl/linked.debug"
strip --strip-all -o "$dl/linked" "$dl/full"
(cd "$dl" && objcopy --add-gnu-debuglink=linked.debug linked)
start_bg "$dl/linked" 3
profile debuglink "$bg_pid"
check "a .gnu_debuglink debug file names it (main;debug_work;debug_leaf)" \
	grep -qE "^linked;.*$NAMED" "$TEST_TMP/debuglink.folded"
# Another build's debug file under that name: same layout, other names, other CRC.
gcc $CFLAGS_W -DOTHER -Wl,--build-id=none -o "$dl/other" "$TEST_TMP/spin.c"
objcopy --only-keep-debug "$dl/other" "$dl/linked.debug"
start_bg "$dl/linked" 3
profile badcrc "$bg_pid"
check "a debug file with the wrong CRC is ignored (linked+0x..., never wrong_leaf)" \
	bash -c "grep -qE '^linked;.*linked\+0x[0-9a-f]+ [0-9]+$' '$TEST_TMP/badcrc.folded' &&
		! grep -qE 'wrong_leaf|debug_leaf' '$TEST_TMP/badcrc.folded'"

# 3. MiniDebugInfo: the symbols xz-compressed into the binary's .gnu_debugdata.
md=$TEST_TMP/md
mkdir -p "$md"
gcc $CFLAGS_W -o "$md/full" "$TEST_TMP/spin.c"
nm --format=posix --defined-only "$md/full" | awk '$2 ~ /[Tt]/ { print $1 }' | sort >"$md/funcs"
nm -D --format=posix --defined-only "$md/full" | awk '{ print $1 }' | sort >"$md/dynsyms"
comm -23 "$md/funcs" "$md/dynsyms" >"$md/keep"
objcopy --only-keep-debug "$md/full" "$md/debug"
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$md/keep" \
	"$md/debug" "$md/mini"
xz -f "$md/mini"
strip --strip-all -o "$md/minidebug" "$md/full"
objcopy --add-section .gnu_debugdata="$md/mini.xz" "$md/minidebug"
check "the binary has no .symtab, only .gnu_debugdata" \
	bash -c "! readelf -SW '$md/minidebug' | grep -q ' .symtab' && readelf -SW '$md/minidebug' | grep -q gnu_debugdata"
start_bg "$md/minidebug" 3
profile minidebug "$bg_pid"
check "MiniDebugInfo names it (main;debug_work;debug_leaf)" \
	grep -qE "^minidebug;.*$NAMED" "$TEST_TMP/minidebug.folded"

# 4. Paths the process names that lead to FIFOs now: where its debug link
#    points, and its own binary, replaced once it runs. Neither is opened (a
#    writer waiting on each still waits), and nothing waits on them.
ff=$TEST_TMP/fifo
mkdir -p "$ff"
cp "$dl/linked" "$ff/linked" # its .gnu_debuglink names linked.debug
mkfifo "$ff/linked.debug"
start_bg "$ff/linked" 3
spin_pid=$bg_pid
for _ in $(seq 50); do grep -q "$ff/linked" "/proc/$spin_pid/maps" 2>/dev/null && break; sleep 0.1; done
rm "$ff/linked" && mkfifo "$ff/linked"
start_bg sh -c "echo x >'$ff/linked.debug'"
debug_writer=$bg_pid
start_bg sh -c "echo x >'$ff/linked'"
binary_writer=$bg_pid
timeout 30 $FLAMETOP --folded --duration 2 -p "$spin_pid" >"$TEST_TMP/fifo.folded" 2>"$TEST_TMP/fifo.err"
rc=$?
check "FIFOs at the paths a process names hold nothing up (flametop exits 0 in time)" test "$rc" = 0
check "its frames stay unnamed (linked+0x...)" \
	grep -qE '^linked;.*linked\+0x[0-9a-f]+ [0-9]+$' "$TEST_TMP/fifo.folded"
check "the FIFO where its debug link points is never opened (its writer still waits)" \
	bash -c "kill -0 $debug_writer 2>/dev/null"
check "the FIFO that replaced its mapped binary is never opened (its writer still waits)" \
	bash -c "kill -0 $binary_writer 2>/dev/null"
