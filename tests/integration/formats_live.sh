#!/usr/bin/env bash
# --svg and --pprof of a live run, beside --folded of the same run: the three
# show the same samples (Go's pprof reads the profile; the SVG's widths are
# the folded counts' shares).
. "$(dirname "$0")/../lib.sh"

need_root "--svg and --pprof live" || exit 0
start_bg "$WORKLOADS/cpu_split" 30
split=$bg_pid
$FLAMETOP --folded -o "$TEST_TMP/run.folded" --svg "$TEST_TMP/run.svg" --pprof "$TEST_TMP/run.pb.gz" \
	--duration 2 -p "$split" 2>"$TEST_TMP/err"
rc=$?
check "a live run writes folded, SVG and pprof at once (exit $rc: $(head -c 200 "$TEST_TMP/err"))" \
	bash -c "[ $rc = 0 ] && [ -s '$TEST_TMP/run.folded' ] && [ -s '$TEST_TMP/run.svg' ] && [ -s '$TEST_TMP/run.pb.gz' ]"
total=$(awk '{ s += $NF } END { print s + 0 }' "$TEST_TMP/run.folded")
leaf_a=$(folded_sum "$TEST_TMP/run.folded" ';leaf_a$')              # stacks ending in it
through_a=$(folded_sum "$TEST_TMP/run.folded" ';leaf_a(;.*)?$')   # and those through it

