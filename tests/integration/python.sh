#!/usr/bin/env bash
# Python processes show Python: CPython's frames walked in BPF, merged with
# the native and kernel ones, named "qualname (file:LINE)". Every check runs
# on Debian's /usr/bin/python3.11 (which must be there) and on each pyenv
# build of 3.10 to 3.13 found (a missing one is skipped, saying so): each
# mode's run samples one workload per interpreter at once, and checks each.
# The workloads (tests/workloads/python/) measure their own split with their
# own clocks, and mark the lines their frames must show. Then: ground truth
# from perf and -X perf (3.12, 3.13), a hostile fake interpreter, the screen.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../tmux.sh"
trap 'screen_stop; cleanup_test' EXIT

PYDIR=$PWD/tests/workloads/python
PYFRAMES=(/usr/bin/python3 tests/tools/pyframes.py)
PYENV_DIR=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
# A workload runs until the test ends it (SIGTERM), after flametop: its names are read
# while it lives, however late a loaded machine makes flametop's drains.
LONG=60

need_root "python frames" || exit 0

# The interpreters: LABELS[i] runs PYTHONS[i]; the missing ones are skipped, saying why.
LABELS=() PYTHONS=() MISSING=()
if [ -x /usr/bin/python3.11 ]; then
	LABELS+=(debian-3.11) PYTHONS+=(/usr/bin/python3.11)
else
	not_ok "debian-3.11: /usr/bin/python3.11 is missing (make test-deps installs python3)"
fi
for v in 3.10 3.11 3.12 3.13; do
	py=$(ls -d "$PYENV_DIR"/versions/$v.*/bin/python$v 2>/dev/null | sort -V | tail -1)
	if [ -n "$py" ]; then
		LABELS+=("pyenv-$v") PYTHONS+=("$py")
	else
		MISSING+=("pyenv-$v")
	fi
done

# skip_missing "what": that check, skipped for each interpreter not here.
skip_missing() {
	for m in "${MISSING[@]}"; do
		skip "$m: $1" "no pyenv build of Python ${m#pyenv-} in $PYENV_DIR/versions"
	done
}

# mark FILE NAME: the line numbers of FILE that carry "# MARK:NAME", space-separated.
mark() { grep -n "# MARK:$2\$" "$1" | cut -d: -f1 | tr '\n' ' ' | sed 's/ $//'; }

# frames FOLDED: count, group, Python frames, native walk whole or cut, per stack
# (tests/tools/pyframes.py).
frames() { "${PYFRAMES[@]}" "$1"; }

# pyleaf: awk's name for a stack's last Python frame's qualname.
PYLEAF='function pyleaf(f,  n, a) { n = split(f, a, / [>|] /); sub(/@.*/, "", a[n]); return a[n] }'

# end_bg PID...: ends workloads and waits for them.
end_bg() {
	kill "$@" 2>/dev/null
	wait "$@" 2>/dev/null
}

# start_each SCRIPT ARGS...: starts SCRIPT (in tests/workloads/python) under each
# interpreter; "%o" in ARGS is replaced by $TEST_TMP/SCRIPT-LABEL. PIDS[i] is
# LABELS[i]'s; $pid_list all of them, comma-separated.
start_each() {
	local script=$1 i
	shift
	PIDS=()
	for i in "${!LABELS[@]}"; do
		start_bg "${PYTHONS[$i]}" "$PYDIR/$script" "${@//%o/$TEST_TMP/${script%.py}-${LABELS[$i]}}"
		PIDS+=("$bg_pid")
	done
	pid_list=$(IFS=,; echo "${PIDS[*]}")
}

# profile_each OUT FLAMETOP_ARGS...: flametop --folded --group pid on the processes
# start_each started, into OUT.folded (OUT.err); SIGUSR1 restarts the scripts' own
# count once flametop runs (its load takes about a second), so that they count what
# it saw; then ends them and writes their frames to OUT.frames.
profile_each() {
	local out=$1
	shift
	sleep 1
	$FLAMETOP --folded --group pid -p "$pid_list" "$@" >"$out.folded" 2>"$out.err" &
	sleep 1
	kill -USR1 "${PIDS[@]}"
	wait $!
	end_bg "${PIDS[@]}"
	frames "$out.folded" >"$out.frames"
}

# in_group PID: an awk test that a stack's group ($2, by --group pid or tid) is PID's.
in_group() { echo "index(\$2, \"[$1]\") || index(\$2, \"[$1/\")"; }

# within A B POINTS: |A - B| <= POINTS / 100.
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= p / 100) }'; }

