#!/usr/bin/env bash
# Runs every test and ends with one line: "N passed, N failed".
#
# Unit tests are cmocka programs (plain and sanitized builds); integration and
# terminal tests are scripts under tests/integration/. Both speak TAP
# ("ok N - name", "not ok N - name", "ok N - name # SKIP reason"). With
# CI=true a skipped test counts as failed: in CI every test must really run.
set -u
cd "$(dirname "$0")/.."

passed=0 failed=0 skipped=0
failures=()

# tally NAME OUTPUT STATUS: counts the TAP lines of one test program.
tally() {
	local name=$1 out=$2 status=$3 n_ok n_fail n_skip
	local skip_re='^(not )?ok [0-9]+.*# (SKIP|skip)'
	n_ok=$(grep -E '^ok [0-9]+' <<<"$out" | grep -cvE "$skip_re" || true)
	n_skip=$(grep -cE "$skip_re" <<<"$out" || true)
	n_fail=$(grep -E '^not ok [0-9]+' <<<"$out" | grep -cvE "$skip_re" || true)
	while IFS= read -r line; do
		failures+=("$name: ${line#not ok }")
	done < <(grep -E '^not ok [0-9]+' <<<"$out" | grep -vE "$skip_re" || true)
	while IFS= read -r line; do
		echo "  skipped: $name: ${line#*# }"
		[ "${CI:-}" = true ] && failures+=("$name: skipped in CI: ${line#*# }")
	done < <(grep -E "$skip_re" <<<"$out" || true)
	if [ "${CI:-}" = true ]; then
		n_fail=$((n_fail + n_skip))
	else
		skipped=$((skipped + n_skip))
	fi
	# A program that died without reporting a failure still failed.
	if [ "$status" -ne 0 ] && [ "$n_fail" -eq 0 ]; then
		n_fail=1
		failures+=("$name: exited with status $status")
	fi
	passed=$((passed + n_ok))
	failed=$((failed + n_fail))
	printf '%-44s %3d passed, %d failed%s\n' "$name" "$n_ok" "$n_fail" \
		"$([ "$n_skip" -gt 0 ] && echo ", $n_skip skipped")"
}

run_one() {
	local name=$1; shift
	local out status
	out=$("$@" 2>&1)
	status=$?
	if [ -n "${VERBOSE:-}" ] || [ "$status" -ne 0 ]; then
		grep -vE '^(ok|# )' <<<"$out" | sed 's/^/    /' | tail -n 60
	fi
	tally "$name" "$out" "$status"
}

export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

for t in build/tests/test_*; do
	[ -x "$t" ] && run_one "unit/$(basename "$t")" "$t"
done
for t in build/tests/asan/test_*; do
	[ -x "$t" ] && run_one "asan/$(basename "$t")" "$t"
done
for t in tests/integration/*.sh; do
	[ -f "$t" ] && run_one "$(basename "$t" .sh)" bash "$t"
done

if [ ${#failures[@]} -gt 0 ]; then
	echo "failures:"
	printf '  %s\n' "${failures[@]}"
fi
[ "$skipped" -gt 0 ] && echo "($skipped skipped, reasons above)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
