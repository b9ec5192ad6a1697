#!/usr/bin/env bash
# Hostile input to the file viewer and the folded writer: counts that would
# wrap, a directory named as input, Unicode bidirectional controls in names.
# No privileges needed.
. "$(dirname "$0")/../lib.sh"

# Two maximal counts of one stack: saturated, not wrapped (a wrapped sum
# would be 0 and the stack would vanish), and said once on stderr.
max=18446744073709551615
printf 'a;d %s\na;d 1\nb;c 5\na;d %s\n' "$max" "$max" >"$TEST_TMP/max.folded"
$FLAMETOP -i "$TEST_TMP/max.folded" --folded >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
check "counts saturate: the stack keeps 2^64-1 (exit $rc)" \
	grep -qx "a;d $max" "$TEST_TMP/out"
check "counts saturate: the other stack is untouched" grep -qx 'b;c 5' "$TEST_TMP/out"
check "counts saturate: said once on stderr ($(head -c 200 "$TEST_TMP/err"))" \
	test "$(grep -c 'saturated' "$TEST_TMP/err")" = 1 -a "$(wc -l <"$TEST_TMP/err")" = 1

# A directory as input: one line that says so, exit 2 (reading it gave EIO).
for args in "--folded" "--svg $TEST_TMP/etc.svg"; do
	# shellcheck disable=SC2086
	$FLAMETOP -i /etc $args >"$TEST_TMP/out" 2>"$TEST_TMP/err"
	rc=$?
	check "-i /etc $args: exit 2 and one line, 'is a directory' (exit $rc: $(head -c 200 "$TEST_TMP/err"))" \
		test "$rc" = 2 -a "$(wc -l <"$TEST_TMP/err")" = 1 -a \
		"$(cat "$TEST_TMP/err")" = "flametop: -i /etc: is a directory"
done

# Unicode bidirectional controls in a folded file's names (U+202E RLO in a
# frame, U+2066 LRI and U+2069 PDI in a comm) are sanitized like control
# bytes: none reaches the output, each is one '?'.
printf 'ev\xe2\x81\xa6il\xe2\x81\xa9;main;a\xe2\x80\xaeb 3\nok;main 2\n' >"$TEST_TMP/bidi.folded"
$FLAMETOP -i "$TEST_TMP/bidi.folded" --folded >"$TEST_TMP/out" 2>"$TEST_TMP/err"
check "bidi controls in folded input: none in the output" \
	bash -c "! LC_ALL=C grep -qP '\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]' '$TEST_TMP/out'"
check "bidi controls in folded input: each one '?' ($(tr '\n' '|' <"$TEST_TMP/out"))" \
	grep -qx 'ev?il?;main;a?b 3' "$TEST_TMP/out"

# Folded output round-trips: names perf script gives with a ';', a user frame
# named like a kernel one ("x_[k]"), next to the frames they could be taken
# for ("a:b", the kernel's "x"), are written so that they read back as
# themselves, each apart; written again, the text is the same.
printf '%s\n' \
	'app 10 [000] 1.0: 1 cpu-clock:' \
	$'\tffffffff81000010 x+0x1 ([kernel.kallsyms])' \
	$'\t1000 a;b+0x4 (/bin/app)' \
	$'\t2000 main+0x4 (/bin/app)' \
	'' \
	'app 10 [000] 1.0: 1 cpu-clock:' \
	$'\t1100 a:b+0x4 (/bin/app)' \
	$'\t2000 main+0x4 (/bin/app)' \
	'' \
	'app 10 [000] 1.0: 1 cpu-clock:' \
	$'\t1200 x_[k]+0x4 (/bin/app)' \
	$'\t2000 main+0x4 (/bin/app)' \
	'' >"$TEST_TMP/names.perf"
$FLAMETOP -i "$TEST_TMP/names.perf" --folded >"$TEST_TMP/names.folded" 2>"$TEST_TMP/err"
$FLAMETOP -i "$TEST_TMP/names.folded" --folded >"$TEST_TMP/names2.folded" 2>>"$TEST_TMP/err"
check "folded round trip: three stacks, none merged ($(tr '\n' '|' <"$TEST_TMP/names.folded"))" \
	test "$(wc -l <"$TEST_TMP/names.folded")" = 3
check "folded round trip: written again, the same text" cmp -s "$TEST_TMP/names.folded" "$TEST_TMP/names2.folded"
check "folded round trip: 'a;b' and 'a:b' stay apart" \
	bash -c "grep -qxF 'app;main;a\\x3bb;x_[k] 1' '$TEST_TMP/names2.folded' && grep -qxF 'app;main;a:b 1' '$TEST_TMP/names2.folded'"
check "folded round trip: the user frame 'x_[k]' is not read back as the kernel's x" \
	grep -qxF 'app;main;x_[k\x5d 1' "$TEST_TMP/names2.folded"
$FLAMETOP -i "$TEST_TMP/names.folded" -U --folded >"$TEST_TMP/names_u.folded" 2>/dev/null
check "folded round trip: -U keeps the user frame 'x_[k]' (read back as a user frame)" \
	grep -qxF 'app;main;x_[k\x5d 1' "$TEST_TMP/names_u.folded"

