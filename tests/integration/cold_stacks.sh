#!/usr/bin/env bash
# Whole stacks from the first sample: samples taken before a process's
# unwind tables were in (a new process, flametop's own first second, a wait
# that began before flametop did) are copied and walked once the tables
# are in. Real BPF; stacks checked against the programs' known call
# structure.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "cold stack tests" "not root: BPF programs can't be loaded"
	exit 0
fi

# whole_of FILE COMM: "whole total" of COMM's samples with a user stack
# (a frame after the comm that is not a kernel one): whole unless cut short.
whole_of() {
	awk -v comm="$2" '
		{
			count = $NF; line = $0; sub(/ [0-9]+$/, "", line)
			k = split(line, fr, ";")
			if (fr[1] != comm || k < 2 || fr[2] ~ /_\[k\]$/) next
			total += count
			if (fr[2] != "[truncated]") whole += count
		}
		END { print whole + 0, total + 0 }' "$1"
}

# at_least PCT PART TOTAL: PART is at least PCT% of TOTAL (and TOTAL > 0).
at_least() { [ "$3" -gt 0 ] && [ $(($2 * 100)) -ge $(($3 * $1)) ]; }

# sample_runs NAME COMM SECS HZ N COMMAND...: flametop -c COMM --group pid for
# SECS seconds at HZ, while COMMAND runs N times, one after the other, from
# its attach on: NAME.folded and NAME.err, and NAME_comm.folded, its first
# frames "COMM [PID]" made plain COMM for whole_of.
sample_runs() {
	local name=$1 comm=$2 secs=$3 hz=$4 n=$5 before ft
	shift 5
	before=$(newest_program_id)
	$FLAMETOP --folded --duration "$secs" -F "$hz" -c "$comm" --group pid \
		>"$TEST_TMP/$name.folded" 2>"$TEST_TMP/$name.err" &
	ft=$!
	if wait_program_after "$before"; then
		sleep 0.3
		for _ in $(seq "$n"); do "$@"; done
	fi
	wait "$ft"
	sed -E "s/^$comm \\[[0-9]+\\];/$comm;/" "$TEST_TMP/$name.folded" >"$TEST_TMP/${name}_comm.folded"
}

# named_pids FILE REGEX: "named pids" of FILE (grouped by pid): how many of
# its processes have a stack matching REGEX, of how many.
named_pids() {
	awk -v re="$2" '
		{ line = $0; sub(/ [0-9]+$/, "", line); split(line, fr, ";"); p = fr[1]
		  if (!(p in seen)) { seen[p] = 1; n++ }
		  if (line ~ re) ok[p] = 1 }
		END { for (p in ok) m++; print m + 0, n + 0 }' "$1"
}

# 1. Fifty processes of 60 ms, each new to flametop when it runs: their
# samples come before flametop has read their maps; the first ones' also
# before short_spin's table is built.
sample_runs short short_spin 7 499 50 "$WORKLOADS/short_spin" 60
read -r whole total < <(whole_of "$TEST_TMP/short_comm.folded" short_spin)
if at_least 95 "$whole" "$total"; then
	ok "at least 95% of 50 short-lived processes' samples are whole ($whole of $total)"
else
	not_ok "at least 95% of 50 short-lived processes' samples are whole ($whole of $total)"
	diag <"$TEST_TMP/short.err"
	grep truncated "$TEST_TMP/short.folded" | head -n 5 | diag
fi
check "the walks from copies are said in the summary" \
	grep -qE 'walked from copies of the stack' "$TEST_TMP/short.err"
# Every process named: each pid's samples reach short_spin_leaf through main.
read -r named pids < <(named_pids "$TEST_TMP/short.folded" ';main;short_spin_work;short_spin_leaf(;|$)')
if [ "$pids" -ge 40 ] && [ "$named" -eq "$pids" ]; then
	ok "every short-lived process is named: main;short_spin_work;short_spin_leaf ($named of $pids)"
else
	not_ok "every short-lived process is named: main;short_spin_work;short_spin_leaf ($named of $pids)"
	head -n 5 "$TEST_TMP/short.folded" | diag
fi

# 2. A hundred processes of 8 ms that each dlopen() a library and spin in
# it: they have ended before their notes are read (/proc has nothing left
# of them), and their library was mapped after their start. Their
# mappings come from the kernel's mmap records (symbols/mmap_watch.h).
cat >"$TEST_TMP/late.c" <<'SRC'
void late_lib_spin(void)
{
	for (volatile long i = 0; i < 2000000; i++)
		;
}
SRC
gcc -O2 -g -fPIC -shared -o "$TEST_TMP/liblate.so" "$TEST_TMP/late.c"
sample_runs brief dlopen_late 6 999 100 "$WORKLOADS/dlopen_late" "$TEST_TMP/liblate.so" 0 0.008
read -r whole total < <(whole_of "$TEST_TMP/brief_comm.folded" dlopen_late)
if [ "$total" -ge 100 ] && at_least 95 "$whole" "$total"; then
	ok "at least 95% of 100 processes of 8 ms that dlopen a library are whole ($whole of $total)"
