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
