#!/usr/bin/env bash
# Hand-offs, checked with the real consumers: the SVG flame graph in headless
# Chromium (its DOM after its script ran, and its picture) and xmllint; the
# pprof profile with Go's pprof; pprof profiles written by a real Go program
# and the text of a real `perf record -g` run read back with -i. None of this
# loads BPF programs.
. "$(dirname "$0")/../lib.sh"

FIXTURE=tests/fixtures/viewer.folded # 500 samples: cpu_split 420, bash 50, swapper/0 30

# need CMD PACKAGE: true when CMD is there; otherwise a skip saying make test installs it.
need() {
	command -v "$1" >/dev/null && return 0
	skip "$3" "$1 is missing (Debian's $2, which make test installs)"
	return 1
}

# xpath FILE EXPR: the value of an XPath expression over an SVG (namespaces ignored).
xpath() {
	xmllint --xpath "$2" "$1" 2>/dev/null
}

# near A B: |A - B| < 0.001.
near() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.001) }'
}

# frame_attr FILE NAME ATTR: ATTR of the rect of the frame whose title starts with NAME.
frame_attr() {
	xpath "$1" "string((//*[local-name()='g'][starts-with(*[local-name()='title'], '$2
')])[1]/*[local-name()='rect']/@$3)"
}

# 1. The SVG: well-formed, every frame drawn, widths exact, classes by kind.
SVG=$TEST_TMP/viewer.svg
$FLAMETOP -i "$FIXTURE" --svg "$SVG" 2>"$TEST_TMP/err"
check "--svg from -i writes an SVG" test -s "$SVG"
if need xmllint libxml2-utils "the SVG is well-formed XML"; then
	check "xmllint --noout accepts the SVG" xmllint --noout "$SVG"
	# all; cpu_split, main, work, leaf_a, leaf_b, setup; bash, main, readline, read, vfs_read;
	# swapper/0, do_idle, default_idle
	n=$(xpath "$SVG" "count(//*[local-name()='g'][contains(@class,'f ')])")
	check "one frame per node of the view: 15 ($n)" [ "$n" = 15 ]
	n=$(xpath "$SVG" "count(//*[local-name()='g'][contains(@class,' k')])")
	check "kernel frames carry class k: read, vfs_read, do_idle, default_idle ($n)" [ "$n" = 4 ]
	all_w=$(frame_attr "$SVG" all width)
	a=$(frame_attr "$SVG" leaf_a width)
	b=$(frame_attr "$SVG" leaf_b width)
	k=$(frame_attr "$SVG" "vfs_read [k]" width)
	check "the root spans the width less the margins ($all_w)" near "$all_w" 1180
	check "leaf_a is 300/500 of it ($a)" near "$a" "$(awk -v w="$all_w" 'BEGIN { print w * 300 / 500 }')"
	check "leaf_b is 100/500 of it ($b)" near "$b" "$(awk -v w="$all_w" 'BEGIN { print w * 100 / 500 }')"
	check "vfs_read is 50/500 of it ($k)" near "$k" "$(awk -v w="$all_w" 'BEGIN { print w * 50 / 500 }')"
	x=$(frame_attr "$SVG" leaf_b x)
	check "leaf_b starts where leaf_a ends ($x)" near "$x" "$(awk -v a="$a" 'BEGIN { print 10 + a }')"
	kf=$(frame_attr "$SVG" "vfs_read [k]" fill)
	uf=$(frame_attr "$SVG" leaf_a fill)
	check "kernel frames are blue, user frames warm ($kf, $uf)" bash -c "
		[[ '$kf' =~ rgb\\(([0-9]+),([0-9]+),([0-9]+)\\) ]] && (( BASH_REMATCH[3] > BASH_REMATCH[1] )) &&
		[[ '$uf' =~ rgb\\(([0-9]+),([0-9]+),([0-9]+)\\) ]] && (( BASH_REMATCH[1] > BASH_REMATCH[3] ))"
	check "no reference to anything outside the file" bash -c "! grep -qE '(href|src)=|https?://[^w]' '$SVG'"
	# -K: the same choices as the screen: kernel frames only, processes kept.
	$FLAMETOP -i "$FIXTURE" -K --svg "$TEST_TMP/k.svg" 2>/dev/null
	n=$(xpath "$TEST_TMP/k.svg" "count(//*[local-name()='g'][contains(@class,' u')])")
	check "-K --svg draws no user frame ($n)" [ "$n" = 0 ]
	check "-K --svg says so under the title" bash -c "grep -q 'kernel frames only' '$TEST_TMP/k.svg'"
