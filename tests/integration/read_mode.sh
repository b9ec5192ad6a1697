#!/usr/bin/env bash
# Read mode end to end: the hook chain, exact call counts, weights, filters.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "read mode tests" "not root: BPF programs can't be loaded"
	exit 0
fi

# run_window ARGS...: traces reader_ab between its start and stop signals with
# `flametop --folded --mode read -p PID ARGS`, once its unwind tables are in;
# leaves $TEST_TMP/ab.{out,folded,err}.
run_window() {
	"$WORKLOADS/reader_ab" 60 >"$TEST_TMP/ab.out" &
	local ab=$! newest
	bg_pids+=("$ab")
	newest=$(newest_program_id)
	$FLAMETOP --folded --mode read -p "$ab" "$@" >"$TEST_TMP/ab.folded" 2>"$TEST_TMP/ab.err" &
	local ft=$!
	wait_program_after "$newest" || echo "# flametop did not attach" >&2
	tables_settle
	kill -USR1 "$ab"
	sleep 1.5
	kill -USR2 "$ab"
	wait "$ab"
	sleep 0.2
	kill -INT "$ft"
	wait "$ft"
}

calls() { sed -nE "s/.*$1=([0-9]+).*/\\1/p" "$TEST_TMP/ab.out"; }

# 1. Calls: reader_a makes twice the calls of reader_b; every call is counted
# (the total also holds the few reads reader_ab makes while it waits).
run_window
a=$(folded_sum "$TEST_TMP/ab.folded" ';main;reader_a;')
b=$(folded_sum "$TEST_TMP/ab.folded" ';main;reader_b;')
total=$(folded_sum "$TEST_TMP/ab.folded" '.')
made=$(($(calls reader_a) + $(calls reader_b)))
check "both reader stacks appear (a=$a b=$b)" [ "$a" -gt 0 -a "$b" -gt 0 ]
if ratio_within "$a" "$b" 2 0.05; then ok "reader_a:reader_b is 2:1 within 5% ($a:$b)"; else
	not_ok "reader_a:reader_b is 2:1 within 5% ($a:$b)"; fi
if ratio_within "$total" "$made" 1 0.02; then ok "counted reads ($total) match the reads made ($made) within 2%"; else
	not_ok "counted reads ($total) match the reads made ($made) within 2%"; fi
check "libc's read() leads into the syscall entry frames" \
	grep -qE ";main;reader_a;$LIBC_READ;entry_SYSCALL_64[a-z_]*_\\[k\\];do_syscall_64_\\[k\\]" "$TEST_TMP/ab.folded"
check "the hook's own frames (BPF program, tracepoint glue) are not shown" \
	bash -c "! grep -qE '\[bpf\]|bpf_trace_run|__bpf_trace_|syscall_trace_enter' '$TEST_TMP/ab.folded'"
hook=$(grep 'reads in' "$TEST_TMP/ab.err")
check "the summary names the hook in use ($hook)" \
	grep -qE '^flametop: [0-9]+ reads in [0-9.]+ s \((fentry/vfs_read|kprobe/vfs_read|syscall-entry tracepoint)\)' <<<"$hook"
if grep -q 'syscall-entry tracepoint' <<<"$hook"; then
	check "stderr says why fentry and kprobe failed" \
		grep -qE '^flametop: hook: syscall-entry tracepoint \(fentry/vfs_read: [^;]+; kprobe/vfs_read: [^)]+\)$' "$TEST_TMP/ab.err"
	if [ -e /sys/bus/event_source/devices/kprobe ]; then
		skip "no kprobes: the reason says so" "this kernel has a kprobe PMU"
	else
		check "no kprobes: the reason says so" \
			grep -qE 'kprobe/vfs_read: (kernel built without kprobes|no kprobe PMU)' "$TEST_TMP/ab.err"
	fi
else
	skip "stderr says why fentry and kprobe failed" "a better hook attached here"
	skip "no kprobes: the reason says so" "a better hook attached here"
fi

# 2. --weight bytes: 1-byte reads weigh as much as their calls.
run_window --weight bytes
bytes=$(folded_sum "$TEST_TMP/ab.folded" '.')
made=$(($(calls reader_a) + $(calls reader_b)))
if ratio_within "$bytes" "$made" 1 0.02; then ok "--weight bytes: 1-byte reads count their bytes ($bytes of $made)"; else
	not_ok "--weight bytes: 1-byte reads count their bytes ($bytes of $made)"; fi
