#!/usr/bin/env bash
# Perf maps as an attack (issue 15, item 2): four unprivileged processes run
# JIT code, each with a 62 MB /tmp/perf-PID.map whose entries never cover
# that code, so that every sample of it misses. flametop --folded runs
# system-wide (one pass a second) for WARMUP + WINDOW seconds, against the
# same four processes without perf maps. The figures are flametop's CPU
# time per wall second over the window (utime + stime of all its threads,
# after the warmup in which it reads the maps once), its CPU during the
# warmup, its peak RSS (VmHWM) and its RSS at the end, and what its summary
# says of the maps. Each run ends before the next starts. Measured, never asserted.
. "$(dirname "$0")/../bench_lib.sh"

WARMUP=10
WINDOW=20
TICK=$(getconf CLK_TCK)
NOBODY=65534
MAP_LINES=1480000 # 42 bytes a line: 62 MB

if ! "$WORKLOADS/jit_spin" 0 >/dev/null; then
	echo "## Perf maps as an attack"
	echo
	echo "Not measured: jit_spin generates x86-64 code only."
	exit 0
fi

cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk 'NF { print $12 + $13 }'; }
status_kb() { sed -n "s/^$2:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$1/status" 2>/dev/null; }

# The map: entries from 0x10000000 up, 32 bytes apart, far below any mmap()ed code.
awk -v n=$MAP_LINES 'BEGIN { for (i = 0; i < n; i++)
	printf "%x 10 LazyCompile:~fn_%07d x.js:1\n", 268435456 + i * 32, i }' >"$BENCH_TMP/map"
MAP_MB=$(($(stat -c %s "$BENCH_TMP/map") >> 20))

chmod 711 "$BENCH_TMP"
mkdir -m 755 "$BENCH_TMP/bin"
cp "$WORKLOADS/jit_spin" "$BENCH_TMP/bin/"
JIT_PIDS=()
# The JIT processes of the run under way, a pid a line: a run is measured in a subshell, so an
# interrupted one is cleaned up from here.
RUNNING=$BENCH_TMP/running
on_exit '[ -f "$RUNNING" ] && while read -r p; do kill "$p"; rm -f "/tmp/perf-$p.map"; done <"$RUNNING" 2>/dev/null'

# jits_start WITH_MAPS: four jit_spin as nobody, with the map when WITH_MAPS is 1.
jits_start() {
	local i p
	JIT_PIDS=()
	for i in 1 2 3 4; do
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
			"$BENCH_TMP/bin/jit_spin" $((WARMUP + WINDOW + 20)) >/dev/null &
		p=$!
		JIT_PIDS+=("$p")
		echo "$p" >>"$RUNNING"
		if [ "$1" = 1 ]; then
			cp "$BENCH_TMP/map" "/tmp/perf-$p.map"
			chown $NOBODY:$NOBODY "/tmp/perf-$p.map"
		fi
	done
}
jits_stop() {
	local p
	for p in "${JIT_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		rm -f "/tmp/perf-$p.map"
	done
	rm -f "$RUNNING"
	JIT_PIDS=()
}

# measure WITH_MAPS: one run; prints "warmup_cpu_pct window_cpu_pct hwm_mb rss_mb" once its
# flametop has ended and its processes are gone (the next run must not see them: flametop
# runs system-wide, and would read their maps).
measure() {
	local pid t0 t1 t2 hwm rss
	jits_start "$1"
	$FLAMETOP --folded --duration $((WARMUP + WINDOW + 2)) >/dev/null 2>"$BENCH_TMP/err" &
	pid=$!
	t0=$(cpu_ticks "$pid")
	sleep $WARMUP
	t1=$(cpu_ticks "$pid")
	sleep $WINDOW
	t2=$(cpu_ticks "$pid")
	hwm=$(($(status_kb "$pid" VmHWM) / 1024))
	rss=$(($(status_kb "$pid" VmRSS) / 1024))
	wait "$pid"
	jits_stop
	echo "$(awk -v a="$t0" -v b="$t1" -v t="$TICK" -v s=$WARMUP 'BEGIN { printf "%.1f", 100 * (b - a) / t / s }') \
$(awk -v a="$t1" -v b="$t2" -v t="$TICK" -v s=$WINDOW 'BEGIN { printf "%.1f", 100 * (b - a) / t / s }') \
$hwm $rss"
}

declare -A WARM CPU HWM RSS
for run in $(seq "$BENCH_RUNS"); do
	for c in 0 1; do
		read -r w u h r < <(measure $c)
		WARM[$c]+=" $w"
		CPU[$c]+=" $u"
		HWM[$c]+=" $h"
		RSS[$c]+=" $r"
		[ "$c" = 1 ] && SAID=$(grep -o 'symbols: .*' "$BENCH_TMP/err")
	done
done

echo "## Perf maps as an attack"
echo
echo "Four processes (as nobody) run JIT code; with a ${MAP_MB} MB perf map each whose"
echo "$MAP_LINES entries never cover that code, every sample of it misses the map. flametop"
echo "\`--folded\` runs system-wide, one pass a second; CPU is % of one CPU over the ${WINDOW} s"
echo "after a ${WARMUP} s warmup (in which the maps are read once), RSS in MB; median (min-max)"
echo "of $BENCH_RUNS runs. A map is read again only when its file changed, all of them share"
echo "one budget, and one that cannot fit in it is read only until it passes it; the summary"
echo "said: \`${SAID:-nothing}\`."
echo
for c in 0 1; do
	[ "$c" = 0 ] && label="4 JIT processes, no perf map" || label="4 JIT processes, ${MAP_MB} MB perf maps"
	# shellcheck disable=SC2086
	printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$(median_minmax ${WARM[$c]})" \
		"$(median_minmax ${CPU[$c]})" "$(median_minmax ${HWM[$c]})" "$(median_minmax ${RSS[$c]})"
done | md_table "case" "CPU % in the warmup" "CPU % after" "peak RSS (MB)" "RSS at the end (MB)"