# 1. The split: the whole chain in order, at the marked lines; leaf shares within 2
#    points of the script's own clock.
test_split() {
	local script=$PYDIR/split.py out=$TEST_TMP/split i label a b good marked share mine
	local chain_a chain_b
	chain_a="<module>@$script:$(mark "$script" call_main) > main@$script:$(mark "$script" call_outer) > outer@$script:$(mark "$script" call_middle) > middle@$script:$(mark "$script" call_a) > leaf_a@$script:"
	chain_b="${chain_a/middle@$script:$(mark "$script" call_a) > leaf_a/middle@$script:$(mark "$script" call_b) > leaf_b}"
	start_each split.py $LONG %o.times
	# Each leaf share within 2 points wants thousands of samples of each process.
	profile_each "$out" -F 1999 --duration 15
	for i in "${!LABELS[@]}"; do
		label=${LABELS[$i]}
		# Every stack in a leaf: its whole chain, each frame at the line it runs (the
		# leaf on its marked lines, or its first while the call begins), with no native
		# frame between them (but for "[truncated]" where the native walk was cut short:
		# the Python frames outside its reach go first, python/merge.h).
		awk -F'\t' -v ca="$chain_a" -v cb="$chain_b" -v la=" $(mark "$script" leaf_a) " \
			-v lb=" $(mark "$script" leaf_b) " "$PYLEAF"'
			!('"$(in_group "${PIDS[$i]}")"') { next }
			{ leaf = pyleaf($3) } leaf != "leaf_a" && leaf != "leaf_b" { next }
			{ chain = leaf == "leaf_a" ? ca : cb; lines = leaf == "leaf_a" ? la : lb
			  n[leaf] += $1; line = $3; sub(/.*:/, "", line); seq = $3
			  if ($4 == "cut") gsub(/ [|] /, " > ", seq)
			  if (index(seq, chain) == 1 && seq !~ / [|] / && substr(seq, length(chain) + 1) == line) {
				good += $1; if (index(lines, " " line " ")) marked += $1 }
			  else print > "/dev/stderr" }
			END { printf "%d %d %d %d\n", n["leaf_a"], n["leaf_b"], good, marked }' \
			"$out.frames" >"$out.$label" 2>"$out.$label.other"
		read -r a b good marked <"$out.$label"
		if [ $((a + b)) -gt 500 ] && [ $((good * 100)) -ge $(((a + b) * 99)) ] &&
			[ $((marked * 100)) -ge $((good * 95)) ]; then
			ok "$label: split: $((a + b)) stacks in leaf_a/leaf_b, $good of them <module> > main > outer > middle > leaf at the lines marked ($marked in the leaves' marked lines)"
		else
			not_ok "$label: split: the whole chain at the marked lines ($a + $b in the leaves, $good whole, $marked at marked lines); the others:"
			sort -t$'\t' -k1,1nr "$out.$label.other" | head -5 | diag
			diag <"$out.err"
		fi
		share=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a + b) printf "%.4f", a / (a + b) }')
		mine=$(awk '{ if ($1 + $2) printf "%.4f", $1 / ($1 + $2) }' "$TEST_TMP/split-$label.times")
		check "$label: split: leaf_a's share $share of the samples within 2 points of the script's own clock's $mine" \
			within "${share:-0}" "${mine:-1}" 2
	done
	skip_missing "split: the chain"
	skip_missing "split: the shares"
}

