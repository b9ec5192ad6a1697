#!/usr/bin/env bash
# Cold stacks: samples taken before their process's unwind tables were in,
# copied and walked later (bpf/cold_stack.bpf.h, live/cold_stacks.c).
#
# 1. A build of this project (make -j2, from a copy of its sources)
#    sampled system-wide: the share of the compiler's, assembler's and
#    linker's samples whose user stack is whole, beside perf record
#    --call-graph dwarf's on the same build (perf's stack is whole when it
#    reaches _start or a thread's start).
# 2. The first 5 s of a system-wide start on this machine: how many samples
#    took the cold path, and what an event costs in the kernel (bpf_stats)
#    for flametop's on_sample overall.
. "$(dirname "$0")/../bench_lib.sh"

TOOLS='^(cc1|cc1plus|as|ld|collect2|clang|gcc)$'

# whole_shares FOLDED: "comm whole total" for the build's tools, from flametop's folded stacks.
whole_shares() {
	awk -v tools="$TOOLS" '
		{ count = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, fr, ";")
		  if (fr[1] !~ tools || k < 2 || fr[2] ~ /_\[k\]$/) next
		  total[fr[1]] += count; if (fr[2] != "[truncated]") whole[fr[1]] += count }
		END { for (c in total) print c, whole[c] + 0, total[c] }' "$1"
}

# perf_shares SCRIPT: the same from perf script's text: a sample's stack is
# whole when its outermost user frame is _start, __libc_start_main or a
# thread's start (clone3, start_thread), or the one below it is
# __libc_start_main: the outermost is then the program's own _start, which
# perf leaves "[unknown]" in a stripped program (as, ld).
perf_shares() {
	awk -v tools="$TOOLS" '
		function done() {
			if (comm !~ tools || !users) return
			total[comm]++
			if (outer ~ /^(_start|__libc_start_main|__libc_start_call_main|clone3?|start_thread)(\+|$)/ ||
			    below ~ /^__libc_start_main(_impl)?(\+|$)/) whole[comm]++
		}
		/^[^ \t]/ { done(); comm = $1; users = 0; outer = below = ""; next }
		/^[ \t]+[0-9a-f]+ / { if ($0 !~ /\[kernel\.kallsyms\]/) { users++; below = outer; outer = $2 } }
		END { done(); for (c in total) print c, whole[c] + 0, total[c] }' "$1"
}

# build_copy DIR: a copy of this project's sources in DIR, clean.
build_copy() {
	mkdir -p "$1"
	git archive HEAD | tar -x -C "$1"
	cp build/vmlinux.h "$1/" 2>/dev/null
}

echo "## Cold stacks"
echo
echo "A build of this project (\`make -j2 flametop\`, from a clean copy of its sources) sampled"
echo "system-wide at 99 Hz: the share of the build tools' samples whose user stack is whole, with"
echo "flametop (copies of the stacks its walk could not finish yet, walked once the tables are"
echo "in) and with \`perf record -a --call-graph dwarf\` (8 KiB of stack copied per sample)."
echo
rows=()
for tool in flametop perf; do
	src="$BENCH_TMP/src-$tool"
	build_copy "$src"
	if [ "$tool" = flametop ]; then
		$FLAMETOP --folded -o "$BENCH_TMP/build.folded" 2>"$BENCH_TMP/build.err" &
	else
		perf record -a -F 99 --call-graph dwarf -o "$BENCH_TMP/perf.data" >/dev/null 2>&1 &
	fi
	pid=$!
	sleep 2
	make -C "$src" -j2 VMLINUX_H="$src/vmlinux.h" flametop >/dev/null 2>&1
	interrupt "$pid"
	if [ "$tool" = flametop ]; then
		whole_shares "$BENCH_TMP/build.folded" >"$BENCH_TMP/$tool.shares"
	else
		perf script -i "$BENCH_TMP/perf.data" 2>/dev/null >"$BENCH_TMP/perf.txt"
		perf_shares "$BENCH_TMP/perf.txt" >"$BENCH_TMP/$tool.shares"
	fi
	rm -rf "$src"
