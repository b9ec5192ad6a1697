#!/usr/bin/env bash
# The user-stack unwinder on programs built as distributions build them:
# whole stacks, checked against `perf record --call-graph dwarf` on the same
# process in the same run (perf unwinds with the same CFI, in user space),
# and against each program's own known call structure.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "unwinder tests" "not root: BPF programs can't be loaded"
	exit 0
fi
if ! command -v perf >/dev/null; then
	skip "unwinder tests" "no perf (Debian's linux-perf): no ground truth to compare with"
	exit 0
fi

SRC=tests/workloads
B=$TEST_TMP/bin
mkdir -p "$B"
gcc -O2 -g -o "$B/c_nofp" "$SRC/unwind_work.c"
gcc -O2 -g -fno-omit-frame-pointer -o "$B/c_fp" "$SRC/unwind_work.c"
cp "$B/c_nofp" "$B/c_strip" && strip "$B/c_strip"
g++ -O2 -g -o "$B/cxx_sort" "$SRC/unwind_sort.cc"

# normalize.awk: one frame as both tools name it. A version suffix
# (@@GLIBC_2.34), clone suffixes, parameter lists, template arguments and
# return types are dropped (the two demanglers print them differently), and
# leading underscores (__GI___qsort_r is qsort_r: the tools pick different
# aliases of one function); a frame no symbol names becomes
# "file+0xOFFSET" of its call (both tools give a caller's return address
# less one), or its function when the test knows the file's symbols (SYMS:
# lines "file start size name", from the unstripped build), or "file+?" for
# a leaf.
cat >"$TEST_TMP/normalize.awk" <<'EOF'
function hex(s,   v, i) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function strip_name(s) {
	sub(/@.*$/, "", s)
	gsub(/ \[clone [^]]*\]/, "", s)
	while (match(s, /\([^()]*\)/))
		s = substr(s, 1, RSTART - 1) substr(s, RSTART + RLENGTH)
	while (match(s, /<[^<>]*>/))
		s = substr(s, 1, RSTART - 1) substr(s, RSTART + RLENGTH)
	sub(/.* /, "", s)
	sub(/^(__GI_)?_*/, "", s)
	return s
}
function load_syms(file,   line, f) {
	while ((getline line < file) > 0) {
		split(line, f, " ")
		nsym++
		sym_file[nsym] = f[1]; sym_start[nsym] = hex(f[2])
		sym_end[nsym] = sym_start[nsym] + hex(f[3]); sym_name[nsym] = f[4]
	}
}
# The name of an unnamed frame at offset @off of @file.
function unnamed(file, off, leaf,   i) {
	for (i = 1; i <= nsym; i++)
		if (sym_file[i] == file && off >= sym_start[i] && off < sym_end[i])
			return strip_name(sym_name[i])
	return leaf ? file "+?" : sprintf("%s+0x%x", file, off)
}
EOF