# 2. For one interpreter (the processes of many would leave each few samples): a callback
#    through C, threads, a fork(), processes started after flametop, processes that exit
#    while sampled, code objects freed and made again. By the interpreter's command
#    name, so that the processes that start later are sampled (and their tables built).
test_processes() {
	local label=$1 py=$2 out=$TEST_TMP/procs-$1 tpid fpid cpid gpid ft rc n good
	start_bg "$py" "$PYDIR/threads.py" $LONG "$out.threads"
	tpid=$bg_pid
	start_bg "$py" "$PYDIR/forks.py" $LONG "$out.forks"
	fpid=$bg_pid
	sleep 1
	$FLAMETOP --folded --group tid -F 199 --duration 8 -c "${py##*/}" >"$out.folded" 2>"$out.err" &
	ft=$!
	# Once flametop runs: two processes that end before it does, after a drain or two.
	sleep 3
	start_bg "$py" "$PYDIR/callback.py" 3
	cpid=$bg_pid
	start_bg "$py" "$PYDIR/generated.py" 3
	gpid=$bg_pid
	wait "$ft"
	rc=$?
	end_bg "$tpid" "$fpid" "$(sed -n 's/^child //p' "$out.forks")" "$cpid" "$gpid"
	frames "$out.folded" >"$out.frames"
	check "$label: flametop ended well (exit $rc) with processes starting, forking and exiting" \
		[ "$rc" = 0 ]

	# sorted(key=py_key): the Python frame under sorted's C frames, in order (in the stacks
	# whose native walk is whole: a cut one places Python frames by its leaf end).
	awk -F'\t' -v s="sorter@$PYDIR/callback.py:$(mark "$PYDIR/callback.py" sorted) | py_key@" \
		"$PYLEAF"'('"$(in_group "$cpid")"') && $4 == "whole" && pyleaf($3) == "py_key" {
			n += $1; if (index($3, s)) ok += $1 } END { print n + 0, ok + 0 }' \
		"$out.frames" >"$out.cb"
	read -r n good <"$out.cb"
	check "$label: callback: sorter (at the sorted() line) | C frames | py_key, in $good of the $n stacks in py_key (in a process started after flametop)" \
		bash -c "[ $n -ge 10 ] && [ $((good * 100)) -ge $((n * 95)) ]"

	# Each thread its own Python stack: its function, never another's.
	awk -v p="$tpid" -F'\t' 'FNR == NR { fn[$1] = $2; next }
		{ split($2, g, /[\/\]]/); tid = g[2]; if (!(tid in fn) || !index($2, "[" p "/")) next
		  for (t in fn) if (index($3, fn[t] "@")) { if (t == tid) own[tid] += $1; else other[tid] += $1 } }
		END { for (t in fn) printf "%s %d %d\n", fn[t], own[t], other[t] }' \
		<(tr ' ' '\t' <"$out.threads") "$out.frames" | sort >"$out.per-thread"
	if [ "$(wc -l <"$out.per-thread")" = 4 ] && awk '$2 < 5 || $3 > 0 { bad = 1 } END { exit bad }' "$out.per-thread"; then
		ok "$label: four threads, each its own Python function and no other's ($(tr '\n' ',' <"$out.per-thread" | sed 's/,$//'))"
	else
		not_ok "$label: four threads, each its own Python function (function own other):"
		diag <"$out.per-thread"
	fi

	# The fork()ed child and its parent.
	read -r _ ppid <"$out.forks"
	read -r _ chpid < <(sed -n 2p "$out.forks")
	awk -F'\t' -v p="[$ppid/" -v c="[$chpid/" '
		index($2, p) { if (index($3, "parent_work@")) pw += $1; if (index($3, "child_work@")) bad += $1 }
		index($2, c) { if (index($3, "child_work@")) cw += $1; if (index($3, "parent_work@")) bad += $1 }
		END { print pw + 0, cw + 0, bad + 0 }' "$out.frames" >"$out.fork"
	read -r pw cw bad <"$out.fork"
	check "$label: fork(): the parent in parent_work ($pw), the child in child_work ($cw), never the other's ($bad)" \
		bash -c "[ $pw -ge 5 ] && [ $cw -ge 5 ] && [ $bad = 0 ]"

	# Functions made, run and dropped in a loop: no frame with another code object's name.
	awk -F'\t' -v g="[$gpid/" 'index($2, g) {
		n = split($3, f, / [>|] /)
		for (i = 1; i <= n; i++) {
			if (!match(f[i], /<gen-[0-9]+>:[0-9]+$/)) continue
			file = substr(f[i], RSTART + 5); sub(/>.*/, "", file)
			line = f[i]; sub(/.*:/, "", line); name = f[i]; sub(/@.*/, "", name)
			file += 0; line += 0
			# A code object at its prologue (RESUME, 3.11+) is at its first line: a
			# module at line 1, gen_N at its def.
			if (name == "<module>") good_line = line == 1 ? 1 : file + 1
			else if (name == "gen_" file) good_line = line >= file + 1 && line <= file + 6 ? line : -1
			else good_line = -1
			if (good_line == line) named += $1; else { wrong += $1; print f[i] > "/dev/stderr" } }
		if ($3 ~ /code object gone/) gone += $1 }
		END { print named + 0, wrong + 0, gone + 0 }' "$out.frames" >"$out.gen" 2>"$out.gen-wrong"
	read -r named wrong gone <"$out.gen"
	if [ "$named" -ge 10 ] && [ "$wrong" = 0 ]; then
		ok "$label: code objects freed and made again: $named frames each with its own name, file and line, none with another's ($gone placeholders for code objects gone)"
	else
		not_ok "$label: code objects freed and made again: $named named, $wrong with another's name"
		head -5 "$out.gen-wrong" | diag
	fi
	check "$label: a process exiting while sampled is named (generated.py's run_one)" \
		grep -qE "\\[$gpid/[0-9]+\\];.*;run_one \\([^;]*generated.py:[0-9]+\\)" "$out.folded"
}

# 2b. A code object gone and another made at its address, with no other code object
#     made between (the walk keeps tags across walks while none is): alpha's frames
#     under phase_a, beta's under phase_b, and never alpha's name under phase_b.
test_reuse() {
	local out=$TEST_TMP/reuse i label n_a n_b stale
	start_each reuse.py 2 %o.addr
	profile_each "$out" -F 999 --duration 6
	for i in "${!LABELS[@]}"; do
		label=${LABELS[$i]}
		awk -F'\t' "$PYLEAF"'!('"$(in_group "${PIDS[$i]}")"') { next }
			{ l = pyleaf($3) } index($3, "phase_a@") && l == "alpha" { a += $1 }
			index($3, "phase_b@") && l == "beta" { b += $1 }
			index($3, "phase_b@") && l != "beta" && l != "phase_b" { bad += $1 }
			END { print a + 0, b + 0, bad + 0 }' "$out.frames" >"$out.$label"
		read -r n_a n_b stale <"$out.$label"
		check "$label: a code object made at the address of one gone ($(cat "$TEST_TMP/reuse-$label.addr" 2>/dev/null)): $n_a stacks in alpha, $n_b in beta, $stale under phase_b named otherwise" \
			bash -c "grep -qx reused '$TEST_TMP/reuse-$label.addr' && [ $n_a -ge 50 ] && [ $n_b -ge 50 ] && [ $stale = 0 ]"
	done
	skip_missing "a code object made at the address of one gone"
}

