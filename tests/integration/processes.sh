#!/usr/bin/env bash
# Processes that are hard to name: deleted and replaced executables,
# processes that exit before the drain, a library loaded after sampling
# started, a command name holding an ESC byte. Real BPF, names asserted.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "process naming tests" "not root: BPF programs can't be loaded"
	exit 0
fi

# user_leaf_named FILE COMM FUNCS: "named total" for the samples of COMM:
# named when the last user frame is one of FUNCS (a |-separated list).
user_leaf_named() {
	awk -v comm="$2" -v funcs="$3" '
		BEGIN { n = split(funcs, f, "|"); for (i = 1; i <= n; i++) want[f[i]] = 1 }
		{
			count = $NF; line = $0; sub(/ [0-9]+$/, "", line)
			k = split(line, fr, ";")
			if (fr[1] != comm) next
			total += count; leaf = ""
			for (i = 2; i <= k; i++) if (fr[i] !~ /_\[k\]$/) leaf = fr[i]
			if (leaf in want) named += count
		}
		END { print named + 0, total + 0 }' "$1"
}

# 1. A running executable that was deleted, and one replaced by another file.
cp "$WORKLOADS/cpu_split" "$TEST_TMP/deleted_split"
start_bg "$TEST_TMP/deleted_split" 5
deleted_pid=$bg_pid
cp "$WORKLOADS/cpu_split" "$TEST_TMP/replaced_split"
start_bg "$TEST_TMP/replaced_split" 5
replaced_pid=$bg_pid
sleep 0.3
rm "$TEST_TMP/deleted_split"
cp "$WORKLOADS/syscall_loop" "$TEST_TMP/other" && mv "$TEST_TMP/other" "$TEST_TMP/replaced_split"
$FLAMETOP --folded --duration 2 -p "$deleted_pid,$replaced_pid" >"$TEST_TMP/gone.folded" 2>"$TEST_TMP/gone.err"
check "a deleted executable still running is named (deleted_split;...;main;work;leaf_a)" \
	grep -qE '^deleted_split;.*;main;work;leaf_a [0-9]+$' "$TEST_TMP/gone.folded"
check "a replaced executable is named from the file it runs, not the new one" \
	bash -c "grep -qE '^replaced_split;.*;main;work;leaf_[ab] [0-9]+$' '$TEST_TMP/gone.folded' &&
		! grep -q 'read_zeros' '$TEST_TMP/gone.folded'"

# short_lived OUT FLAGS...: forty processes of 60 ms each, started one after
# the other while flametop samples with FLAGS into OUT; each has exited long
# before the drain that names its samples. Prints "named total" of their samples.
short_lived() {
	local out=$1 before ft
	shift
	before=$(newest_program_id)
	$FLAMETOP --folded --duration 6 "$@" >"$out" 2>"$out.err" &
	ft=$!
	if wait_program_after "$before"; then
		sleep 0.5
		for _ in $(seq 40); do "$WORKLOADS/short_spin" 60; done
	fi
	wait "$ft"
	user_leaf_named "$out" short_spin 'short_spin_leaf|short_spin_work|main'
}

# check_named WHAT NAMED TOTAL OUT: at least 90% of the TOTAL samples named
# (97-99% here; 80% when notes of new processes went unread for a drain).
check_named() {
	if [ "$3" -gt 0 ] && [ $(($2 * 100)) -ge $(($3 * 90)) ]; then
		ok "at least 90% of $1 are named ($2 of $3)"
	else
		not_ok "at least 90% of $1 are named ($2 of $3)"
		sort -t' ' -k2 -nr "$4" | head -n 5 | diag
	fi
}

# 2. Short-lived processes, alone (-c short_spin) at 499 Hz.
read -r named total < <(short_lived "$TEST_TMP/short.folded" -F 499 -c short_spin)
check "short-lived processes were sampled ($total samples)" [ "$total" -ge 200 ]
check_named "the short-lived processes' samples" "$named" "$total" "$TEST_TMP/short.folded"