fi

# 2. In a browser: the script runs; search and zoom change the DOM; the picture.
if need chromium chromium "the SVG in a browser"; then
	chrome --dump-dom "file://$SVG?s=leaf" >"$TEST_TMP/search.xml"
	check "Chromium ran the SVG's script" grep -q 'data-ready="1"' "$TEST_TMP/search.xml"
	check "search: 'leaf' matches 80.00% (leaf_a 300 + leaf_b 100 of 500)" \
		grep -q 'Matched: 80.00% (400 samples, 2 frames)' "$TEST_TMP/search.xml"
	n=$(xpath "$TEST_TMP/search.xml" "count(//*[local-name()='rect'][@fill='rgb(230,0,230)'])")
	check "search highlights the 2 matching frames ($n)" [ "$n" = 2 ]
	chrome --dump-dom "file://$SVG?s=read" >"$TEST_TMP/search2.xml"
	check "search: 'read' in readline > read > vfs_read counts their 50 samples once (10.00%)" \
		grep -q 'Matched: 10.00% (50 samples, 3 frames)' "$TEST_TMP/search2.xml"
	# Adjacent matched frames, each counted (leaf_a's written place differs from
	# leaf_b's end by a rounding, 1e-6: the search used to drop it), in any
	# case unless the text has a capital, as the screen's /: leaf_b 109 +
	# leaf_a 100 + Leaf_c 112 of 1974.
	printf '%s\n' 'app;main;spin 1653' 'app;main;work;leaf_b 109' 'app;main;work;leaf_a 100' \
		'app;main;Leaf_c 112' >"$TEST_TMP/adjacent.folded"
	$FLAMETOP -i "$TEST_TMP/adjacent.folded" --svg "$TEST_TMP/adjacent.svg" 2>/dev/null
	# matched QUERY: the Matched line after searching QUERY on load.
	matched() {
		chrome --dump-dom "file://$TEST_TMP/adjacent.svg?s=$1" | grep -o 'Matched: [0-9][^<]*'
	}
	m=$(matched _)
	check "search: adjacent frames each counted ($m)" [ "$m" = 'Matched: 16.26% (321 samples, 3 frames)' ]
	m=$(matched leaf)
	check "search: in any case without a capital ($m)" [ "$m" = 'Matched: 16.26% (321 samples, 3 frames)' ]
	m=$(matched Leaf)
	check "search: with a capital, case matters; one frame is '1 frame' ($m)" \
		[ "$m" = 'Matched: 5.67% (112 samples, 1 frame)' ]
	m=$(matched a)
	check "search: frames inside a matched one count once, by the tree; the root is no frame ($m)" \
		[ "$m" = 'Matched: 100.00% (1,974 samples, 5 frames)' ]
	chrome --dump-dom "file://$SVG?z=work" >"$TEST_TMP/zoom.xml"
	a=$(frame_attr "$TEST_TMP/zoom.xml" leaf_a width)
	w=$(frame_attr "$TEST_TMP/zoom.xml" work width)
	check "zoom into work: it takes the full width ($w)" near "$w" 1180
	check "zoom into work: leaf_a takes 300/400 of it ($a)" near "$a" 885
	n=$(xpath "$TEST_TMP/zoom.xml" "count(//*[local-name()='g'][contains(@style,'display: none')])")
	check "zoom into work: the frames beside it are hidden (bash's 5, swapper's 3, setup: $n)" [ "$n" = 9 ]
	h=$(xpath "$SVG" "string(/*/@height)")
	chrome --window-size=1200,"$h" --screenshot="$TEST_TMP/shot.png" "file://$SVG" >/dev/null
	# The picture: decode the PNG (build/tools/png_pixels, zlib's inflate) and read
	# pixels in the middle of known frames.
	ay=$(frame_attr "$SVG" leaf_a y)
	ky=$(frame_attr "$SVG" "vfs_read [k]" y)
	kx=$(frame_attr "$SVG" "vfs_read [k]" x)
	pixels=$(build/tools/png_pixels "$TEST_TMP/shot.png" \
		$((10 + 708 / 2)),$((${ay%.*} + 7)) $((${kx%.*} + 30)),$((${ky%.*} + 7)) 600,5)
	read -r pa pk pbg <<<"$pixels"
	check "picture: leaf_a's pixels are its fill ($pa, $uf)" [ "rgb($pa)" = "$uf" ]
	check "picture: vfs_read's pixels are its fill ($pk, $kf)" [ "rgb($pk)" = "$kf" ]
	check "picture: the background is the page's ($pbg)" [ "$pbg" = 246,246,240 ]