else
	not_ok "at least 95% of 100 processes of 8 ms that dlopen a library are whole ($whole of $total)"
	diag <"$TEST_TMP/brief.err"
	grep truncated "$TEST_TMP/brief.folded" | head -n 5 | diag
fi
# Named: a process of 8 ms may have had all its few samples in its start
# (the dynamic linker), none in the library; the library's code is never
# left a file and offset.
read -r named pids < <(named_pids "$TEST_TMP/brief.folded" ';__libc_start_main;.*;main;late_lib_spin$')
unnamed=$(grep -c 'liblate\.so+0x' "$TEST_TMP/brief.folded")
if [ "$pids" -ge 80 ] && at_least 90 "$named" "$pids" && [ "$unnamed" -eq 0 ]; then
	ok "they are named, their library too: __libc_start_main ... main;late_lib_spin ($named of $pids processes)"
else
	not_ok "they are named, their library too: __libc_start_main ... main;late_lib_spin ($named of $pids processes, $unnamed stacks liblate.so+0x...)"
	grep -v ';main;late_lib_spin [0-9]*$' "$TEST_TMP/brief.folded" | head -n 5 | diag
fi

# 3. flametop's own first second, system-wide, beside a Python loop and a
# compiler (cc1, whose table is large: 0.4 s to build here) busy with a big
# file: their samples from the first second are whole.
cat >"$TEST_TMP/loop.py" <<'EOF'
def spin(n):
    total = 0
    for i in range(n):
        total += i * i
    return total

while True:
    spin(100000)
EOF
awk 'BEGIN { for (i = 0; i < 6000; i++)
	printf "int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d %% 7; return s; }\n", i, i }' \
	>"$TEST_TMP/big.c"
start_bg /usr/bin/python3.11 "$TEST_TMP/loop.py"
python_pid=$bg_pid
start_bg bash -c "while :; do gcc -O2 -c '$TEST_TMP/big.c' -o '$TEST_TMP/big.o'; done"
compiler_loop=$bg_pid
sleep 2
$FLAMETOP --folded --duration 1 -F 499 >"$TEST_TMP/first.folded" 2>"$TEST_TMP/first.err"
kill "$python_pid" 2>/dev/null
pkill -P "$compiler_loop" 2>/dev/null
kill "$compiler_loop" 2>/dev/null
read -r pw pt < <(whole_of "$TEST_TMP/first.folded" python3.11)
read -r cw ct < <(whole_of "$TEST_TMP/first.folded" cc1)
if [ "$pt" -ge 50 ] && [ "$ct" -ge 50 ] && at_least 98 $((pw + cw)) $((pt + ct)); then
	ok "the first second's user stacks of python3.11 and cc1 are at least 98% whole ($((pw + cw)) of $((pt + ct)))"
else
	not_ok "the first second's user stacks of python3.11 and cc1 are at least 98% whole (python3.11 $pw of $pt, cc1 $cw of $ct)"
	diag <"$TEST_TMP/first.err"
	grep -E '^(python3.11|cc1);\[truncated\]' "$TEST_TMP/first.folded" | head -n 5 | diag
fi

# 4. Off-CPU waits that began before flametop did: `sleep 30`, and a
# server thread blocked in accept(), seen from flametop's start, whole.
start_bg sleep 30
sleep_pid=$bg_pid
start_bg "$WORKLOADS/accept_wait" "$TEST_TMP/port" 30
accept_pid=$bg_pid
sleep 1
$FLAMETOP --mode offcpu --folded --duration 2 -p "$sleep_pid,$accept_pid" \
	>"$TEST_TMP/waits.folded" 2>"$TEST_TMP/waits.err"
check "sleep 30, begun before flametop, shows its wait whole (__libc_start_main ... nanosleep), ~2 s" \
	awk '/^sleep;.*__libc_start_main;.*nanosleep/ && !/\[truncated\]/ { s += $NF }
		END { exit !(s >= 1800000 && s <= 2200000) }' "$TEST_TMP/waits.folded"
check "a thread blocked in accept() since before flametop started shows whole while still blocked" \
	awk '/^accept_wait;clone3;start_thread;serve;accept_one;accept;/ { s += $NF }
		END { exit !(s >= 1800000 && s <= 2200000) }' "$TEST_TMP/waits.folded"
# ... and after: a client comes a second in; the wait it ends is counted whole, and the next one.
(sleep 1 && exec 3<>"/dev/tcp/127.0.0.1/$(cat "$TEST_TMP/port")" && cat <&3 >/dev/null) &
$FLAMETOP --mode offcpu --folded --duration 3 -p "$accept_pid" >"$TEST_TMP/after.folded" \
	2>"$TEST_TMP/after.err"
check "... and after it is woken: both waits in accept() whole, ~3 s in all" \
	awk '/^accept_wait;clone3;start_thread;serve;accept_one;accept;/ { s += $NF; n++ }
		END { exit !(n >= 1 && s >= 2700000 && s <= 3300000) }' "$TEST_TMP/after.folded"
