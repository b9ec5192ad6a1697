#!/usr/bin/env bash
# A long session does not grow without bound: over --max-stacks, the stacks
# of exited processes fold into their command's (then the rarest into
# "comm;[other]"), and every count stays. Process churn makes a new
# process id, and so new stacks, hundreds of times a second.
. "$(dirname "$0")/../lib.sh"

need_root "a profile over --max-stacks folds" || exit 0
start_bg "$WORKLOADS/churn" 400 0
sleep 0.3
$FLAMETOP --folded --duration 4 -F 999 -c churn-a --group pid --max-stacks 64 \
	>"$TEST_TMP/churn.folded" 2>"$TEST_TMP/churn.err"
rc=$?
summary=$(grep 'samples in' "$TEST_TMP/churn.err")
samples=$(sed -nE 's/^flametop: ([0-9]+) samples in .*/\1/p' <<<"$summary")
lost=$(sed -nE 's/.* ([0-9]+) lost.*/\1/p' <<<"$summary")
folded=$(sed -nE 's/.*, ([0-9]+) stacks folded \(--max-stacks 64\).*/\1/p' <<<"$summary")
counted=$(folded_sum "$TEST_TMP/churn.folded" '.')
stacks=$(wc -l <"$TEST_TMP/churn.folded")
check "at most 64 stacks kept under churn ($stacks; exit $rc)" test "$stacks" -le 64 -a "$rc" = 0
check "the summary says how many stacks folded ($summary)" test "${folded:-0}" -gt 0
check "every sample counted: counted ($counted) + lost ($lost) = samples ($samples)" \
	[ -n "$samples" -a "$((counted + lost))" = "$samples" ]
check "exited processes' stacks folded into their command's (no pid)" \
	grep -qE '^churn-a;' "$TEST_TMP/churn.folded"
