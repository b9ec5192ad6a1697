#!/usr/bin/env bash
# Bad input: one clear line on stderr and exit code 2, never a crash.
. "$(dirname "$0")/../lib.sh"

# expect_usage_error "what" regex args...: exit 2, one stderr line matching regex.
expect_usage_error() {
	local what=$1 re=$2
	shift 2
	"$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
	local rc=$? lines
	lines=$(wc -l <"$TEST_TMP/err")
	if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -qE -e "$re" "$TEST_TMP/err"; then
		ok "$what"
	else
		not_ok "$what (exit $rc, $lines lines: $(head -c 300 "$TEST_TMP/err"))"
	fi
}

expect_usage_error "unknown long flag" "unknown option '--bogus'" $FLAMETOP --bogus
expect_usage_error "unknown short flag" "unknown option '-x'" $FLAMETOP -x
expect_usage_error "missing value" "needs a value" $FLAMETOP --folded -F
expect_usage_error "-F not a number" "not a number" $FLAMETOP --folded -F abc
expect_usage_error "-F with trailing junk" "not a number" $FLAMETOP --folded -F 99x
expect_usage_error "-F negative" "not a number" $FLAMETOP --folded -F -5
expect_usage_error "-F 0" "at least 1 Hz" $FLAMETOP --folded -F 0
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
expect_usage_error "-F above perf_event_max_sample_rate ($max)" "above this kernel's limit of $max" \
	$FLAMETOP --folded --duration 1 -F $((max + 1))
expect_usage_error "-F absurdly large" "far above" $FLAMETOP --folded -F 99999999999999999999
expect_usage_error "-p not a number" "not a process id" $FLAMETOP --folded -p abc
expect_usage_error "-p empty item" "not a list of process ids" $FLAMETOP --folded -p 1,,2
expect_usage_error "-p of a process that does not exist" "-p 1073741000: no such process" \
	$FLAMETOP --folded --duration 1 -p 1073741000
expect_usage_error "-p with 65 processes" "at most 64 processes" $FLAMETOP --folded -p "$(seq -s, 1 65)"
expect_usage_error "unknown --weight" "unknown weight 'pages'" $FLAMETOP --folded --mode read --weight pages
expect_usage_error "-c longer than 15 bytes" "1 to 15 bytes" $FLAMETOP --folded -c abcdefghijklmnop
expect_usage_error "-K with -U" "exclude each other" $FLAMETOP --folded -K -U
expect_usage_error "unknown --mode" "unknown mode 'bogus'" $FLAMETOP --folded --mode bogus
expect_usage_error "--weight bytes in sample mode" "needs --mode read" $FLAMETOP --folded --weight bytes
expect_usage_error "--duration 0" "positive number of seconds" $FLAMETOP --folded --duration 0
expect_usage_error "--duration not a number" "positive number of seconds" $FLAMETOP --folded --duration soon
expect_usage_error "-d below 0.1" "between 0.1 and 3600" $FLAMETOP -d 0.01
expect_usage_error "stray argument" "unexpected argument 'extra'" $FLAMETOP --folded extra

if [ "$(id -u)" != 0 ]; then
	skip "not root: the message names the capabilities" "needs root to drop to an unprivileged user"
	skip "no BTF: the message says so" "needs root to hide /sys/kernel/btf"
	exit 0
fi
cp "$FLAMETOP" "$TEST_TMP/flametop" && chmod 755 "$TEST_TMP" "$TEST_TMP/flametop"
expect_usage_error "not root: the message names CAP_BPF and CAP_PERFMON" "root.*CAP_BPF and CAP_PERFMON" \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$TEST_TMP/flametop" --folded --duration 1
expect_usage_error "no BTF: the message names /sys/kernel/btf/vmlinux" "no BTF \(/sys/kernel/btf/vmlinux\)" \
	unshare -m bash -c "mount -t tmpfs none /sys/kernel/btf && exec $FLAMETOP --folded --duration 1"