done
join <(sort "$BENCH_TMP/flametop.shares") <(sort "$BENCH_TMP/perf.shares") -a 1 -e 0 -o 0,1.2,1.3,2.2,2.3 |
	awk '{ printf "%s\t%d of %d (%.1f%%)\t%d of %d (%.1f%%)\n", $1, $2, $3,
		$3 ? 100 * $2 / $3 : 0, $4, $5, $5 ? 100 * $4 / $5 : 0 }' |
	md_table "command" "flametop: whole" "perf --call-graph dwarf: whole"
echo
grep -E 'user stacks by' "$BENCH_TMP/build.err" | sed 's/^flametop: /flametop said: /'
echo

echo "The first 5 s of a system-wide start (99 Hz), $BENCH_RUNS runs: samples walked"
echo "from copies, and the in-kernel cost of on_sample per sample over the run, steady"
echo "and cold together (\`kernel.bpf_stats_enabled\`)."
echo
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
on_exit "sysctl -qw kernel.bpf_stats_enabled=$old"
copied=() cost=() samples=()
for _ in $(seq "$BENCH_RUNS"); do
	$FLAMETOP --folded --duration 5 -o /dev/null 2>"$BENCH_TMP/start.err" &
	pid=$!
	sleep 4.5
	c=$(flametop_programs_of "$pid" | while read -r p; do bpftool prog show id "$p"; done | run_cost)
	wait "$pid"
	[ -n "$c" ] && cost+=("${c%% *}") # none: it had not attached yet (a loaded machine)
	copied+=("$(sed -nE 's/.* ([0-9]+) walked from copies.*/\1/p' "$BENCH_TMP/start.err" | grep . || echo 0)")
	samples+=("$(sed -nE 's/^flametop: ([0-9]+) samples.*/\1/p' "$BENCH_TMP/start.err")")
done
printf 'samples in 5 s\t%s\nwalked from copies\t%s\nns per sample in the kernel\t%s\n' \
	"$(median_minmax "${samples[@]}")" "$(median_minmax "${copied[@]}")" \
	"$(median_minmax "${cost[@]}")" | md_table "" "median (min-max)"

# Steady state: on_sample's cost per sample of a process whose tables are
# long in (cpu_split, -p), with this build and with the build before cold
# stacks (BENCH_COLD_BASE, a commit: the copies, the mappings' pool and the
# walk that keeps only trusted callers came after it), alternating.
BASE=${BENCH_COLD_BASE:-11f45df}
echo
echo "Steady state: in-kernel cost of on_sample per sample of cpu_split (tables in for"
echo "seconds; -p, -F 999, 4 s, \`kernel.bpf_stats_enabled\`), this build against the build"
echo "of $BASE (before cold stacks), alternating, $BENCH_RUNS runs each."
echo
if git cat-file -e "$BASE^{commit}" 2>/dev/null; then
	base_src="$BENCH_TMP/base"
	mkdir -p "$base_src"
	git archive "$BASE" | tar -x -C "$base_src"
	cp build/vmlinux.h "$base_src/" 2>/dev/null
	make -C "$base_src" -j2 VMLINUX_H="$base_src/vmlinux.h" flametop >/dev/null 2>&1
	"$WORKLOADS/cpu_split" 600 &
	split=$!
	on_exit "kill $split 2>/dev/null"
	sleep 1
	now=() before=()
	for _ in $(seq "$BENCH_RUNS"); do
		for bin in "$FLAMETOP" "$base_src/flametop"; do
			"$bin" --folded -F 999 --duration 4 -p "$split" -o /dev/null 2>/dev/null &
			pid=$!
			sleep 3.7
			c=$(flametop_programs_of "$pid" | while read -r p; do bpftool prog show id "$p"; done |
				run_cost)
			wait "$pid"
			[ -z "$c" ] && continue # it had not attached yet (a loaded machine)
			if [ "$bin" = "$FLAMETOP" ]; then now+=("${c%% *}"); else before+=("${c%% *}"); fi
		done
	done
	kill "$split" 2>/dev/null
	printf 'this build\t%s\nbefore cold stacks (%s)\t%s\nratio of medians\t%s\n' \
		"$(median_minmax "${now[@]}")" "$BASE" "$(median_minmax "${before[@]}")" \
		"$(ratio "$(median "${now[@]}")" "$(median "${before[@]}")")" |
		md_table "build" "ns per sample, median (min-max)"
else
	echo "(not measured: commit $BASE is not in this clone)"
fi