# perf_stacks DATA: perf's user stacks, outermost first, normalized, one a line.
perf_stacks() {
	perf script -i "$1" -F comm,tid,ip,sym,dso --no-inline 2>/dev/null |
		awk -v syms="$TEST_TMP/syms" -f "$TEST_TMP/normalize.awk" -f <(echo '
		BEGIN { load_syms(syms) }
		function flush(   s, i) {
			if (n) { s = fr[n]; for (i = n - 1; i >= 1; i--) s = s ";" fr[i]; print s }
			n = 0
		}
		/^[^ \t]/ { flush(); next }
		/^$/ { flush(); next }
		{
			ip = hex($1); dso = $NF; gsub(/[()]/, "", dso)
			if (dso ~ /kernel\.kallsyms|^\[/) next
			sym = $2; for (i = 3; i < NF; i++) sym = sym " " $i
			n++
			if (sym == "[unknown]") {
				sub(/.*\//, "", dso)
				fr[n] = unnamed(dso, ip, n == 1)
			} else
				fr[n] = strip_name(sym)
		}
		END { flush() }') | sort -u
}

# flametop_stacks FOLDED: flametop's user stacks with their counts
# ("stack<TAB>count"), normalized as perf_stacks() does.
flametop_stacks() {
	awk -v syms="$TEST_TMP/syms" -f "$TEST_TMP/normalize.awk" -f <(echo '
		BEGIN { load_syms(syms) }
		{
			count = $NF; line = $0; sub(/ [0-9]+$/, "", line)
			nf = split(line, f, ";"); n = 0
			for (i = 2; i <= nf && f[i] !~ /_\[k\]$/; i++) u[++n] = f[i]
			s = ""
			for (i = 1; i <= n; i++) {
				name = u[i]
				if (match(name, /\+0x[0-9a-f]+$/))
					name = unnamed(substr(name, 1, RSTART - 1),
						       hex(substr(name, RSTART + 1)), i == n)
				else
					name = strip_name(name)
				s = s (i > 1 ? ";" : "") name
			}
			if (n) print s "\t" count
		}') "$1"
}

# exact_share FOLDED PERF_STACKS: "exact total": flametop's samples whose whole
# user stack perf also recorded, and all its samples with a user stack; the
# stacks perf did not see go to FOLDED.missed.
exact_share() {
	flametop_stacks "$1" | awk -F'\t' -v truth="$2" -v missed="$1.missed" '
		BEGIN { while ((getline l < truth) > 0) known[l] = 1 }
		{ total += $2; if ($1 in known) exact += $2; else print $2 "\t" $1 > missed }
		END { print exact + 0, total + 0 }'
}

# wrong_callers FOLDED SPEC: samples where one of the program's own functions
# sits under another caller than its own ([truncated], where the walk
# stopped, is no caller). SPEC: "func=caller-regex ...".
wrong_callers() {
	flametop_stacks "$1" | awk -F'\t' -v spec="$2" '
		BEGIN { n = split(spec, s, " "); for (i = 1; i <= n; i++) { split(s[i], kv, "="); want[kv[1]] = kv[2] } }
		{
			m = split($1, f, ";")
			for (i = 2; i <= m; i++)
				if ((f[i] in want) && f[i - 1] != "[truncated]" && f[i - 1] !~ ("^(" want[f[i]] ")$")) { bad += $2; if (!shown++) print "# " $1 > "/dev/stderr"; break }
		}
		END { print bad + 0 }'
}

# profile_both NAME CMD...: runs CMD, profiles it with flametop (user frames,
# 499 Hz, 5 s) and, while flametop is attached, with perf's dwarf unwinder
# (999 Hz, 3 s): $TEST_TMP/NAME.{folded,err,perf}.
profile_both() {
	local name=$1 newest pid ft
	shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	bg_pids+=("$pid")
	sleep 0.3
	newest=$(newest_program_id)
	# --python off: the native walk is what perf is compared with (python.sh has Python's).
	$FLAMETOP --folded --duration 5 -F 499 -U --python off -p "$pid" >"$TEST_TMP/$name.folded" \
		2>"$TEST_TMP/$name.err" &
	ft=$!
	wait_program_after "$newest" || echo "# flametop did not attach" >&2
	sleep 0.5
	perf record -q -F 999 --call-graph dwarf,16384 -p "$pid" -o "$TEST_TMP/$name.data" -- sleep 3 \
		>/dev/null 2>&1
	wait "$ft"
	kill "$pid" 2>/dev/null
	perf_stacks "$TEST_TMP/$name.data" >"$TEST_TMP/$name.perf"
}

# compare NAME WHAT [SPEC]: the checks every program gets.
compare() {
	local name=$1 what=$2 spec=${3:-} share exact total bad
	share=$(exact_share "$TEST_TMP/$name.folded" "$TEST_TMP/$name.perf")
	exact=${share% *}
	total=${share#* }
	sort -t' ' -k2 -nr "$TEST_TMP/$name.folded" | head -n 3 | cut -c1-300 | diag
	if [ "$total" -gt 100 ] && awk -v e="$exact" -v t="$total" 'BEGIN { exit !(e >= 0.95 * t) }'; then
		ok "$what: $exact of $total samples have a whole user stack perf --call-graph dwarf also saw (>= 95%)"
	else
		not_ok "$what: $exact of $total samples have a whole user stack perf --call-graph dwarf also saw (>= 95%)"
		echo "stacks perf did not see, most samples first:" | diag
		sort -nr "$TEST_TMP/$name.folded.missed" | head -n 8 | cut -c1-400 | diag
	fi
	if [ -n "$spec" ]; then
		bad=$(wrong_callers "$TEST_TMP/$name.folded" "$spec")
		check "$what: no sample with a fake or skipped frame ($bad have one of the program's functions under a wrong caller)" [ "$bad" = 0 ]
	fi
	check "$what: the summary says the unwind tables walked them" \
		grep -q 'user stacks by unwind tables: [0-9]* whole' "$TEST_TMP/$name.err"
}

# The own functions of unwind_work, each under its one caller (cmp_ints under libc's sort).
C_SPEC="main=libc_start_call_main work=main leaf_a=work leaf_b=work with_libc=work sort_with_libc=work cmp_ints=[^;]*(msort|qsort)[^;]*"

# 1. C, -O2 without frame pointers (gcc's default), calling libc.
nm -S --defined-only "$B/c_nofp" | awk '$2 != "" { print "c_strip", $1, $2, $4 }' >"$TEST_TMP/syms"
profile_both c_nofp "$B/c_nofp" 12
compare c_nofp "C -O2" "$C_SPEC"
check "C -O2: qsort's callback is seen under libc's sort, called from sort_with_libc" \
	grep -qE ';work;sort_with_libc;(qsort[^;]*;)?[^;]*msort[^;]*;(.*;)?cmp_ints ' "$TEST_TMP/c_nofp.folded"

# 2. C, -O2 -fno-omit-frame-pointer: gcc still leaves them out of leaf functions.
profile_both c_fp "$B/c_fp" 12
compare c_fp "C -O2 -fno-omit-frame-pointer" "$C_SPEC"

# 3. The same program stripped: no symbol in the file, the unwind table is whole.
profile_both c_strip "$B/c_strip" 12
compare c_strip "C -O2, stripped (named here from its unstripped build)" "$C_SPEC"

# 4. C++ -O2: std::sort and std::map, deep in libstdc++ templates.
profile_both cxx "$B/cxx_sort" 12
compare cxx "C++ -O2 (std::sort, std::map)" "main=libc_start_call_main sort_some=main map_some=main"

# 5. Debian's own python3 (no frame pointers anywhere): the interpreter's C frames.
cat >"$TEST_TMP/fib.py" <<'EOF'
import sys, time
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    fib(20)
EOF
if [ -x /usr/bin/python3 ]; then
	profile_both python /usr/bin/python3 "$TEST_TMP/fib.py" 12
	compare python "Debian's python3"
	check "python3: its stacks reach from _start down to the eval loop" \
		grep -qE '^python3;_start;__libc_start_main[^;]*;__libc_start_call_main;(main;)?Py_BytesMain;.*_PyEval_EvalFrameDefault' \
		"$TEST_TMP/python.folded"
else
	skip "Debian's python3" "no /usr/bin/python3"
fi

# 6. Read mode: a function calling libc's read(), seen at the system call's entry.
start_bg "$WORKLOADS/reader_ab" 30
ab=$bg_pid
newest=$(newest_program_id)
$FLAMETOP --folded --mode read -U -p "$ab" >"$TEST_TMP/read.folded" 2>"$TEST_TMP/read.err" &
ft=$!
wait_program_after "$newest" || echo "# flametop did not attach" >&2
kill -USR1 "$ab"
sleep 1.5
kill -USR2 "$ab"
wait "$ab"
kill -INT "$ft"
wait "$ft"
reads=$(folded_sum "$TEST_TMP/read.folded" '.')
whole=$(folded_sum "$TEST_TMP/read.folded" \
	'^reader_ab;_start;__libc_start_main[^;]*;__libc_start_call_main;main;(reader_[ab]|wait_start);(__libc_)?read$')
head -n 3 "$TEST_TMP/read.folded" | diag
if [ "$reads" -gt 1000 ] && awk -v w="$whole" -v t="$reads" 'BEGIN { exit !(w >= 0.95 * t) }'; then
	ok "read mode: $whole of $reads reads show main;reader_x|wait_start;read whole from _start (>= 95%)"
else
	not_ok "read mode: $whole of $reads reads show main;reader_x|wait_start;read whole from _start (>= 95%)"
fi

# 7. --unwind fp keeps the frame-pointer walk: on the same -O2 program its
# stacks stop short, say so with [truncated], and are counted by reason.
start_bg "$B/c_nofp" 6
$FLAMETOP --folded --duration 2 -U --unwind fp -p "$bg_pid" >"$TEST_TMP/fp.folded" 2>"$TEST_TMP/fp.err"
cut=$(folded_sum "$TEST_TMP/fp.folded" '^c_nofp;\[truncated\];')
all=$(folded_sum "$TEST_TMP/fp.folded" '.')
walks=$(grep 'user stacks by' "$TEST_TMP/fp.err")
diag <<<"$walks"
check "--unwind fp: the summary says frame pointers walked them" grep -q 'user stacks by frame pointers' <<<"$walks"
check "--unwind fp: most stacks of a -O2 program stop short under [truncated] ($cut of $all)" \
	awk -v c="$cut" -v a="$all" 'BEGIN { exit !(a > 0 && c >= 0.5 * a) }'
truncated=$(sed -nE 's/.* ([0-9]+) truncated.*/\1/p' <<<"$walks")
reasons=$(grep -oE '\([^)]*\)' <<<"$walks" | grep -oE '[0-9]+' | awk '{ s += $1 } END { print s + 0 }')
check "--unwind fp: the truncated walks add up by reason ($reasons of $truncated)" [ "$reasons" = "$truncated" ]
check "--unwind fp: every [truncated] stack was counted truncated (samples $cut <= walks $truncated)" \
	[ "$cut" -le "$truncated" ]