start_bg "$WORKLOADS/syscall_loop" 20 # ended below; long, for a slow start on a busy machine
$FLAMETOP --folded --mode read --weight bytes --duration 1 -p "$bg_pid" >"$TEST_TMP/bytes.folded" 2>/dev/null
check "--weight bytes: 64-byte reads count 64 bytes each" \
	bash -c "[ -s '$TEST_TMP/bytes.folded' ] && awk '\$NF % 64 { exit 1 }' '$TEST_TMP/bytes.folded'"
kill "$bg_pid"

# 2b. A thread that reads in a loop reads from the same place: its stacks
# come from its last walks, used again where every word they read is as it
# was (syscall_loop reads from one place; reader_ab above from three, in
# turn: only the stack's words tell them apart, and its counts say no read
# went to another's stack). Every 64th use is walked again and compared; the
# summary counts them, and none differs.
start_bg "$WORKLOADS/syscall_loop" 20
loop=$bg_pid
tables_settle
$FLAMETOP --folded --mode read --duration 1.5 -p "$loop" >"$TEST_TMP/loop.folded" 2>"$TEST_TMP/loop.err"
reads=$(sed -nE 's/^flametop: ([0-9]+) reads in .*/\1/p' "$TEST_TMP/loop.err")
reused=$(grep '^flametop: walks reused: ' "$TEST_TMP/loop.err")
memo_uses() { # SIDE: "USES CHECKED DIFFERED" of the summary's SIDE stacks
	sed -nE "s/.* ([0-9]+) $1 stacks as the thread's last walk found them \(([0-9]+) walked again to check: ([0-9]+) differed\).*/\1 \2 \3/p" <<<"$reused"
}
for side in kernel user; do
	read -r uses checked differed <<<"$(memo_uses "$side")"
	check "$side stacks: most reads ($uses of $reads) reuse the thread's last walk, $checked walked again to check" \
		bash -c "[ -n '$uses' ] && [ -n '$reads' ] && [ \$(( $uses * 2 )) -gt $reads ] && [ '$checked' -gt 0 ]"
	check "$side stacks: none of those checked differed ($differed)" [ "$differed" = 0 ]
done
# (Those before its tables were in end early, in a [truncated] frame: never on another stack.)
loop_stack="^syscall_loop;(_start;__libc_start_main;.*;main;read_zeros|\\[truncated\\](;[^;]+)*);$LIBC_READ;entry_SYSCALL_64[a-z_]*_\\[k\\];do_syscall_64_\\[k\\]\$"
on_it=$(folded_sum "$TEST_TMP/loop.folded" "$loop_stack")
check "every read is on the loop's stack ($on_it of $reads)" [ "$on_it" = "$reads" ]
sed -E 's/ [0-9]+$//' "$TEST_TMP/loop.folded" | grep -vE "$loop_stack" | cut -c1-300 | diag
kill "$loop"

# 3. -c keeps one command; without it both readers show.
start_bg "$WORKLOADS/syscall_loop" 20
loop=$bg_pid
"$WORKLOADS/reader_ab" 20 >/dev/null &
ab=$!
bg_pids+=("$ab")
sleep 0.2
kill -USR1 "$ab"
$FLAMETOP --folded --mode read --duration 1 -c syscall_loop >"$TEST_TMP/c.folded" 2>"$TEST_TMP/c.err"
$FLAMETOP --folded --mode read --duration 1 >"$TEST_TMP/all.folded" 2>/dev/null
check "without -c, both readers are traced" \
	bash -c "grep -q '^syscall_loop;' '$TEST_TMP/all.folded' && grep -q '^reader_ab;' '$TEST_TMP/all.folded'"
check "-c syscall_loop excludes every other process ($(grep -cv "^syscall_loop;" "$TEST_TMP/c.folded") other lines of $(wc -l <"$TEST_TMP/c.folded"))" \
	bash -c "[ -s '$TEST_TMP/c.folded' ] && ! grep -qv '^syscall_loop;' '$TEST_TMP/c.folded'"

grep -v "^syscall_loop;" "$TEST_TMP/c.folded" | cut -c1-200 | diag
[ -s "$TEST_TMP/c.folded" ] || diag <"$TEST_TMP/c.err"
kill "$loop" "$ab"

