#!/usr/bin/env bash
# A process of 30,000 executable mappings running code past the 256 the
# unwinder describes: its walks keep saying its maps are stale, and each
# note had flametop read its 60,000-line maps again (five times a second
# here: 13% of a CPU; 6.4 CPU-s in 30 s in the attack). The maps are read
# again only when the sizes of its mappings changed, else after a back-off.
# flametop's CPU time over ten seconds of sampling, read from /proc (its
# start, the BPF programs' load and the first reads, left out), must stay
# under 2% of a CPU: 0.2-0.6% here. Real BPF, the process run by nobody.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "many mappings test" "not root: BPF programs can't be loaded"
	exit 0
fi
if ! "$WORKLOADS/many_maps" 0 1 >/dev/null; then
	skip "many mappings test" "many_maps generates x86-64 code only"
	exit 0
fi

# cpu_ticks PID: the user and system time PID has used, in clock ticks.
cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

setpriv --reuid=65534 --regid=65534 --clear-groups "$WORKLOADS/many_maps" 60 30000 \
	>"$TEST_TMP/maps.out" &
maps_pid=$!
bg_pids+=("$maps_pid")
for _ in $(seq 100); do grep -q ready "$TEST_TMP/maps.out" && break; sleep 0.1; done
n=$(wc -l <"/proc/$maps_pid/maps")
check "the process has 30,000 executable mappings and as many gaps ($n lines of maps)" \
	test "$n" -ge 60000

start_bg $FLAMETOP --folded -p "$maps_pid" -o "$TEST_TMP/maps.folded" 2>"$TEST_TMP/maps.err"
ft=$bg_pid
for _ in $(seq 600); do [ "$(sampling_events "$ft")" -gt 0 ] && break; sleep 0.1; done
sleep 2 # its first reads of the process
t0=$(cpu_ticks "$ft")
sleep 10
t1=$(cpu_ticks "$ft")
kill -INT "$ft"
wait "$ft"
share=$(awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" \
	'BEGIN { printf "%.2f", 100 * (b - a) / hz / 10 }')
check "flametop's CPU over 10 s of sampling stays under 2% of a CPU (${share}%)" \
	awk -v s="$share" 'BEGIN { exit !(s < 2) }'
check "the process was sampled ($(head -n 1 "$TEST_TMP/maps.err"))" \
	grep -qE '^flametop: [1-9][0-9]* samples' "$TEST_TMP/maps.err"
