#!/usr/bin/env bash
# Which line is hot: --annotate's table (the annotate view's, on stdout)
# against programs whose answer is known by construction, against perf,
# against libc's own sources, and without line information; then the view
# in a terminal; then line tables that lie.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tmux.sh"
trap 'screen_stop; cleanup_test' EXIT

W=$WORKLOADS/annotate_work
SRC=tests/workloads/annotate_work.c

need_root "annotate" || exit 0

# line_of MARK: the line of annotate_work.c that the comment MARK ends.
line_of() { grep -n "/\* $1 \*/" "$SRC" | cut -d: -f1; }
HOT_A=$(line_of HOT_A) HOT_B=$(line_of HOT_B)
CALL_CHEAP=$(line_of CALL_CHEAP) CALL_DEAR=$(line_of CALL_DEAR)

# column FILE LOCATION N: column N (1 Self%, 2 Calls%, 3 Count) of the table's row at
# LOCATION ("annotate_work.c:34", "1394:"), without its '%'; 0 when no row is there.
column() {
	awk -v loc="$2" -v n="$3" '$4 == loc { v = $n; sub(/%$/, "", v); print v; found = 1; exit }
		END { if (!found) print 0 }' "$1"
}

# self_sum FILE: the Self% of every row of the table.
self_sum() { awk '$1 ~ /%$/ && $4 ~ /:/ { v = $1; sub(/%$/, "", v); s += v } END { print s + 0 }' "$1"; }

# near A B POINTS: |A - B| <= POINTS.
near() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= p) }'; }

# at_least A B: A >= B.
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

# start CMD...: runs a workload in the background, its pid in $pid, and lets it start.
start() {
	"$@" >/dev/null 2>&1 &
	pid=$!
	bg_pids+=("$pid")
	sleep 0.5
}

# annotate NAME ARGS...: flametop --annotate ARGS, its table in $TEST_TMP/NAME.table
# (also $T, and shown as a diagnostic); its exit status.
annotate() {
	local name=$1 rc
	shift
	T=$TEST_TMP/$name.table
	$FLAMETOP --annotate "$@" >"$T" 2>"$TEST_TMP/$name.err"
	rc=$?
	diag <"$T"
	return $rc
}

# annotate_with_perf NAME SYMBOL MODE: annotate_work MODE, annotated by flametop (999 Hz,
# 6 s) and, while flametop is attached, recorded by perf (999 Hz, 4 s):
# $TEST_TMP/NAME.{table,err} and perf's shares of SYMBOL by source line, NAME.perf.
annotate_with_perf() {
	local name=$1 symbol=$2 mode=$3 ft newest
	start "$W" "$mode" 30
	newest=$(newest_program_id)
	$FLAMETOP --annotate "$symbol" -p "$pid" -F 999 --duration 6 \
		>"$TEST_TMP/$name.table" 2>"$TEST_TMP/$name.err" &
	ft=$!
	wait_program_after "$newest" || echo "# flametop did not attach" >&2
	sleep 0.5
	perf record -q -F 999 -p "$pid" -o "$TEST_TMP/$name.data" -- sleep 4 >/dev/null 2>&1
	wait "$ft"
	kill "$pid" 2>/dev/null
	perf report -i "$TEST_TMP/$name.data" --stdio --sort srcline -S "$symbol" \
		--percentage relative 2>/dev/null | awk '$1 ~ /%$/ { sub(/%$/, "", $1); print $2, $1 }' \
		>"$TEST_TMP/$name.perf"
}

# perf_share NAME LOCATION: perf's share of the symbol's samples at LOCATION.
perf_share() { awk -v loc="$2" '$1 == loc { print $2; found = 1 } END { if (!found) print 0 }' \
	"$TEST_TMP/$1.perf"; }

# 1. Two hot loops in one function, 3:1 by construction, at two marked lines.
annotate_with_perf loops two_loops loops
T=$TEST_TMP/loops.table
diag <"$T"
a_self=$(column "$T" "annotate_work.c:$HOT_A" 1) b_self=$(column "$T" "annotate_work.c:$HOT_B" 1)
a_calls=$(column "$T" "annotate_work.c:$HOT_A" 2) b_calls=$(column "$T" "annotate_work.c:$HOT_B" 2)
marked=$(awk -v a="$a_self" -v b="$b_self" -v c="$a_calls" -v d="$b_calls" 'BEGIN { print a + b + c + d }')
check "two_loops: the marked lines $HOT_A and $HOT_B hold >= 90% of its samples ($marked%)" \
	at_least "$marked" 90