# Every string into the SVG is sanitized: a pprof profile's sample type and
# unit with control bytes and bytes that are not UTF-8, an -i file name with
# control bytes, one that the title cuts inside a UTF-8 character. xmllint
# accepts each SVG, and Chromium runs its script and draws its frames.
/usr/bin/python3 - "$TEST_TMP/evil.pb" <<'EOT'
import sys
def varint(n):
    out = b''
    while True:
        b = n & 0x7f
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out
def field(num, payload):  # a length-delimited field
    return varint(num << 3 | 2) + varint(len(payload)) + payload
def num(num, n):
    return varint(num << 3) + varint(n)
strings = [b'', b'samp\x1bles\xff<', b'cou\x01nt\xc3', b'main', b'leaf']
msg = field(1, num(1, 1) + num(2, 2))                              # sample_type
msg += field(2, field(1, varint(2) + varint(1)) + field(2, varint(7)))  # sample: leaf, main; 7
msg += field(4, num(1, 1) + field(4, num(1, 1)))                     # location 1: main
msg += field(4, num(1, 2) + field(4, num(1, 2)))                     # location 2: leaf
msg += field(5, num(1, 1) + num(2, 3)) + field(5, num(1, 2) + num(2, 4))  # functions
msg += b''.join(field(6, s) for s in strings)
open(sys.argv[1], 'wb').write(msg)
EOT
evil_name=$'evil\x1b[31m\x01name.folded'
printf 'app;main;leaf 7\n' >"$TEST_TMP/$evil_name"
long_name=$(printf 'a%.0s' $(seq 110))$'\xc3\xa9.folded'
printf 'app;main;leaf 7\n' >"$TEST_TMP/$long_name"
# "flametop -i" of each: the pprof, the file with control bytes, and the long
# one named through 200 "./" so that its name is cut at 511 bytes, inside "é".
(
	cd "$TEST_TMP" || exit 1
	"$OLDPWD/$FLAMETOP" -i evil.pb --svg evil_pb.svg 2>/dev/null
	"$OLDPWD/$FLAMETOP" -i "$evil_name" --svg evil_name.svg 2>/dev/null
	"$OLDPWD/$FLAMETOP" -i "$(printf './%.0s' $(seq 200))$long_name" --svg long_name.svg 2>/dev/null
)
for svg in evil_pb evil_name long_name; do
	check "hostile strings ($svg): xmllint accepts the SVG ($(xmllint --noout "$TEST_TMP/$svg.svg" 2>&1 | head -c 200))" \
		xmllint --noout "$TEST_TMP/$svg.svg"
	chrome --dump-dom "file://$TEST_TMP/$svg.svg?s=leaf" >"$TEST_TMP/$svg.xml"
	check "hostile strings ($svg): Chromium runs the script and draws the frames" \
		bash -c "grep -q 'data-ready=\"1\"' '$TEST_TMP/$svg.xml' && grep -q 'Matched: 100.00% (7 ' '$TEST_TMP/$svg.xml'"
done
check "hostile strings: the sample type, sanitized, is the SVG's unit" \
	grep -q 'data-unit="samp?les?&lt;"' "$TEST_TMP/evil_pb.svg"
# ... and what flametop says of such a file on stderr holds no control byte
# either: the malformed lines of one, an error about another.
printf 'app;main 1\nmalformed\n' >"$TEST_TMP/$evil_name"
$FLAMETOP -i "$TEST_TMP/$evil_name" --folded >/dev/null 2>"$TEST_TMP/evil.err"
$FLAMETOP -i "$TEST_TMP/missing$evil_name" --folded >/dev/null 2>>"$TEST_TMP/evil.err"
check "hostile file names: stderr names them sanitized ($(tr '\n' '|' <"$TEST_TMP/evil.err"))" \
	bash -c "[ \$(grep -c 'evil?\[31m?name.folded' '$TEST_TMP/evil.err') = 2 ] &&
		! LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <'$TEST_TMP/evil.err')"

# Saturated counts stay on the canvas: two stacks of 2^64 - 1 side by side
# within the root, none drawn past its right edge.
printf 'a;x %s\nb;y %s\n' "$max" "$max" >"$TEST_TMP/sat.folded"
$FLAMETOP -i "$TEST_TMP/sat.folded" --svg "$TEST_TMP/sat.svg" 2>/dev/null
ends=$(xmllint --xpath "//*[local-name()='g'][contains(@class,'f ')]/*[local-name()='rect']" "$TEST_TMP/sat.svg" |
	grep -oE 'x="[0-9.]+"|width="[0-9.]+"' | awk -F'"' '/^x=/ { x = $2 } /^width=/ { print x + $2 }' | sort -n | tail -1)
check "saturated counts: every frame ends within the canvas (the last at $ends, the edge 1190)" \
	awk -v e="$ends" 'BEGIN { exit !(e > 1189 && e <= 1190.000001) }'
