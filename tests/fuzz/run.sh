#!/usr/bin/env bash
# Runs each fuzz target given (build/fuzz/fuzz_NAME) for FUZZ_SECONDS (default 180) from its
# seed corpus, tests/fuzz/corpus/NAME/ (the target's name without fuzz_). What a run finds goes
# to build/fuzz/corpus/NAME/, the input of a crash to build/fuzz/NAME-crash-* (make fuzz).
# Ends with one line, and fails when a target found something.
set -u
cd "$(dirname "$0")/../.." || exit 1

seconds=${FUZZ_SECONDS:-180}
failed=()
for bin in "$@"; do
	target=$(basename "$bin")
	name=${target#fuzz_}
	seeds=tests/fuzz/corpus/$name
	found=build/fuzz/corpus/$name
	mkdir -p "$found"
	echo "== $target: $seconds s from $seeds"
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" -max_total_time="$seconds" -print_final_stats=1 \
		-artifact_prefix="build/fuzz/$name-" "$found" "$seeds" >"build/fuzz/$name.log" 2>&1
	status=$?
	grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done)|ERROR|SUMMARY|fuzz_' \
		"build/fuzz/$name.log" | tail -n 30
	[ "$status" -eq 0 ] || failed+=("$target (build/fuzz/$name.log)")
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: found something: ${failed[*]}"
	exit 1
fi
echo "fuzz: $# targets ran $seconds s each, nothing found"
