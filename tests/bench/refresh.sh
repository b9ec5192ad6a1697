#!/usr/bin/env bash
# The refresh pipeline, through the same code as live (build/bench/refresh):
# N distinct stacks arrive in one interval (real read() call paths of
# build/workloads/stack_tree, captured in read mode), then one refresh
# drains the BPF maps and names every frame, rebuilds the view, and draws
# a 200x50 screen. A second refresh of the same stacks shows the cost once
# their names are known. Also the resident memory after both (figure f).
. "$(dirname "$0")/../bench_lib.sh"

declare -A drain rebuild draw total again rss invalid
sizes=(1000 10000 100000)
for _ in $(seq "$BENCH_RUNS"); do
	for n in "${sizes[@]}"; do
		read -r _ d r w t a m stacks missing < <(build/bench/refresh "$n")
		# The profile holds the workload's N stacks plus the process's own root.
		[ "$missing" = 0 ] && [ "$stacks" -ge "$n" ] ||
			invalid[$n]+="(a run brought $stacks stacks, $missing missing) "
		drain[$n]+="$d " rebuild[$n]+="$r " draw[$n]+="$w " total[$n]+="$t "
		again[$n]+="$a " rss[$n]+="$((m / 1024)) "
	done
done

echo "## Refresh pipeline"
echo
echo "One refresh when N distinct stacks arrived in the last interval: drain the BPF maps"
echo "and name every frame, rebuild the view (trie, flat list, tree rows), draw 200x50."
echo "Then a second refresh of the same N stacks (names known). Milliseconds, median of"
echo "$BENCH_RUNS runs (min-max); RSS of the whole process after both, MiB."
echo
echo "| unique stacks | drain + name | rebuild | draw | refresh | target | same stacks again | RSS (MiB) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
targets=([1000]=2 [10000]=15 [100000]=150)
for n in "${sizes[@]}"; do
	# shellcheck disable=SC2086
	echo "| $n | $(median_minmax ${drain[$n]}) | $(median_minmax ${rebuild[$n]}) | $(median_minmax ${draw[$n]}) | **$(median_minmax ${total[$n]})** | ${targets[$n]} | $(median_minmax ${again[$n]}) | $(median_minmax ${rss[$n]}) |"
done
echo
echo "Where the time goes: a STACK_TRACE map can be read only one stack per bpf() call,"
echo "and emptied only one stack per call, so N new stacks cost about 2N system calls"
echo "before any naming. At these sizes the maps are past 1/8 full after one drain and"
echo "are emptied (to keep hash collisions rare), so the second refresh reads the stacks"
echo "again; with fewer distinct stacks per interval (live sampling at 99 Hz brings a few"
echo "hundred a second) each is read once and kept. Rebuilding grows with the trie: these"
echo "stacks are 40 frames deep and share little, so 10k stacks make ~200k nodes."