if command -v xmllint >/dev/null; then
	check "the SVG is well-formed" xmllint --noout "$TEST_TMP/run.svg"
	svg_total=$(xmllint --xpath "string(/*/@data-total)" "$TEST_TMP/run.svg")
	check "the SVG counts the run's $total samples ($svg_total)" [ "$svg_total" = "$total" ]
	w_all=$(xmllint --xpath "string((//*[local-name()='g'][contains(@class,' r')])[1]/*[local-name()='rect']/@width)" "$TEST_TMP/run.svg")
	w_a=$(xmllint --xpath "sum(//*[local-name()='g'][starts-with(*[local-name()='title'], 'leaf_a
')]/*[local-name()='rect']/@width)" "$TEST_TMP/run.svg")
	# (xmllint prints a number to 6 significant digits: 1005.41 for 1005.408163,
	# a share off by up to 5e-6; one sample of the run is ~5e-3.)
	check "leaf_a's width is the share of the folded samples through it ($w_a of $w_all; $through_a of $total)" \
		awk -v a="$w_a" -v w="$w_all" -v n="$through_a" -v t="$total" \
		'BEGIN { d = a / w - n / t; if (d < 0) d = -d; exit !(t > 0 && d < 1e-5) }'
	check "the SVG's title names the hook and the rate" grep -qE 'flametop: perf_event (cpu-clock|cycles), 99 Hz' "$TEST_TMP/run.svg"
else
	skip "the live SVG" "xmllint is missing (Debian's libxml2-utils, which make test installs)"
fi

if command -v go >/dev/null; then
	export GOCACHE=$TEST_TMP/gocache GOPATH=$TEST_TMP/gopath GOPROXY=off GOTOOLCHAIN=local
	go tool pprof -raw -symbolize=none "$TEST_TMP/run.pb.gz" >"$TEST_TMP/raw.txt" 2>"$TEST_TMP/raw.err"
	check "pprof: two sample types, samples/count and cpu/nanoseconds" grep -q '^samples/count cpu/nanoseconds' "$TEST_TMP/raw.txt"
	check "pprof: the period is a 99 Hz tick" grep -q '^Period: 10101010$' "$TEST_TMP/raw.txt"
	check "pprof: samples carry the pid" grep -q "pid:\[$split\]" "$TEST_TMP/raw.txt"
	go tool pprof -top -symbolize=none -sample_index=samples "$TEST_TMP/run.pb.gz" >"$TEST_TMP/top.txt" 2>/dev/null
	check "go tool pprof -top counts the folded output's $total samples" \
		grep -q "of $total total" "$TEST_TMP/top.txt"
	flat=$(awk '$6 == "leaf_a" { print $1 }' "$TEST_TMP/top.txt")
	check "and leaf_a's $leaf_a ($flat)" [ "$flat" = "$leaf_a" ]
	# Named user functions carry their file, its build-id and their address in
	# it (binutils' word for both), so that pprof places them in the source.
	bin=$(readlink -f "$WORKLOADS/cpu_split")
	id=$(readelf -n "$bin" | awk '/Build ID/ { print $3 }')
	addr=$(printf '0x%x' "$((16#$(nm "$bin" | awk '$3 == "leaf_a" { print $1 }')))")
	check "pprof: cpu_split's mapping names its file and build-id ($id)" \
		grep -qE "^[0-9]+: 0x0/0xffffffffffffffff/0x0 $bin $id( |\$)" "$TEST_TMP/raw.txt"
	check "pprof: leaf_a is at its address in the file ($addr)" \
		grep -qE "^ +[0-9]+: $addr M=[0-9]+ leaf_a " "$TEST_TMP/raw.txt"
	go tool pprof -top -files -sample_index=samples "$TEST_TMP/run.pb.gz" >"$TEST_TMP/files.txt" 2>/dev/null
	flat=$(awk '$6 ~ /tests\/workloads\/cpu_split\.c$/ { print $1 }' "$TEST_TMP/files.txt")
	check "go tool pprof -files: cpu_split's leaves are in tests/workloads/cpu_split.c ($flat of $through_a + the rest)" \
		bash -c "[ -n '$flat' ] && [ '$flat' -ge '$leaf_a' ]"
	go tool pprof -top -lines -sample_index=samples "$TEST_TMP/run.pb.gz" >"$TEST_TMP/lines.txt" 2>/dev/null
	check "go tool pprof -lines: leaf_a has its line in cpu_split.c ($(grep -m1 leaf_a "$TEST_TMP/lines.txt"))" \
		grep -qE ' leaf_a tests/workloads/cpu_split\.c:[0-9]+$' "$TEST_TMP/lines.txt"
else
	skip "the live pprof" "go is missing (Debian's golang-go, which make test installs)"
fi

# The off-CPU SVG says its counts as times (µs, ms, s) in its totals line,
# its tooltips and the search's Matched line: offcpu_work's wait_a sleeps
# 30 ms at a time.
start_bg "$WORKLOADS/offcpu_work" sleep 30
sleep 1.2 # past its warm_up()
$FLAMETOP --mode offcpu --svg "$TEST_TMP/offcpu.svg" --duration 2 -p "$bg_pid" 2>"$TEST_TMP/err"
check "--mode offcpu --svg: the totals line is a time ($(grep -o 'id="subtitle"[^<]*' "$TEST_TMP/offcpu.svg"))" \
	grep -qE 'id="subtitle"[^>]*>[0-9]+\.[0-9]+ (ms|s) off-CPU time( |<)' "$TEST_TMP/offcpu.svg"
check "--mode offcpu --svg: wait_a's tooltip is a time" \
	grep -qzE '<title>wait_a.[0-9]+(\.[0-9]+)? (µs|ms|s) off-CPU time, [0-9.]+%</title>' "$TEST_TMP/offcpu.svg"
chrome --dump-dom "file://$TEST_TMP/offcpu.svg?s=wait_a" >"$TEST_TMP/offcpu.xml"
check "--mode offcpu --svg: the search's Matched line is a time ($(grep -o 'Matched: [0-9][^<]*' "$TEST_TMP/offcpu.xml"))" \
	grep -qE 'Matched: [0-9.]+% \([0-9]+(\.[0-9]+)? (µs|ms|s) off-CPU time, [0-9]+ frames?\)' "$TEST_TMP/offcpu.xml"

# bpftrace's own print of a map keyed by stacks, from a real run of a second
# while cpu_split and syscall_loop run: read as stacks (bpftrace's kstack the
# kernel frames, its ustack the user frames, the comm the process), every
# count kept; never processes named ", comm]:".
if command -v bpftrace >/dev/null; then
	start_bg "$WORKLOADS/syscall_loop" 30
	timeout 60 bpftrace -e 'profile:hz:99 { @[kstack, ustack, comm] = count(); }
		interval:s:1 { exit(); }' >"$TEST_TMP/bpftrace.txt" 2>"$TEST_TMP/bpftrace.err"
	$FLAMETOP -i "$TEST_TMP/bpftrace.txt" --folded >"$TEST_TMP/bt.folded" 2>"$TEST_TMP/bt.err"
	rc=$?
	entries=$(grep -cE '\]: [0-9]+$' "$TEST_TMP/bpftrace.txt")
	want=$(grep -oE '\]: [0-9]+$' "$TEST_TMP/bpftrace.txt" | awk '{ s += $2 } END { print s + 0 }')
	got=$(awk '{ s += $NF } END { print s + 0 }' "$TEST_TMP/bt.folded")
	check "bpftrace's print read ($entries entries; exit $rc: $(head -c 200 "$TEST_TMP/bt.err"))" \
		bash -c "[ $rc = 0 ] && [ $entries -gt 10 ] && [ ! -s '$TEST_TMP/bt.err' ]"
	check "every count bpftrace printed is kept ($got of $want)" [ "$got" = "$want" ]
	check "no process named after the key's punctuation" bash -c "! grep -qE '^(,|[^;]*\\]:)' '$TEST_TMP/bt.folded'"
	check "cpu_split's leaves are user frames of the process cpu_split" \
		grep -qE '^cpu_split;(.*;)?leaf_[ab] [0-9]+$' "$TEST_TMP/bt.folded"
	check "syscall_loop reads through kernel frames under its user frames" \
		grep -qE '^syscall_loop;([^;]*[^]];)+([^;]*_\[k\];)*vfs_read_\[k\](;|\ )' "$TEST_TMP/bt.folded"
else
	skip "bpftrace's print" "bpftrace is missing (Debian's bpftrace, which make test installs)"
fi