fi

# 3. pprof out: Go's pprof reads it, totals and top functions as in the folded output.
if need go golang-go "go tool pprof reads flametop's pprof"; then
	export GOCACHE=$TEST_TMP/gocache GOPATH=$TEST_TMP/gopath GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
	PB=$TEST_TMP/viewer.pb.gz
	$FLAMETOP -i "$FIXTURE" --pprof "$PB" --folded -o "$TEST_TMP/viewer.folded" 2>/dev/null
	go tool pprof -top -symbolize=none "$PB" >"$TEST_TMP/top.txt" 2>"$TEST_TMP/top.err"
	check "go tool pprof -top: 500 samples in all" grep -q 'accounting for 500, 100% of 500 total' "$TEST_TMP/top.txt"
	# Flat counts per function, from the folded leaves, against pprof's flat column.
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); leaf = f[k]; sub(/_\[k\]$/, "", leaf);
		s[leaf] += n } END { for (l in s) print l, s[l] }' "$TEST_TMP/viewer.folded" | sort >"$TEST_TMP/want"
	awk '/^ +[0-9]/ && $1 > 0 { print $6, $1 }' "$TEST_TMP/top.txt" | sort >"$TEST_TMP/got"
	check "top functions and their flat counts equal the folded output's" diff -u "$TEST_TMP/want" "$TEST_TMP/got"
	go tool pprof -raw -symbolize=none "$PB" >"$TEST_TMP/raw.txt" 2>/dev/null
	check "pprof -raw: comm labels on the samples" grep -q 'comm:\[cpu_split\]' "$TEST_TMP/raw.txt"
	check "pprof -raw: kernel frames in the [kernel.kallsyms] mapping" grep -q '\[kernel.kallsyms\]' "$TEST_TMP/raw.txt"
	# ... and back: -i reads it to the same folded stacks.
	$FLAMETOP -i "$PB" --folded >"$TEST_TMP/back.folded" 2>/dev/null
	check "-i of flametop's pprof gives the same folded stacks" diff -u "$TEST_TMP/viewer.folded" "$TEST_TMP/back.folded"

	# 4. A real Go program's CPU profile (runtime/pprof, standard library only).
	mkdir -p "$TEST_TMP/goprog"
	cat >"$TEST_TMP/goprog/main.go" <<'EOT'
package main

import (
	"os"
	"runtime/pprof"
	"time"
)

var sink uint64

//go:noinline
func hotLoop(n int) {
	for i := 0; i < n; i++ {
		sink += uint64(i) * 2654435761
	}
}