check "two_loops: HOT_A:HOT_B is 3:1 within 15% ($a_self% : $b_self%)" \
	ratio_within "$a_self" "$b_self" 3 0.15
check "two_loops: the header names the function, its file and build-id" \
	grep -qE "^Annotate two_loops in .*/annotate_work \| build-id [0-9a-f]{40}$" "$T"
check "two_loops: the marked lines' text is shown" grep -qF "/* HOT_A */" "$T"
self=$(self_sum "$T")
for mark in HOT_A HOT_B; do
	line=$(line_of "$mark")
	ours=$(awk -v s="$(column "$T" "annotate_work.c:$line" 1)" -v t="$self" 'BEGIN { print t ? 100 * s / t : 0 }')
	theirs=$(perf_share loops "annotate_work.c:$line")
	check "two_loops: line $line ($mark) holds $ours% of its self samples, perf annotate $theirs% (within 3 points)" \
		near "$ours" "$theirs" 3
done

# 2. Call sites: caller() calls cheap() and dear(), 3 times as long, from two marked lines.
annotate_with_perf calls caller calls
T=$TEST_TMP/calls.table
diag <"$T"
cheap=$(column "$T" "annotate_work.c:$CALL_CHEAP" 2) dear=$(column "$T" "annotate_work.c:$CALL_DEAR" 2)
check "caller: Calls% CALL_CHEAP:CALL_DEAR is 1:3 within 15% ($cheap% : $dear%)" \
	ratio_within "$dear" "$cheap" 3 0.15
check "caller: it has no samples of its own (Self% 0 at both lines)" \
	[ "$(column "$T" "annotate_work.c:$CALL_CHEAP" 1)$(column "$T" "annotate_work.c:$CALL_DEAR" 1)" = 0.00.0 ]
check "caller: its summary counts its samples as through its calls" \
	grep -qE '^[0-9]+ samples: 0 in it, [0-9]+ through its calls' "$T"

# 3. libc's functions, with libc6-dbg's line table: qsort_r, and the merge sort it calls.
start "$W" qsort 30
annotate qsort qsort_r -p "$pid" --duration 3
$FLAMETOP --folded -p "$pid" --duration 1 >"$TEST_TMP/qsort.folded" 2>/dev/null
sorter=$(sed -E 's/ [0-9]+$//' "$TEST_TMP/qsort.folded" | grep -oE ';qsort_r;[^;]+' | head -n 1 |
	cut -d';' -f3)
GLIBC=$TEST_TMP/glibc
mkdir -p "$GLIBC"
tar -xJf /usr/src/glibc/glibc-*.tar.xz -C "$GLIBC" --strip-components=1 --wildcards '*/stdlib/msort.c'
check "qsort_r: its object is libc, with a build-id" \
	grep -qE '^Annotate qsort_r in .*libc\.so\.6 \| build-id [0-9a-f]{40}$' "$T"
check "qsort_r: its rows are lines of glibc's msort.c (from libc6-dbg's line table)" \
	awk '$4 ~ /:/ { rows++; if ($4 !~ /^msort\.c:[0-9]+$/) bad++ } END { exit !(rows && !bad) }' "$T"
check "qsort_r: without glibc's sources, one line says its text is not shown" \
	grep -qE '^source text of stdlib/msort\.c not shown: not found \(--source-dir adds a place to look\)$' "$T"
check "qsort_r: without glibc's sources, no row shows text" \
	awk '$4 ~ /^msort\.c:/ && NF > 4 { exit 1 }' "$T"