# 4. A workload that exits mid-run (reading for 1-2 s, then a few drains
# before the end) keeps its stacks, named; the run ends then.
"$WORKLOADS/reader_ab" 2 >"$TEST_TMP/exit.out" &
ab=$!
bg_pids+=("$ab")
newest=$(newest_program_id)
$FLAMETOP --folded --mode read -p "$ab" >"$TEST_TMP/exit.folded" 2>/dev/null &
ft=$!
wait_program_after "$newest"
tables_settle
kill -USR1 "$ab"
wait "$ab"
for _ in $(seq 50); do kill -0 "$ft" 2>/dev/null || break; sleep 0.1; done
check "the run ends by itself once its -p process has exited, as perf record -p's" \
	bash -c "! kill -0 $ft 2>/dev/null"
kill -INT "$ft" 2>/dev/null
wait "$ft"
made=$(sed -nE 's/reader_a=([0-9]+) reader_b=([0-9]+)/\1 \2/p' "$TEST_TMP/exit.out" | awk '{ print $1 + $2 }')
got=$(folded_sum "$TEST_TMP/exit.folded" ';main;reader_[ab];')
if ratio_within "$got" "${made:-0}" 1 0.02; then ok "an exited workload keeps its named stacks ($got of $made)"; else
	not_ok "an exited workload keeps its named stacks ($got of ${made:-?})"; fi

# 5. Stacks are sent to user space once and kept; when the seen map in use
# is 3/4 full a drain switches to the other one (empty), the next forgets
# what was not sent again and empties the one left. Counts keys take slots
# the same way: past 3/4 of a half of the slots, keys move to the other
# half (and its own empty key_slots map), and the half left is read once
# more and forgotten a drain later. With 64 entries of each and 50 call
# paths both happen at every other drain, while reads go on (bursts of 1000
# rounds, 9 of them: reads come after each map was switched to twice, so a
# map not emptied in between would show); every read still lands on its own
# named stack, none is lost or reported missing. The paths are 26 levels
# deep: 58 user frames with libc's read() and the start code. Every path's
# reads are counted from the first burst on, once stack_tree's unwind
# tables are in.
# tree_bursts PID N: N bursts of the stopped stack_tree PID, 0.7 s apart.
tree_bursts() {
	for _ in $(seq "$2"); do
		kill -USR1 "$1" && kill -CONT "$1"
		sleep 0.7
	done
}

"$WORKLOADS/stack_tree" 50 26 1000 &
tree=$!
bg_pids+=("$tree")
newest=$(newest_program_id)
$FLAMETOP --folded --mode read --stack-entries 64 --count-entries 64 -p "$tree" \
	>"$TEST_TMP/tree.folded" 2>"$TEST_TMP/tree.err" &
ft=$!
wait_program_after "$newest"
tables_settle
tree_bursts "$tree" 9
sleep 0.5
kill -INT "$ft"
wait "$ft"
paths=$(grep -cE '^stack_tree;.*;step;(left|right);step;' "$TEST_TMP/tree.folded")
# A burst reads as often on each path: every path counts the same.
counts=$(grep -E '^stack_tree;.*;main;step;' "$TEST_TMP/tree.folded" | awk '{ print $NF }' | sort -u)
check "50 call paths, each a named stack ($paths)" [ "$paths" -eq 50 ]
deep=$(grep -E "^stack_tree;.*;main;step;(.*;)?step;$LIBC_READ;" "$TEST_TMP/tree.folded" |
	awk -F';' '{ n = 0; for (i = 1; i <= NF; i++) n += $i == "step" } n == 27' | wc -l)
check "each path has all its 27 step frames, main to libc's read ($deep of 50 do)" [ "$deep" -eq 50 ]
one_count() { [ "$(wc -w <<<"$counts")" -eq 1 ] && [ "$counts" -ge 2000 ]; }
check "every path counts the same reads, over several drains (counts: $(echo $counts))" one_count
check "no read is lost and no stack reported missing ($(grep -o '[0-9]* lost.*' "$TEST_TMP/tree.err"))" \
	bash -c "! grep -qE 'stack lost|with a stack missing| [1-9][0-9]* lost' '$TEST_TMP/tree.folded' '$TEST_TMP/tree.err'"
one_count || diag <"$TEST_TMP/tree.err"