# map_of PID NAME: the id of the BPF map named NAME that process PID holds; empty: none.
map_of() {
	local f id
	for f in /proc/$1/fdinfo/*; do
		id=$(sed -nE 's/^map_id:\s+([0-9]+)/\1/p' "$f" 2>/dev/null)
		[ -n "$id" ] && bpftool map show id "$id" 2>/dev/null | grep -q " name $2 " &&
			echo "$id" && return
	done
}

# frees_of MAP TGID: the code objects flametop_pyfree MAP counts TGID freed (its entry's
# low word, less its 1); empty: no entry.
frees_of() {
	local low
	low=$(bpftool map lookup id "$1" key $(($2 & 255)) $(($2 >> 8 & 255)) $(($2 >> 16 & 255)) \
		$(($2 >> 24 & 255)) 2>/dev/null |
		awk '/value:/ { sub(/.*value: */, ""); split($0, b, " "); print b[4] b[3] b[2] b[1] }')
	[ -n "$low" ] && echo $((16#$low - 1))
}

# 2c. 3.10 and 3.11 have no co_version: the code objects a process frees are counted by
#     a probe for it alone, at the code_dealloc() its own code type names (frees.py reads
#     the slot through ctypes), so that walks may keep the names of the code objects they
#     read while none is freed. The count moves with the frees the script counts itself
#     (300 rounds a second). One that frees as fast as it can (Debian's 3.11, 10^5 a
#     second) loses its probe: each free pays for it, and a count that always moves
#     keeps nothing.
test_frees() {
	local out=$TEST_TMP/frees i k label ft map off file c1 c2 s1 s2 probes m busy
	local -a which=() pids=()
	for i in "${!LABELS[@]}"; do
		case ${LABELS[$i]} in *-3.10 | *-3.11) which+=("$i") ;; esac
	done
	for i in "${which[@]}"; do
		start_bg "${PYTHONS[$i]}" "$PYDIR/frees.py" "$out-${LABELS[$i]}" 300
		pids+=("$bg_pid")
	done
	start_bg /usr/bin/python3.11 "$PYDIR/frees.py" "$out-busy"
	busy=$bg_pid
	sleep 1
	$FLAMETOP --folded --duration 8 -p "$(IFS=,; echo "${pids[*]},$busy")" >"$out.folded" \
		2>"$out.err" &
	ft=$!
	sleep 4
	bpftool perf show >"$out.perf" 2>&1
	map=$(map_of "$ft" flametop_pyfree)
	for k in "${!which[@]}"; do
		label=${LABELS[${which[$k]}]}
		read -r _ off file <"$out-$label"
		probes=$(grep -cE "^pid $ft +fd [0-9]+: prog_id [0-9]+ +uprobe +filename .* offset $off\$" "$out.perf")
		c1=$(frees_of "$map" "${pids[$k]}")
		s1=$(tail -1 "$out-$label" | awk '{ print $2 }')
		sleep 1
		s2=$(tail -1 "$out-$label" | awk '{ print $2 }')
		c2=$(frees_of "$map" "${pids[$k]}")
		check "$label: a probe at code_dealloc() ($file at $off, as the code type's slot says) counts the frees: ${c1:-none} then ${c2:-none}, at least 2 x ($s2 - $s1 - 100) freed between" \
			bash -c "[ '$probes' -ge 1 ] && [ -n '$c1' ] && [ -n '$c2' ] && [ -n '$s1' ] && [ -n '$s2' ] &&
				[ \$(($c2 - $c1)) -ge \$((2 * ($s2 - $s1 - 100))) ] && [ \$(($s2 - $s1)) -ge 150 ]"
	done
	c1=$(frees_of "$map" "$busy")
	s1=$(tail -1 "$out-busy" | awk '{ print $2 }')
	wait "$ft"
	end_bg "${pids[@]}" "$busy"
	check "a process freeing code objects as fast as it can ($s1 rounds) loses its probe, and says so" \
		bash -c "[ -z '$c1' ] && [ '${s1:-0}' -ge 10000 ] &&
			grep -q '1 Python process freeing code objects over 1000 a second' '$out.err'"
	for m in "${MISSING[@]}"; do
		case $m in
		pyenv-3.10 | pyenv-3.11) skip "$m: a probe at code_dealloc() counts the frees" "not installed" ;;
		esac
	done
}

# 3. Off-CPU: wait_a 30 ms, wait_b 10 ms: 3:1 within 5% of the script's own clock,
#    the time under the Python frame that waits.
# Each Python process is looked at (its interpreter's file read): flametop's
# memory must not grow with their number. Each look leaked the interpreter's
# file (libelf kept every section read, ~5 MB for Debian's python3.11): 30
# processes took flametop from 24 to 185 MB. Now what the file says is kept
# once, by the file's identity (+6 MB in all here).
test_many_processes() {
	local py=/usr/bin/python3.11 ft rss0 rss1
	$FLAMETOP --folded -c python3.11 -o /dev/null 2>"$TEST_TMP/many.err" &
	ft=$!
	sleep 3
	rss0=$(awk '/^VmRSS/ { print $2 }' "/proc/$ft/status")
	for _ in $(seq 30); do
		"$py" -c 'import time
t = time.time()
while time.time() - t < 0.15: pass'
	done
	sleep 2.5 # a drain or two: every process looked at
	rss1=$(awk '/^VmRSS/ { print $2 }' "/proc/$ft/status")
	kill -INT "$ft"
	end_of "$ft" 10
	check "30 short python3.11 processes looked at: flametop's memory grew by $(((rss1 - rss0) / 1024)) MiB (at most 40)" \
		[ $((rss1 - rss0)) -le $((40 * 1024)) ]
}

