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

# 2. Forty processes of 60 ms each, started one after the other while sampling:
# each has exited long before the drain that names its samples.
before=$(newest_program_id)
$FLAMETOP --folded --duration 6 -F 499 -c short_spin >"$TEST_TMP/short.folded" 2>"$TEST_TMP/short.err" &
ft=$!
if wait_program_after "$before"; then
	sleep 0.5
	for _ in $(seq 40); do "$WORKLOADS/short_spin" 60; done
fi
wait "$ft"
read -r named total < <(user_leaf_named "$TEST_TMP/short.folded" short_spin \
	'short_spin_leaf|short_spin_work|now_ms|main')
check "short-lived processes were sampled ($total samples)" [ "$total" -ge 200 ]
if [ "$total" -gt 0 ] && [ $((named * 100)) -ge $((total * 70)) ]; then
	ok "at least 70% of the short-lived processes' samples are named ($named of $total)"
else
	not_ok "at least 70% of the short-lived processes' samples are named ($named of $total)"
	sort -t' ' -k2 -nr "$TEST_TMP/short.folded" | head -n 5 | diag
fi

# 3. A library loaded with dlopen after sampling started.
cat >"$TEST_TMP/late.c" <<'SRC'
void late_lib_spin(void)
{
	for (volatile long i = 0; i < 2000000; i++)
		;
}
SRC
gcc -O0 -fno-omit-frame-pointer -fPIC -shared -o "$TEST_TMP/liblate.so" "$TEST_TMP/late.c"
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
