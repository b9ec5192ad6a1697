#!/usr/bin/env bash
# The fuzz targets (tests/fuzz/fuzz_*.c, make fuzz) keep building and pass
# over their seed corpora: each runs every seed once (-runs=0), as libFuzzer
# with ASan and UBSan; a target that crashes, reports or aborts fails.
. "$(dirname "$0")/../lib.sh"

for src in tests/fuzz/fuzz_*.c; do
	target=$(basename "$src" .c)
	name=${target#fuzz_}
	bin=build/fuzz/$target
	if [ ! -x "$bin" ]; then
		not_ok "$target is built ($bin: make build-tests builds it)"
		continue
	fi
	seeds=$(find "tests/fuzz/corpus/$name" -type f 2>/dev/null | wc -l)
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" -runs=0 -artifact_prefix="$TEST_TMP/$name-" "tests/fuzz/corpus/$name" \
		>"$TEST_TMP/$name.log" 2>&1
	rc=$?
	diag <"$TEST_TMP/$name.log" | grep -E 'ERROR|SUMMARY|fuzz_' | head -n 20
	check "$target runs over its $seeds seeds (exit $rc)" \
		bash -c "[ $rc = 0 ] && [ $seeds -gt 0 ] && grep -q 'Done [0-9]* runs' '$TEST_TMP/$name.log'"
done