# 5b. Each CPU remembers the keys it counted last, with their slots, while
# its half of the slots and the stacks sent stay as they were. reader_ab's
# two keys come back hundreds of thousands of times a second, beside
# stack_tree's bursts, whose new stacks and keys fill 64-entry maps: once
# only the seen maps switch (a memo kept past that would leave the reader's
# stacks unsent, and the drain after forgets them), once only the halves of
# the slots (a memo kept past that counts reads in slots since forgotten).
# Every one of reader_ab's reads is counted on its own named stack, none
# lost or reported missing. Each runs on a CPU of its own where there are
# two, so that stack_tree's keys do not push the reader's out of its CPU's
# memo (which would hide a memo kept too long).
cpu0=() cpu1=()
[ "$(nproc)" -ge 2 ] && cpu0=(taskset -c 0) cpu1=(taskset -c 1)
memo_case() { # NAME FLAGS...: reader_ab beside stack_tree's bursts, traced with FLAGS
	local name=$1 ab tree ft made got_a got_b
	shift
	"${cpu0[@]}" "$WORKLOADS/reader_ab" 30 >"$TEST_TMP/memo.out" &
	ab=$!
	"${cpu1[@]}" "$WORKLOADS/stack_tree" 50 26 1000 &
	tree=$!
	bg_pids+=("$ab" "$tree")
	newest=$(newest_program_id)
	$FLAMETOP --folded --mode read "$@" -p "$ab,$tree" >"$TEST_TMP/memo.folded" 2>"$TEST_TMP/memo.err" &
	ft=$!
	wait_program_after "$newest"
	tables_settle
	kill -USR1 "$ab"
	tree_bursts "$tree" 6
	kill -USR2 "$ab"
	wait "$ab"
	kill -INT "$ft"
	wait "$ft"
	made=$(sed -nE 's/reader_a=([0-9]+) reader_b=([0-9]+)/\1 \2/p' "$TEST_TMP/memo.out" | awk '{ print $1 + $2 }')
	got_a=$(folded_sum "$TEST_TMP/memo.folded" '^reader_ab;.*;main;reader_a;')
	got_b=$(folded_sum "$TEST_TMP/memo.folded" '^reader_ab;.*;main;reader_b;')
	check "$name: every read of keys counted again and again is on its stack ($((got_a + got_b)) of ${made:-?})" \
		[ -n "$made" -a "$((got_a + got_b))" = "${made:-x}" ]
	check "$name: ... reader_a twice as often as reader_b ($got_a:$got_b)" [ "$got_a" = "$((2 * got_b))" ]
	check "$name: ... none lost or reported missing ($(grep -o '[0-9]* lost.*' "$TEST_TMP/memo.err"))" \
		bash -c "! grep -qE 'stack lost|with a stack missing| [1-9][0-9]* lost' '$TEST_TMP/memo.folded' '$TEST_TMP/memo.err'"
	kill "$tree" 2>/dev/null
}
memo_case "seen maps switching" --stack-entries 64 --count-entries 4096
memo_case "halves switching" --stack-entries 4096 --count-entries 64

# 6. A burst of new stacks right after the process is noted: the loop then
# leaves process notes alone for a quiet time, but stacks filling their ring
# buffer past a quarter still wake it. 5000 distinct paths, with 0.2 ms of
# sleep every 100 (~1.9 MiB of stacks and keys, more than the default 1 MiB
# ring holds, read within a quiet time, but not within a quarter's worth of
# time): none lost. (With the quiet time polling nothing, ~900 were lost.)
"$WORKLOADS/stack_tree" 5000 17 1 200 &
burst=$!
bg_pids+=("$burst")
newest=$(newest_program_id)
$FLAMETOP --folded --mode read -p "$burst" >"$TEST_TMP/burst.folded" 2>"$TEST_TMP/burst.err" &
ft=$!
wait_program_after "$newest"
tables_settle # also past startup (the kernel's symbols are read while capture starts)
kill -USR1 "$burst" && kill -CONT "$burst"
sleep 1.5
kill -INT "$ft"
wait "$ft"
paths=$(grep -cE '^stack_tree;.*;main;step;' "$TEST_TMP/burst.folded")
check "a burst of 5000 new stacks: each a named stack ($paths)" [ "$paths" -eq 5000 ]
check "... none lost ($(grep -o '[0-9]* lost.*' "$TEST_TMP/burst.err"))" \
	bash -c "! grep -qE 'stack lost|with a stack missing| [1-9][0-9]* lost' '$TEST_TMP/burst.folded' '$TEST_TMP/burst.err'"