test_offcpu() {
	local out=$TEST_TMP/off i label ratio a b mine
	start_each waits.py $LONG %o.times
	profile_each "$out" --mode offcpu --duration 5
	for i in "${!LABELS[@]}"; do
		label=${LABELS[$i]}
		awk -F'\t' "$PYLEAF"'!('"$(in_group "${PIDS[$i]}")"') { next } { l = pyleaf($3) }
			l == "wait_a" { a += $1 } l == "wait_b" { b += $1 }
			END { if (b) printf "%.4f %d %d\n", a / b, a, b }' "$out.frames" >"$out.$label"
		read -r ratio a b <"$out.$label"
		mine=$(awk '{ if ($2) printf "%.4f", $1 / $2 }' "$TEST_TMP/waits-$label.times")
		check "$label: off-CPU: wait_a:wait_b $ratio ($a us, $b us under the Python frames) within 5% of the script's own $mine" \
			awk -v r="${ratio:-0}" -v m="${mine:-1}" 'BEGIN { d = r / m - 1; if (d < 0) d = -d; exit !(d <= 0.05) }'
		check "$label: off-CPU: the waits under wait_a are time.sleep's, in the kernel under the Python frame" \
			grep -qE "\\[${PIDS[$i]}\\];.*;wait_a \\([^;]*waits.py:$(mark "$PYDIR/waits.py" wait_a)\\);.*;[a-z_]*(nanosleep|select|hrtimeout)[a-z_]*_\\[k\\]" \
			"$out.folded"
	done
	skip_missing "off-CPU: the ratio"
	skip_missing "off-CPU: the frames"
}

# 4. Read mode: which Python line reads, through which C.
test_read() {
	local out=$TEST_TMP/read i label line n in_read
	head -c 262144 /dev/urandom >"$out.data"
	start_each reads.py $LONG "$out.data"
	sleep 1
	$FLAMETOP --folded --group pid --mode read --duration 3 -p "$pid_list" >"$out.folded" 2>"$out.err"
	end_bg "${PIDS[@]}"
	frames "$out.folded" >"$out.frames"
	line=$(mark "$PYDIR/reads.py" read)
	for i in "${!LABELS[@]}"; do
		label=${LABELS[$i]}
		awk -F'\t' -v want="read_chunks@$PYDIR/reads.py:$line" "$PYLEAF"'
			!('"$(in_group "${PIDS[$i]}")"') { next }
			{ n += $1 } pyleaf($3) == "read_chunks" && $3 ~ want "$" { in_read += $1 }
			END { print n + 0, in_read + 0 }' "$out.frames" >"$out.$label"
		read -r n in_read <"$out.$label"
		check "$label: read mode: $in_read of $n reads under read_chunks (reads.py:$line)" \
			bash -c "[ $in_read -ge 100 ] && [ $((in_read * 100)) -ge $((n * 90)) ]"
	done
	skip_missing "read mode"
}

# perf_leaves PERF_SCRIPT_TEXT: per sample of perf script's output, its Python functions
# as -X perf's trampolines name them ("py::qualname:file"), outermost first, joined by " > ".
perf_leaves() {
	awk 'BEGIN { RS = "" } { seq = ""
		n = split($0, l, "\n")
		for (i = n; i > 1; i--) if (match(l[i], /py::[^ ]*/)) {
			f = substr(l[i], RSTART + 4, RLENGTH - 4); sub(/:[^:]*$/, "", f)
			seq = seq == "" ? f : seq " > " f }
		if (seq != "") print seq }' "$1"
}