//go:noinline
func coldLoop(n int) {
	for i := 0; i < n; i++ {
		sink ^= uint64(i) >> 3
	}
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	pprof.StartCPUProfile(f)
	for end := time.Now().Add(600 * time.Millisecond); time.Now().Before(end); {
		hotLoop(3000000)
		coldLoop(1000000)
	}
	pprof.StopCPUProfile()
	f.Close()
}
EOT
	printf 'module goprog\n\ngo 1.19\n' >"$TEST_TMP/goprog/go.mod"
	if (cd "$TEST_TMP/goprog" && go build -o prog . && ./prog cpu.pprof) 2>"$TEST_TMP/go.err"; then
		GP=$TEST_TMP/goprog/cpu.pprof
		$FLAMETOP -i "$GP" --folded >"$TEST_TMP/go.folded" 2>"$TEST_TMP/go.ferr"
		check "-i reads Go's CPU profile ($(head -c 200 "$TEST_TMP/go.ferr"))" test -s "$TEST_TMP/go.folded"
		check "its stacks run main.main > main.hotLoop, under the process prog" \
			grep -qE '^prog;(.*;)?main\.main;main\.hotLoop [0-9]+$' "$TEST_TMP/go.folded"
		total=$(awk '{ s += $NF } END { print s }' "$TEST_TMP/go.folded")
		want=$(go tool pprof -raw -symbolize=none "$GP" 2>/dev/null |
			awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && /^ +[0-9]+ +[0-9]+:/ { s += $1 } END { print s }')
		check "the samples add up as pprof counts them ($total = $want)" [ "$total" = "$want" ]
		hot=$(folded_sum "$TEST_TMP/go.folded" 'main\.hotLoop$')
		cold=$(folded_sum "$TEST_TMP/go.folded" 'main\.coldLoop$')
		check "hotLoop has more samples than coldLoop ($hot > $cold)" [ "$hot" -gt "$cold" ]
	else
		not_ok "a Go program writes a CPU profile: $(head -c 300 "$TEST_TMP/go.err")"
	fi
fi

# 5. perf script: the text of a real perf record run (DWARF call graphs: the
# workloads have no frame pointers), read from stdin; perf names the inlined
# spin() as a frame of its own.
if need perf linux-perf "perf script | flametop -i -"; then
	if perf record -q --call-graph dwarf -F 499 -o "$TEST_TMP/perf.data" "$WORKLOADS/cpu_split" 2 \
		>/dev/null 2>"$TEST_TMP/perf.err"; then
		perf script -i "$TEST_TMP/perf.data" 2>/dev/null >"$TEST_TMP/perf.txt"
		$FLAMETOP -i - --folded <"$TEST_TMP/perf.txt" >"$TEST_TMP/perf.folded" 2>"$TEST_TMP/perf.ferr"
		samples=$(grep -cE '^[^[:space:]#]' "$TEST_TMP/perf.txt")
		total=$(awk '{ s += $NF } END { print s + 0 }' "$TEST_TMP/perf.folded")
		check "every sample perf printed is counted ($total of $samples)" [ "$total" = "$samples" ]
		# Each leaf's samples as perf's own text counts them (a sample whose frames
		# name the leaf), against flametop's stacks through main and work to it.
		for leaf in leaf_a leaf_b; do
			want=$(awk -v f="$leaf" 'BEGIN { RS = "" } $0 ~ "[ \t]" f "\\+0x" { n++ } END { print n + 0 }' \
				"$TEST_TMP/perf.txt")
			got=$(folded_sum "$TEST_TMP/perf.folded" "^cpu_split;.*main;work;$leaf(;spin)?(;[^;]*_\\[k\\])*\$")
			check "$leaf: every sample perf names it in, outermost frame first ($got of $want)" \
				[ "$got" = "$want" -a "$want" -gt 50 ]
		done
		check "no malformed line in perf's text ($(cat "$TEST_TMP/perf.ferr"))" test ! -s "$TEST_TMP/perf.ferr"
	else
		skip "perf script | flametop -i -" "perf record failed: $(head -c 200 "$TEST_TMP/perf.err")"
	fi
fi

# 6. Bad input of each format: one line, exit 2.
expect_bad() {
	local what=$1 re=$2 file=$3 rc lines
	$FLAMETOP -i "$file" --folded >/dev/null 2>"$TEST_TMP/err"
	rc=$?
	lines=$(wc -l <"$TEST_TMP/err")
	if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -qE "$re" "$TEST_TMP/err"; then ok "$what"; else
		not_ok "$what (exit $rc, $lines lines: $(head -c 300 "$TEST_TMP/err"))"
	fi
}
if [ -s "$TEST_TMP/viewer.pb.gz" ]; then
	head -c 60 "$TEST_TMP/viewer.pb.gz" >"$TEST_TMP/cut.pb.gz"
	expect_bad "a pprof profile cut short" 'not a pprof profile: corrupt or truncated gzip data' "$TEST_TMP/cut.pb.gz"
fi
printf '\x1f\x8b\x08\x00garbage' >"$TEST_TMP/junk.gz"
expect_bad "gzip garbage" 'not a pprof profile' "$TEST_TMP/junk.gz"
printf '\x0a\x02\x08\x01\x12\xff\xff' >"$TEST_TMP/junk.pb"
expect_bad "a protobuf that is not a profile" 'not a pprof profile: not a profile.proto message' "$TEST_TMP/junk.pb"
$FLAMETOP -i "$FIXTURE" --svg /nonexistent/dir/x.svg >/dev/null 2>"$TEST_TMP/err"
rc=$?
check "--svg to a path that can't be written: exit 2, one line ($(cat "$TEST_TMP/err"))" \
	bash -c "[ $rc = 2 ] && [ \$(wc -l <'$TEST_TMP/err') = 1 ] && grep -q -- '--svg /nonexistent/dir/x.svg' '$TEST_TMP/err'"

# 7. -p and --group on a file that names no process ids: one line that says so, exit 2.
for flag in "-p 12" "--group pid"; do
	# shellcheck disable=SC2086
	$FLAMETOP -i "$FIXTURE" $flag --folded >"$TEST_TMP/out" 2>"$TEST_TMP/err"
	rc=$?
	check "$flag on a file without pids: exit 2, one line that says so ($(cat "$TEST_TMP/err"))" \
		bash -c "[ $rc = 2 ] && [ \$(wc -l <'$TEST_TMP/err') = 1 ] && [ ! -s '$TEST_TMP/out' ] &&
			grep -q 'names no process ids' '$TEST_TMP/err'"
done