if ! grep -q 'accept_one' "$TEST_TMP/after.folded"; then
	diag <"$TEST_TMP/after.folded"
fi

# 5. A process with a thousand libraries (a plugin host): 1,004 executable
# mappings, all described to the walk (256 were, and every stack was cut,
# "bad frame").
mkdir -p "$TEST_TMP/libs"
printf 'unsigned long lib_spin(unsigned long n)\n{\n\tvolatile unsigned long s = 0;\n\n\tfor (unsigned long i = 0; i < n; i++)\n\t\ts = s + i;\n\treturn s;\n}\n' \
	>"$TEST_TMP/libs/lib.c"
gcc -O2 -shared -fPIC -o "$TEST_TMP/libs/lib0.so" "$TEST_TMP/libs/lib.c"
for i in $(seq 1 999); do cp "$TEST_TMP/libs/lib0.so" "$TEST_TMP/libs/lib$i.so"; done
start_bg "$WORKLOADS/dlopen_many" "$TEST_TMP/libs" 1000 10
many_pid=$bg_pid
sleep 2 # the libraries loaded
maps=$(grep -c ' r-xp ' "/proc/$many_pid/maps")
$FLAMETOP --folded --duration 3 -p "$many_pid" >"$TEST_TMP/many.folded" 2>"$TEST_TMP/many.err"
kill "$many_pid" 2>/dev/null
read -r whole total < <(whole_of "$TEST_TMP/many.folded" dlopen_many)
spins=$(folded_sum "$TEST_TMP/many.folded" ';main;call_each;lib_spin$')
if [ "$maps" -ge 1000 ] && at_least 95 "$whole" "$total" && at_least 80 "$spins" "$total"; then
	ok "a process with $maps executable mappings: stacks whole ($whole of $total), main;call_each;lib_spin ($spins)"
else
	not_ok "a process with $maps executable mappings: stacks whole ($whole of $total), main;call_each;lib_spin ($spins)"
	diag <"$TEST_TMP/many.err"
fi

# 6. --unwind-memory 8 with 300 busy processes: the walks that find no room
# say which limit they met, and the kernel's maps for the walk (tables,
# rules, processes, the mappings' pool) stay within the 8 MiB.
# flametop first: 300 busy processes leave it (and this script) little CPU to start with.
newest=$(newest_program_id)
$FLAMETOP --folded --duration 12 --unwind-memory 8 -c spin_procs -o /dev/null 2>"$TEST_TMP/mem.err" &
ft=$!
wait_program_after "$newest" || echo "# flametop did not attach" >&2
# 300 processes, 256 slots: a process sampled after the slots ran out walks as far as its leaf.
start_bg "$WORKLOADS/spin_procs" 300 10
spinners=$bg_pid
sleep 8
# The walk's maps flametop holds (their memlock in its fdinfo), and the tables in its array of them.
memlock=0
for f in /proc/$ft/fdinfo/*; do
	id=$(sed -nE 's/^map_id:\s+([0-9]+)/\1/p' "$f" 2>/dev/null)
	[ -n "$id" ] || continue
	name=$(bpftool map show id "$id" 2>/dev/null | sed -nE 's/.* name ([a-z_]+) .*/\1/p')
	case "$name" in
	flametop_rules | flametop_procs | flametop_maps | flametop_pids | flametop_tables)
		memlock=$((memlock + $(sed -nE 's/^memlock:\s+([0-9]+)/\1/p' "$f")))
		if [ "$name" = flametop_tables ]; then
			for inner in $(bpftool -j map dump id "$id" 2>/dev/null | grep -oE '"value": ?[0-9]+' | grep -oE '[0-9]+$'); do
				memlock=$((memlock + $(bpftool -j map show id "$inner" | grep -oE '"bytes_memlock": ?[0-9]+' | grep -oE '[0-9]+$')))
			done
		fi
		;;
	esac
done
wait "$ft"
pkill -P "$spinners" 2>/dev/null
check "with --unwind-memory 8 the walk's kernel maps take $((memlock / 1024)) KiB: within 8 MiB" \
	[ "$memlock" -gt 0 -a "$memlock" -le $((8 << 20)) ]
walks=$(grep -E 'user stacks by' "$TEST_TMP/mem.err")
# The copies of stacks the kernel could not walk are walked later with the
# tables in user space: when they made (almost) every walk whole, no walk was
# left cut by a limit, and none may say it was cut for another reason.
check "... and the walks that found no room say which limit (or copies walked later made them whole): $walks" \
	bash -c "grep -qE 'process slots full: [0-9]+|unwind memory: [0-9]+' <<<\"\$1\" ||
		awk '{ for (i = 1; i < NF; i++) { if (\$(i + 1) ~ /^whole/) w = \$i; if (\$(i + 1) ~ /^truncated/) t = \$i } }
		     END { exit !(w > 0 && t * 50 <= w + t) }' <<<\"\$1\"" _ "$walks"