# 5. Ground truth from outside (3.12, 3.13): groundtruth.py under -X perf, sampled at
#    once by flametop (whose Python frames come from its own walk: it takes nothing from
#    the trampolines, and drops them) and by perf, with DWARF unwinding (the interpreter
#    keeps no frame pointers: perf -g stops at its first frame), which reaches the
#    innermost trampoline, py::FUNCTION: its leaf Python function, and <module> for a
#    sample in the module's own code. flametop's leaf functions match perf's on at least
#    95% of the samples, and where perf's stack reaches <module> the whole sequence is one
#    flametop saw; flametop shows each Python function once, never its trampoline.
test_perf_truth() {
	local label=$1 py=$2 out=$TEST_TMP/perf-$1 script=$PYDIR/groundtruth.py pid ft overlap seqs
	start_bg "$py" -X perf "$script" $LONG
	pid=$bg_pid
	sleep 1
	$FLAMETOP --folded -F 999 --duration 5 -p "$pid" >"$out.folded" 2>"$out.err" &
	ft=$!
	sleep 2.5 # perf 6.1 starts after flametop's programs are in, and stops before they go
	perf record --call-graph dwarf,16384 -F 999 -p "$pid" -o "$out.data" -- sleep 2 \
		>/dev/null 2>"$out.perf-err"
	wait "$ft"
	end_bg "$pid"
	perf script -i "$out.data" -F comm,ip,sym 2>/dev/null >"$out.perf"
	perf_leaves "$out.perf" >"$out.perf-seqs"
	frames "$out.folded" >"$out.frames"
	# flametop's sequences of qualnames.
	awk -F'\t' '$3 != "-" { s = $3; gsub(/@[^ ]*/, "", s); gsub(/ \| /, " > ", s); print $1 "\t" s }' \
		"$out.frames" >"$out.ft-seqs"
	overlap=$(awk -F'\t' 'FNR == NR { n = split($2, f, / > /); q[f[n]] += $1; qt += $1; next }
		{ n = split($0, f, / > /); p[f[n]]++; pt++ }
		END { for (k in p) { a = p[k] / pt; b = qt ? q[k] / qt : 0; o += a < b ? a : b }
		      if (pt >= 200) printf "%.3f", o }' "$out.ft-seqs" "$out.perf-seqs")
	check "$label: ground truth: leaf Python functions overlap ${overlap:-(too few perf samples)} with perf's py:: leaves ($(wc -l <"$out.perf-seqs") samples)" \
		awk -v o="${overlap:-0}" 'BEGIN { exit !(o >= 0.95) }'
	seqs=$(awk -F'\t' 'FNR == NR { seen[$2] = 1; next } /^<module>/ { n++; if ($0 in seen) good++ }
		END { printf "%d %d", good, n }' "$out.ft-seqs" "$out.perf-seqs")
	check "$label: ground truth: perf's stacks that reach <module> (${seqs#* }) are sequences flametop saw (${seqs% *})" \
		awk -v g="${seqs% *}" -v n="${seqs#* }" 'BEGIN { exit !(n >= 10 && g * 100 >= n * 95) }'
	check "$label: -X perf: each stack in inner a whole chain of Python functions, each once" \
		awk -F'\t' -v c="<module> > outer > inner" '
			$3 ~ /inner@/ { n += $1; s = $3; gsub(/@[^ ]*/, "", s); gsub(/ \| /, " > ", s)
			if (s == c) good += $1 } END { exit !(n >= 50 && good * 100 >= n * 95) }' "$out.frames"
	# A sample from before the process's interpreter was described (its first
	# milliseconds, walked later from a copy of its stack) has no Python frames:
	# its trampolines are the only names of its Python functions, and stay.
	tramp=$(awk '/py::/ { t += $NF } { n += $NF } END { printf "%d %d", t, n }' "$out.folded")
	check "$label: -X perf: no py:: trampoline in a stack with Python frames, few without (${tramp% *} of ${tramp#* } samples)" \
		bash -c "! grep -E 'py::' '$out.folded' | grep -qE ' \\([^;]*\\.py:[0-9]+\\)(;| [0-9]+$)' &&
			[ \$(( ${tramp% *} * 100 )) -le \$(( ${tramp#* } * 2 )) ]"
}

# 6. A process that lies: a fake python3.11 (tests/workloads/fake_python.c) whose frame
#    chains loop or go 300 deep, whose code objects point at garbage, whose names are a
#    megabyte long or full of control bytes, rewritten as they are read; then one whose
#    thread state does not point back to its interpreter.
test_hostile() {
	local out=$TEST_TMP/hostile pid rc rss
	cp "$WORKLOADS/fake_python" "$TEST_TMP/python3.11"
	start_bg "$TEST_TMP/python3.11" hostile $LONG
	pid=$bg_pid
	sleep 0.5
	timeout 60 /usr/bin/time -f %M -o "$out.rss" $FLAMETOP --folded -F 499 --duration 4 -p "$pid" \
		>"$out.folded" 2>"$out.err"
	rc=$?
	end_bg "$pid"
	rss=$(tail -1 "$out.rss")
	check "hostile interpreter: flametop ends on time, exit 0 (got $rc)" [ "$rc" = 0 ]
	check "hostile interpreter: its peak RSS stays bounded (${rss} KiB, at most 100 MiB)" \
		[ "${rss:-999999}" -le 102400 ]
	check "hostile interpreter: a looping chain and a 300-deep one are cut at the depth limit, counted" \
		grep -qE 'python: .*cut \(.*depth limit: [0-9]+' "$out.err"
	check "hostile interpreter: no control byte in any name" \
		bash -c "! LC_ALL=C grep -qP '[\\x00-\\x08\\x0b-\\x1f\\x7f]' '$out.folded'"
	check "hostile interpreter: no name longer than flametop keeps" \
		awk -F';' '{ for (i = 1; i <= NF; i++) if (length($i) > 1100) exit 1 }' "$out.folded"
	check "hostile interpreter: the megabyte name is cut, the escape sequences replaced" \
		grep -qE 'ABCDEFGHIJ[A-Z]*\.\. \(/evil.py:[0-9]+\);.*\?\[31mred\?\[0m' "$out.folded"
	# The rewritten code object's name and first line go in step: mutant_NN at line 200 + NN.
	check "hostile interpreter: a code object rewritten as it is read: some frames gone, none named with another state's name or line" \
		bash -c "grep -q 'code object gone' '$out.folded' &&
			! grep -oE 'mutant_[0-9]+ \\(/evil.py:[0-9]+\\)' '$out.folded' |
			awk -F'[_ :)]' '{ if (\$4 != 200 + \$2) bad = 1 } END { exit !bad }'"

	start_bg "$TEST_TMP/python3.11" badback $LONG
	pid=$bg_pid
	sleep 0.5
	timeout 60 $FLAMETOP --folded --duration 3 -p "$pid" >"$out.bad.folded" 2>"$out.bad.err"
	end_bg "$pid"
	check "a build that does not check out: counted as unsupported, native frames only" \
		bash -c "grep -qE 'python: .*[1-9][0-9]* in unsupported builds' '$out.bad.err' &&
			! grep -qE ' \\([^;]*:[0-9]+\\)' '$out.bad.folded'"
}

# 7. The live screen: Python frames named (files by their base name) and coloured; I
#    shows the interpreter's frames among them and hides them again.
test_screen() {
	local pid attrs
	start_bg /usr/bin/python3.11 "$PYDIR/split.py" $LONG "$TEST_TMP/screen.times"
	pid=$bg_pid
	sleep 1
	screen_start 200 50 "TERM=xterm-256color $FLAMETOP -d 1 -p $pid"
	screen_wait 'leaf_[ab] \(split\.py:[0-9]+\)' 20
	sleep 3 # the recent window: no stack from before the process was described to the walk
	screen_keys e # the hottest path, down to a leaf
	if screen_wait '^ *[0-9.]+% .*leaf_[ab] \(split\.py:[0-9]+\)' 10; then
		ok "screen: Python frames named as qualname (file:LINE), the file by its base name"
	else
		not_ok "screen: Python frames named as qualname (file:LINE)"
		screen_text | diag
	fi
	attrs=$(screen_attrs)
	check "screen: Python frames in the tree in their own colour (256-colour 114)" \
		grep -qP '\e\[[0-9;]*38;5;114[0-9;]*m[^\e]*leaf_[ab] \(split' <<<"$attrs"
	check "screen: Python frames in the icicle in boxes of their own colours (greens)" \
		grep -qP '\e\[[0-9;]*48;5;(194|157|120|114|77)[0-9;]*m\[(leaf_[ab]|middle|outer) \(' <<<"$attrs"
	check "screen: no interpreter frame among them at first" \
		bash -c "! grep -q _PyEval_EvalFrameDefault" <<<"$attrs"
	screen_keys I
	screen_keys e
	if screen_wait '^ *[0-9.]+% .*_PyEval_EvalFrameDefault' 10; then
		ok "screen: I shows the interpreter's frames (_PyEval_EvalFrameDefault)"
	else
		not_ok "screen: I shows the interpreter's frames"
		screen_text | diag
	fi
	screen_keys I
	screen_keys e
	if screen_gone '_PyEval_EvalFrameDefault' 10 && screen_wait '^ *[0-9.]+% .*leaf_[ab] \(split\.py' 10; then
		ok "screen: I again hides them, the Python frames stay"
	else
		not_ok "screen: I again hides them"
		screen_text | diag
	fi
	screen_keys q
	screen_check_exit "screen: q" 0
	screen_stop
	end_bg "$pid"
}

# 8. Annotate (--annotate, the a key): a Python function's lines, from the lines its frames
#    name; annotate.py's work() runs its marked lines hot_a and hot_b 3:1, the same work
#    each. The lines' counts 3:1 within 15%, with their text; on each interpreter found.

# row_count TABLE FILE:LINE: the Count of the annotate table's row at FILE:LINE (0: none).
row_count() { awk -v loc="$2" '$4 == loc { print $3; f = 1 } END { if (!f) print 0 }' "$1"; }

test_annotate() {
	local label=$1 py=$2 script=$PYDIR/annotate.py out=$TEST_TMP/annotate-$1 hot_a hot_b a b
	local text='total \+= sum\(range\(600\)\)  # MARK:'
	hot_a=$(mark "$script" hot_a) hot_b=$(mark "$script" hot_b)
	start_bg "$py" "$script" $LONG
	sleep 1
	$FLAMETOP --annotate work -p "$bg_pid" -F 999 --duration 5 >"$out.table" 2>"$out.err"
	end_bg "$bg_pid"
	diag <"$out.table"
	a=$(row_count "$out.table" "annotate.py:$hot_a")
	b=$(row_count "$out.table" "annotate.py:$hot_b")
	check "$label: --annotate work: the header names the function and its file" \
		grep -qxF "Annotate work in $script" "$out.table"
	check "$label: --annotate work: hot_a ($hot_a), hot_b ($hot_b) 3:1 within 15% ($a : $b)" \
		ratio_within "$a" "$b" 3 0.15
	check "$label: --annotate work: both lines show their text" \
		bash -c "grep -qE ' annotate\\.py:$hot_a +${text}hot_a\$' '$out.table' &&
			grep -qE ' annotate\\.py:$hot_b +${text}hot_b\$' '$out.table'"
	check "$label: --annotate work: its lines hold all its samples, no note" \
		bash -c "sed -n 2p '$out.table' | grep -qE '; its lines hold 100\\.0%$' &&
			[ -z \"\$(sed -n 3p '$out.table')\" ]"
}

# 9. Annotate, a file that lies: a function compiled as if from a FIFO, a directory, a file
#    its process (nobody) may not read, or "<string>". No text, one line why, no hang, the
#    FIFO never opened.
test_annotate_hostile() {
	local dir=$TEST_TMP/pylies out f name rc writer pid why
	mkdir -p "$dir/a_directory.py"
	chmod 755 "$TEST_TMP" "$dir"
	cp "$PYDIR/annotate.py" "$dir/"
	mkfifo "$dir/a_fifo.py"
	seq -f 'secret line %g' 20 >"$dir/secret.py"
	chmod 600 "$dir/secret.py"
	(echo written >"$dir/a_fifo.py") 2>/dev/null &
	writer=$!
	bg_pids+=("$writer")
	for f in a_fifo.py a_directory.py secret.py "<string>"; do
		name=$f
		[ "$f" = "<string>" ] && name=string || f=$dir/$f
		out=$TEST_TMP/pylies-$name
		start_bg setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3.11 \
			"$dir/annotate.py" $LONG "$f"
		pid=$bg_pid
		sleep 1
		timeout 60 $FLAMETOP --annotate "spin ($f)" -p "$pid" --duration 2 >"$out.table" \
			2>"$out.err"
		rc=$?
		end_bg "$pid"
		diag <"$out.table"
		check "annotate $name: flametop ends on time, exit 0 (got $rc)" [ "$rc" = 0 ]
		check "annotate $name: rows for spin's lines, none with text" \
			bash -c "awk '\$4 ~ /:[0-9]+\$/ { rows++; if (NF > 4) bad++ }
				END { exit !(rows && !bad) }' '$out.table'"
		why="source text of $f not shown: not a regular file"
		case $name in
		secret.py) why="source text of $f not shown: not readable as the process" ;;
		string) why="no source text: <string> names no file (code made at run time, or"
			why+=" frozen into the interpreter)" ;;
		esac
		check "annotate $name: one line says why: $why" grep -qxF "$why" "$out.table"
	done
	check "annotate: the FIFO was never opened (its writer still waits)" kill -0 "$writer"
	check "annotate: the file nobody may not read was not read" \
		bash -c "! grep -q 'secret line' '$TEST_TMP'/pylies-*.table"
	end_bg "$writer"
}

# 10. The screen: a on a Python frame opens its function's lines, the hottest selected; i
#     says there are no instructions; q goes back. Live, then -i of a folded file, whose
#     file names are read under --source-dir only.
test_annotate_screen() {
	local script=$PYDIR/annotate.py hot_a hot_b folded=$TEST_TMP/annotate.folded
	hot_a=$(mark "$script" hot_a) hot_b=$(mark "$script" hot_b)
	start_bg /usr/bin/python3.11 "$script" $LONG
	sleep 1
	screen_start 160 40 "$FLAMETOP --no-color -d 1 -p $bg_pid"
	screen_wait 'work \(annotate\.py:[0-9]+\)' 20
	sleep 3 # samples enough that the hotter line is the hotter from the first annotation on
	# The search selects the frame of work()'s cooler line; the view selects the hotter.
	screen_keys /
	screen_keys -l "annotate.py:$hot_b"
	screen_keys Enter
	screen_keys a
	check_screen "screen: a on a Python frame (work at hot_b) opens its function's lines" \
		"^Annotate work in $script\$"
	check_selected "screen: its hottest line (hot_a) is selected" \
		"annotate\\.py:$hot_a +total \\+= sum"
	screen_keys i
	check_screen "screen: i says Python code has no instructions, and stays on the lines" \
		'i: Python code has no instructions to show'
	check_screen "screen: i: the lines stay" 'Line +Source'
	screen_keys q
	check_screen "screen: q: back to the call tree" '^Total%  Self% +Count  Call tree'
	screen_keys q
	end_bg "$bg_pid"

	# A folded file naming this script's lines, 3:1; a pid it claims is no process to read as.
	printf 'python3.11-%s;<module> (%s:45);work (%s:%s) 30\n' $$ "$script" "$script" "$hot_a" \
		>"$folded"
	printf 'python3.11-%s;<module> (%s:45);work (%s:%s) 10\n' $$ "$script" "$script" "$hot_b" \
		>>"$folded"
	screen_start 160 40 "$FLAMETOP --no-color -i $folded"
	screen_wait 'work \(annotate\.py:' 10
	screen_keys /
	screen_keys -l "annotate.py:$hot_b"
	screen_keys Enter a
	check_screen "-i: a on a Python frame opens its function's lines, 3:1" \
		"^ +75\\.0% +0\\.0% +30 +annotate\\.py:$hot_a *\$"
	check_screen "-i: without --source-dir its text is not read, and the view says why" \
		'^source text not read: stacks read from a file name no process to read it as'
	screen_keys q q
	screen_start 160 40 "$FLAMETOP --no-color -i $folded --source-dir $PYDIR/.."
	screen_wait 'work \(annotate\.py:' 10
	screen_keys /
	screen_keys -l "annotate.py:$hot_b"
	screen_keys Enter a
	check_screen "-i --source-dir: the lines' text, from under it" \
		"^ +25\\.0% +0\\.0% +10 +annotate\\.py:$hot_b +total \\+= sum"
	screen_keys q q
	screen_stop
}

test_split
for i in "${!LABELS[@]}"; do
	test_processes "${LABELS[$i]}" "${PYTHONS[$i]}"
done
for c in "flametop ended well" callback "four threads" "fork()" "code objects made again" \
	"exiting process"; do
	skip_missing "$c"
done
test_reuse
test_frees
test_many_processes
test_offcpu
test_read
for i in "${!LABELS[@]}"; do
	case ${LABELS[$i]} in
	pyenv-3.12 | pyenv-3.13) test_perf_truth "${LABELS[$i]}" "${PYTHONS[$i]}" ;;
	esac
done
for m in "${MISSING[@]}"; do
	case $m in
	pyenv-3.12 | pyenv-3.13) skip "$m: ground truth from perf and -X perf" "not installed" ;;
	esac
done
test_hostile
if [ -x /usr/bin/python3.11 ] && command -v tmux >/dev/null; then
	test_screen
else
	not_ok "screen: needs /usr/bin/python3.11 and tmux (make test-deps installs them)"
fi
for i in "${!LABELS[@]}"; do
	test_annotate "${LABELS[$i]}" "${PYTHONS[$i]}"
done
skip_missing "--annotate of a Python function"
test_annotate_hostile
if command -v tmux >/dev/null; then
	test_annotate_screen
else
	not_ok "annotate screen: needs tmux (make test-deps installs it)"
fi
