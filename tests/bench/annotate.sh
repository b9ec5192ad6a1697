#!/usr/bin/env bash
# The annotate view's costs (build/bench/annotate, build/bench/refresh):
# opening it on a libc function the first time (libc's debug file and line
# table read) and again; the memory of the address counts at 10,000 stacks
# of compilers; and what keeping those counts adds to a refresh, runs with
# and without them alternated.
. "$(dirname "$0")/../bench_lib.sh"

# least V...: the smallest.
least() { printf '%s\n' "$@" | sort -g | head -n 1; }

declare -a first first_cpu again again_cpu sites bytes stacks
declare -A with_ms without_ms with_cpu without_cpu
sizes=(1000 10000 100000)
fn=""
for _ in $(seq "$BENCH_RUNS"); do
	read -r f fc a ac _ fn < <(timeout 300 build/bench/annotate open)
	first+=("$f") first_cpu+=("$fc") again+=("$a") again_cpu+=("$ac")
	read -r st si by _ < <(timeout 300 build/bench/annotate memory 10000)
	stacks+=("$st") sites+=("$si") bytes+=("$by")
	for n in "${sizes[@]}"; do
		# (a run stuck on its workload ends after 2 minutes, and counts nothing)
		read -r _ _ _ _ t _ _ _ _ c _ < <(timeout 120 build/bench/refresh "$n")
		without_ms[$n]+="$t " without_cpu[$n]+="$c "
		read -r _ _ _ _ t _ _ _ _ c _ < <(timeout 120 build/bench/refresh "$n" addresses)
		with_ms[$n]+="$t " with_cpu[$n]+="$c "
	done
done

echo "## Annotate view"
echo
echo "Opening it on the libc function with the most samples of annotate_work's qsort loop"
echo "(${fn:-?}): the first time reads libc6-dbg's debug file, unpacks its DWARF and reads the"
echo "function's line table, disassembles it and reads what source there is; again, the"
echo "file is kept. Wall-clock and the thread's CPU milliseconds, median of $BENCH_RUNS runs"
echo "(min-max), the workload stopped meanwhile (other jobs share the machine)."
echo
printf '%s\t%s\t%s\t%s\n' \
	"first time" "$(median_minmax "${first[@]}")" "$(median_minmax "${first_cpu[@]}")" "100" \
	"again" "$(median_minmax "${again[@]}")" "$(median_minmax "${again_cpu[@]}")" "5" |
	md_table "open" "ms" "CPU ms" "target ms"
echo
echo "Memory of the address counts (each function's leaf addresses and call sites) when"
echo "the profile holds 10,000 stacks of compilers (cc1 on flametop's sources, -O2, sampled"
echo "at 999 Hz): $(median_minmax "${stacks[@]}") stacks, $(median_minmax "${sites[@]}") sites,"
echo "**$(median_minmax "$(for b in "${bytes[@]}"; do awk -v b="$b" 'BEGIN { printf "%.2f", b / 1048576 }'; done)") MiB** (target: 2 MB more)."
echo
echo "One refresh (build/bench/refresh, read mode's stack_tree: ~45 frames a stack, recursive)"
echo "with the address counts kept (as the live screen does) and without (as before them),"
echo "runs alternated: milliseconds, median (min-max); the CPU time is the refreshing"
echo "thread's. Other jobs share the machine and only ever add time: the ratio of the"
echo "fastest runs says best what the counts cost, that of the medians is shown beside it."
echo
for n in "${sizes[@]}"; do
	# shellcheck disable=SC2086
	printf '%s\t%s\t%s\t%s\t%s\t%s / %s\n' "$n" "$(median_minmax ${without_ms[$n]})" \
		"$(median_minmax ${with_ms[$n]})" "$(median_minmax ${without_cpu[$n]})" \
		"$(median_minmax ${with_cpu[$n]})" \
		"$(ratio "$(least ${with_cpu[$n]})" "$(least ${without_cpu[$n]})")" \
		"$(ratio "$(median ${with_cpu[$n]})" "$(median ${without_cpu[$n]})")"
done | md_table "unique stacks" "without (ms)" "with (ms)" "without (CPU ms)" "with (CPU ms)" \
	"CPU with/without: fastest / median (target 1.10)"
