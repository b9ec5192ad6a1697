#!/usr/bin/env bash
# make static: one binary that runs alone, with no library and no loader,
# in an empty root that holds only it (and /proc, /sys for the kernel).
. "$(dirname "$0")/../lib.sh"

if ! make -s static >"$TEST_TMP/make.log" 2>&1; then
	not_ok "make static builds"
	diag <"$TEST_TMP/make.log"
	exit 0
fi
ok "make static builds"
bin=build/static/flametop
check "the static binary needs no library and no loader" bash -c "! readelf -d '$bin' 2>/dev/null | grep -q NEEDED && ! readelf -lW '$bin' | grep -q INTERP"
check "ldd calls it not dynamic" bash -c "ldd '$bin' 2>&1 | grep -q 'not a dynamic executable'"

if [ "$(id -u)" != 0 ]; then
	skip "the static binary samples in an empty root" "needs root for a chroot and BPF"
	exit 0
fi
root=$TEST_TMP/root
mkdir -p "$root/proc" "$root/sys" "$root/tmp"
cp "$bin" "$root/flametop"
unshare -m bash -c "mount --rbind /proc '$root/proc' && mount --rbind /sys '$root/sys' &&
	exec chroot '$root' /flametop --folded --duration 1" >"$TEST_TMP/static.folded" 2>"$TEST_TMP/static.err"
rc=$?
check "the static binary samples in an empty root (exit $rc)" \
	bash -c "[ $rc = 0 ] && grep -q '_\[k\]' '$TEST_TMP/static.folded' && grep -q 'samples in' '$TEST_TMP/static.err'"
[ "$rc" = 0 ] || diag <"$TEST_TMP/static.err"