annotate sorter "$sorter" -p "$pid" --duration 3 --source-dir "$GLIBC"
kill "$pid" 2>/dev/null
rows=0 same=0
while read -r loc text; do
	rows=$((rows + 1))
	[ "$text" = "$(sed -n "${loc#msort.c:}p" "$GLIBC/stdlib/msort.c" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')" ] &&
		same=$((same + 1))
done < <(awk '$4 ~ /^msort\.c:/ { loc = $4; $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print loc, $0 }' "$T")
check "$sorter (qsort_r's callee): with --source-dir at glibc's sources (glibc-source), its $rows rows (> 3) each show their line of msort.c ($same)" \
	[ "$rows" -gt 3 -a "$same" = "$rows" ]

# 4. A stripped binary, no debug file: the instructions, the hot one in the hot loop.
start "$WORKLOADS/annotate_work_stripped" loops 30
$FLAMETOP --folded -p "$pid" --duration 2 >"$TEST_TMP/stripped.folded" 2>/dev/null
leaf=$(sort -t' ' -k2 -nr "$TEST_TMP/stripped.folded" | head -n 1 | sed -E 's/ [0-9]+$//; s/.*;//')
annotate stripped "$leaf" -p "$pid" -F 499 --duration 3
kill "$pid" 2>/dev/null
check "stripped: its hottest frame is an address in the file ($leaf)" \
	grep -qE '^annotate_work_stripped\+0x[0-9a-f]+$' <<<"$leaf"
check "stripped: one line says there is no line information, and why" \
	grep -qE '^no line information: .*annotate_work_stripped is stripped, and no debug file was found' "$T"
check "stripped: the instructions open, decoded, with their shares" \
	grep -qE '^ *[0-9.]+% +[0-9.]+% +[0-9]+ +[0-9a-f]+: +(imul|add|cmp|j)' "$T"
hot=$(awk '$4 ~ /^[0-9a-f]+:$/ { v = $1; sub(/%$/, "", v); if (v + 0 > best) { best = v + 0; at = $4 } }
	END { sub(/:$/, "", at); print at }' "$T")
check "stripped: the hottest instruction ($hot) is in the HOT_A loop (line $HOT_A, as addr2line reads the unstripped twin)" \
	grep -qx "annotate_work.c:$HOT_A" <(addr2line -e "$W" "0x$hot" | sed 's|.*/||; s/ .*//')

# 5. A line table that lies: lines in a directory, a FIFO, a device, a file
# the process may not read, a symlink out of --source-dir, past a file's end,
# far into a huge file; text with control bytes. The program is made here,
# as its lies name this test's files, and runs as nobody.
L=$TEST_TMP/lies
mkdir -p "$L/src" "$L/a_directory"
chmod 755 "$TEST_TMP" "$L" "$L/src"
mkfifo "$L/a_fifo"
printf 'one\ntwo\nthree\n' >"$L/short.c"
printf 'first\n\tred: \033[31mRED\033]0;title\007 \302\233 end\n' >"$L/control.c"
truncate -s 2G "$L/huge.c"
printf 'secret line\n' >"$L/secret.c"
chmod 600 "$L/secret.c"
ln -s ../secret.c "$L/src/link.c"
loops=""
for where in "1 \"$L/a_directory\"" "1 \"$L/a_fifo\"" "1 \"/dev/zero\"" "1 \"$L/secret.c\"" \
	"1 \"$L/src/link.c\"" "99999 \"$L/short.c\"" "5000000 \"$L/sub/../huge.c\"" \
	"2 \"$L/control.c\""; do
	loops+="#line $where
	for (unsigned long i = 0; i < n; i++) x = x * x + i;
"
done
cat >"$L/lies.c" <<EOC
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void lies(unsigned long n)
{
	unsigned long x = 3;
$loops
	sink = x;
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + atoi(argv[1]);

	while (time(NULL) < end)
		lies(200000);
	return 0;
}
EOC
gcc -O2 -g -o "$L/lies" "$L/lies.c"
setpriv --reuid=65534 --regid=65534 --clear-groups "$L/lies" 30 &
pid=$!
bg_pids+=("$pid")
# A writer waits on the FIFO until a reader opens it: flametop must not.
(echo written >"$L/a_fifo") 2>/dev/null &
writer=$!
bg_pids+=("$writer")
sleep 0.5
FLAMETOP="timeout 60 strace -f -qq -e trace=open,openat,openat2 -o $TEST_TMP/lies.strace $FLAMETOP" \
	annotate lies lies -p "$pid" -F 499 --duration 3 --source-dir "$L/src"
rc=$?
kill "$pid" 2>/dev/null
check "lies: flametop ends, within its time (exit $rc)" [ "$rc" = 0 ]
check "lies: a row for each of its 8 lines" [ "$(awk '$4 ~ /:/ && $3 > 0' "$T" | wc -l)" = 8 ]
check "lies: a line past a file's end as the table says it" grep -qE ' short\.c:99999 *$' "$T"
check "lies: a line 2 GiB into a file as the table says it" grep -qE ' huge\.c:5000000 *$' "$T"
check "lies: one line explains what was not shown (the first reason, and how many more)" \
	grep -qE '^source text of .*/a_directory not shown: not a regular file \(and [0-9]+ more files\)$' "$T"
check "lies: only the control file's line shows text, its control bytes as '?'" \
	bash -c "[ \"\$(awk '\$4 ~ /:/ && NF > 4' '$T' | wc -l)\" = 1 ] && grep -qE ' control\.c:2 +red: \?\[31mRED\?\]0;title\? \? end$' '$T'"
check "lies: no control byte reaches the output" \
	bash -c "! LC_ALL=C grep -qP '[\\x00-\\x08\\x0b-\\x1f\\x7f]' '$T'"
check "lies: the FIFO was never opened (its writer still waits)" kill -0 "$writer"
check "lies: the directory, the FIFO and the device were only looked at (O_PATH), never opened" \
	bash -c "! grep -E '\"($L/a_directory|$L/a_fifo|/dev/zero)\"' '$TEST_TMP/lies.strace' | grep -qv O_PATH"
check "lies: the file the process may not read was not read (no row shows 'secret line')" \
	bash -c "! grep -q 'secret line' '$T'"
kill "$writer" 2>/dev/null

# 6. A kernel function: its instructions from /proc/kcore where it can be read, else its
# addresses with their shares, said plainly. Read mode: call sites only.
start "$WORKLOADS/syscall_loop" 30
$FLAMETOP --folded -p "$pid" --duration 1 >"$TEST_TMP/kernel.folded" 2>/dev/null
kfunc=$(grep -oE ';[^;]+_\[k\]' "$TEST_TMP/kernel.folded" | head -n 1 | sed 's/^;//; s/_\[k\]$//')
annotate kernel "$kfunc" -p "$pid" --duration 2
check "kernel: $kfunc is annotated as the kernel's, by instruction" \
	grep -qE "^Annotate $kfunc in \[kernel\]" "$T"
if [ -r /proc/kcore ] && head -c 1 /proc/kcore >/dev/null 2>&1; then
	check "kernel: /proc/kcore is readable: its instructions, decoded" \
		grep -qE '^ *[0-9.]+% +[0-9.]+% +[0-9]+ +ffffffff[0-9a-f]+: +[a-z]' "$T"
else
	check "kernel: /proc/kcore can't be read here: one line says so, the addresses alone" \
		bash -c "grep -qE '^kernel code can.t be read \(/proc/kcore: .*\): its addresses alone, with their shares$' '$T' &&
			grep -qE '^ *[0-9.]+% +[0-9.]+% +[0-9]+ +ffffffff[0-9a-f]+: *$' '$T'"
fi
annotate read read_zeros --mode read -p "$pid" --duration 1
kill "$pid" 2>/dev/null
check "read mode: read_zeros' time is all through its calls (call sites kept, no samples of its own)" \
	grep -qE '^[0-9]+ reads: 0 in it, [0-9]+ through its calls' "$T"

# 7. JIT code a perf map names: its instructions from the process's memory.
"$WORKLOADS/jit_spin" 30 write-map >"$TEST_TMP/jit.out" 2>&1 &
pid=$!
bg_pids+=("$pid")
for _ in $(seq 50); do grep -q '^ready ' "$TEST_TMP/jit.out" && break; sleep 0.1; done
code=$(awk '$1 == "ready" { print $2 }' "$TEST_TMP/jit.out")
annotate jit jit_spin_loop -p "$pid" --duration 2
kill "$pid" 2>/dev/null
check "JIT: jit_spin_loop is annotated from the process's memory, by instruction" \
	grep -qE "^Annotate jit_spin_loop in \[jit\] \(pid $pid\)$" "$T"
check "JIT: its code decoded from where the perf map says it starts ($code)" \
	grep -qE "^ *[0-9.]+% +[0-9.]+% +[0-9]+ +$code: +pushq +%rbp$" "$T"
hot=$(awk '$4 ~ /^[0-9a-f]+:$/ { v = $1; sub(/%$/, "", v); if (v + 0 > best) { best = v + 0; at = $4 } }
	END { print at }' "$T")
check "JIT: the hottest instruction is in its loop (dec, jnz: $hot)" \
	grep -qE "^ *[0-9.]+% +[0-9.]+% +[0-9]+ +$hot +(decl|jne) " "$T"

# 8. The view, in a terminal (--no-color: the selection is reverse video).
if ! command -v tmux >/dev/null; then
	skip "the annotate view in a terminal" "tmux is not installed (make deps installs it)"
	exit 0
fi

start "$W" calls 60
screen_start 120 36 "$FLAMETOP --no-color -p $pid -d 1"
screen_wait '`---- cheap' 15
screen_keys / c a l l e r Enter
screen_wait 'filters: text "caller"'
screen_keys a
check_screen "tree: a opens the annotate view of the selected function" '^Annotate caller in .*/annotate_work \| build-id'
check_screen "tree: a row per line with call sites, with its text" "annotate_work\\.c:$CALL_CHEAP +cheap\\(n\\); /\\* CALL_CHEAP \\*/"
check_selected "the hottest line is selected (CALL_DEAR)" "annotate_work\\.c:$CALL_DEAR "
screen_keys n
check_selected "n: the next hot line (CALL_CHEAP)" "annotate_work\\.c:$CALL_CHEAP "
screen_keys N
check_selected "N: back to the hotter one (CALL_DEAR)" "annotate_work\\.c:$CALL_DEAR "
screen_keys i
check_screen "i: the instructions, under their source lines" 'Address +Instruction'
check_selected "i: the selected line's call instruction is selected" '^ +0\.0% +[0-9.]+% +[0-9]+ +[0-9a-f]+: +call'
screen_resize 80 24
check_screen "resize while open: redrawn at 80x24" '^Annotate caller in .*\.\.$'
screen_text >"$TEST_TMP/80x24"
check "resize while open: 24 lines, none wider than 80" \
	bash -c "[ \$(wc -l <'$TEST_TMP/80x24') = 24 ] && awk 'length > 80 { bad = 1 } END { exit bad }' '$TEST_TMP/80x24'"
check_selected "resize while open: the selection stays" ' +[0-9a-f]+: +call'
screen_resize 120 36
screen_keys i
check_screen "i again: the lines" 'Line +Source'
screen_keys q
check_screen "q: back to the call tree" '^Total%  Self% +Count  Call tree'
screen_keys Tab a
check_screen "icicle: a opens the annotate view of the selected frame" '^Annotate caller in '
screen_keys Escape
check_screen "Esc: back" '^Icicle'
screen_keys Escape Tab Tab Tab
screen_wait 'Shared Object'
screen_keys Home a
check_screen "flat list: a opens the annotate view of the selected function (dear, the hottest)" '^Annotate dear in '
check_screen "flat list: dear's loop line holds its samples" '^ *[0-9.]+% +[0-9.]+% +[0-9]+ +annotate_work\.c:[0-9]+ +for \(unsigned long i = 0; i < 3 \* n; i\+\+\)'
# in_it: the samples of the annotated function's own, as the view's summary says them.
in_it() { screen_text | sed -nE 's/^[0-9]+ samples \(since the start or r\): ([0-9]+) in it.*/\1/p'; }
# dear_self: dear's own samples, as the flat list says them.
dear_self() { screen_text | awk '$NF == "dear" && $4 == "annotate_work" { print $3 }'; }
screen_keys q z Space
sleep 2.5 # refreshes while paused
flat=$(dear_self)
screen_keys a
screen_wait '^[0-9]+ samples \(since the start or r\)'
check "paused: a shows the counts of the pause, as the flat list does (dear's own: $flat and $(in_it))" \
	[ -n "$flat" -a "$(in_it)" = "$flat" ]
screen_keys q Space a
sleep 2.5
check "resumed: its counts go on ($flat, then $(in_it))" [ "$(in_it)" -gt "$flat" ]
screen_keys q q
screen_check_exit "annotate view, q q" 0

# 9. Stacks read from a folded file have no addresses: a says so in one line.
screen_start 100 30 "$FLAMETOP -i tests/fixtures/viewer.folded"
screen_wait 'leaf_a'
screen_keys j j a
check_screen "viewer: a says in one line that a file has no addresses" \
	'^a: no addresses here \(stacks read from a file keep only names\): annotate needs a live capture'
screen_keys q
screen_check_exit "viewer, q" 0
$FLAMETOP -i tests/fixtures/viewer.folded --annotate leaf_a >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
check "-i FILE --annotate: exit 2 and one line" \
	bash -c "[ $rc = 2 ] && [ \$(wc -l <'$TEST_TMP/err') = 1 ] && grep -q 'keep no addresses' '$TEST_TMP/err'"
$FLAMETOP --annotate two_loops --source-dir /etc/passwd >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
check "--source-dir of a file: exit 2 and one line" \
	bash -c "[ $rc = 2 ] && [ \$(wc -l <'$TEST_TMP/err') = 1 ] && grep -qx 'flametop: --source-dir /etc/passwd: not a directory' '$TEST_TMP/err'"
start "$W" loops 30
$FLAMETOP --annotate no_such_function -p "$pid" --duration 1 >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
kill "$pid" 2>/dev/null
check "--annotate of a function not sampled: exit 2, its line after the summary, nothing on stdout" \
	bash -c "[ $rc = 2 ] && [ ! -s '$TEST_TMP/out' ] && tail -n 1 '$TEST_TMP/err' | grep -qx 'flametop: --annotate no_such_function: no function of that name was sampled'"