# 2b. The same at 99 Hz while a shell starts processes without pause: their
# notes keep the loop in its quiet times between wakeups (80 ms), and a
# 60 ms process is still named, its note read while it runs or, once it
# ended, with the mappings the kernel announced.
start_bg bash -c 'while :; do /bin/true; done'
churn=$bg_pid
read -r named total < <(short_lived "$TEST_TMP/churn.folded")
kill "$churn"
check "short-lived processes were sampled amid churn ($total samples)" [ "$total" -ge 120 ]
check_named "their samples amid churn" "$named" "$total" "$TEST_TMP/churn.folded"
# The dynamic loader's start code has no type in its debug file's symbols
# (libc6-dbg): an assembly label, named as perf names it.
check "the loader's start code is named in the churn's stacks (true;_start;_dl_start), never ld-linux-x86-64.so.2+0x..." \
	bash -c "grep -qE '^true;_start;_dl_start;' '$TEST_TMP/churn.folded' &&
		! grep -qE '^true;ld-linux-x86-64\.so\.2\+0x' '$TEST_TMP/churn.folded'"

# 3. A library loaded with dlopen after sampling started.
cat >"$TEST_TMP/late.c" <<'SRC'
void late_lib_spin(void)
{
	for (volatile long i = 0; i < 2000000; i++)
		;
}
SRC
gcc -O2 -g -fPIC -shared -o "$TEST_TMP/liblate.so" "$TEST_TMP/late.c"
start_bg "$WORKLOADS/dlopen_late" "$TEST_TMP/liblate.so" 1.5 5
late_pid=$bg_pid
$FLAMETOP --folded --duration 3.5 -p "$late_pid" >"$TEST_TMP/late.folded" 2>"$TEST_TMP/late.err"
check "a library dlopen()ed after sampling started is named (main;late_lib_spin)" \
	grep -qE '^dlopen_late;.*;main;late_lib_spin [0-9]+$' "$TEST_TMP/late.folded"
check "no frame of it is left as liblate.so+0x..." \
	bash -c "! grep -q 'liblate.so+0x' '$TEST_TMP/late.folded'"

# 4. A command name holding an ESC byte (the name of the executable).
esc_bin="$TEST_TMP/esc"$'\e'"[2Jcomm"
cp "$WORKLOADS/cpu_split" "$esc_bin"
start_bg "$esc_bin" 3
esc_pid=$bg_pid
$FLAMETOP --folded --duration 1.5 -p "$esc_pid" >"$TEST_TMP/esc.folded" 2>"$TEST_TMP/esc.err"
check "the comm is shown with its ESC replaced (esc?[2Jcomm;...)" \
	grep -qE '^esc\?\[2Jcomm;.*;main;work;leaf_a [0-9]+$' "$TEST_TMP/esc.folded"
check "no ESC byte reaches the output" bash -c "! grep -q $'\e' '$TEST_TMP/esc.folded' '$TEST_TMP/esc.err'"

# 5. A process the walk has mappings of is let go when it ends (the exit hook's
# note: its entry leaves the walk's pid map), and none is asked after at each
# drain (kill(pid, 0) for each, as before the exit hook): a spinner that lives
# through the run (started before it: a young process is read again while its
# libraries load, a kill(pid, 0) each time) and one that ends within it.
# in_pid_map PID: is PID a key of the walk's pid map (4 bytes, little-endian)?
in_pid_map() {
	local key
	key=$(printf '%08x' "$1" | sed -E 's/(..)(..)(..)(..)/\4 \3 \2 \1/')
	bpftool map dump name flametop_pids 2>/dev/null | grep -q "key: $key "
}
start_bg "$WORKLOADS/short_spin" 10000
long_pid=$bg_pid
sleep 1
strace -f -qq -e trace=kill -o "$TEST_TMP/kill.trace" \
	$FLAMETOP --folded --duration 7 >"$TEST_TMP/exit.folded" 2>"$TEST_TMP/exit.err" &
ft_pid=$!
sleep 1
start_bg "$WORKLOADS/short_spin" 1500
short_pid=$bg_pid
sleep 1.2
both=no
in_pid_map "$long_pid" && in_pid_map "$short_pid" && both=yes
check "both spinners are in the walk's pid map while they run" [ "$both" = yes ]
wait "$short_pid"
sleep 2 # a drain or two: the exit note is read with them
check "the one that ended left the walk's pid map" bash -c "$(declare -f in_pid_map); ! in_pid_map $short_pid"
check "the one still running is still there" in_pid_map "$long_pid"
wait "$ft_pid"
asked=$(grep -c "kill($long_pid, 0)" "$TEST_TMP/kill.trace")
check "a running process is not asked after at each drain (kill(pid, 0) $asked times in 7 s)" \
	[ "$asked" -le 4 ]
