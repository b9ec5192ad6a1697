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
