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
		# As the live screen: keeping its functions' addresses (the annotate view's).
		read -r _ d r w t a m stacks missing _ < <(build/bench/refresh "$n" addresses)
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
echo "and name every frame, rebuild the view (keep the stacks that pass the filters, make"
echo "the tree's rows), draw 200x50 (the icicle makes the nodes it draws). The profile keeps"
echo "its functions' addresses, as the live screen's does (see \"Annotate view\" for the cost)."
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
for n in "${sizes[@]}"; do
	[ -z "${invalid[$n]:-}" ] || echo "- $n stacks: a run did not bring them all: ${invalid[$n]}"
done
echo "Where the time goes: each new stack and each new counts key crosses from BPF"
echo "once, through a ring buffer, and counts are read from arrays mapped into"
echo "flametop's memory, so a drain makes no system call per stack or per key. Most of"
echo "the drain is naming: these stacks are ~40 frames deep (400k frames for 10k stacks,"
echo "4M for 100k); the outer frames a stack shares with the previous one of its process"
echo "are taken from a memo, the others looked up, and a kernel stack met before is"
echo "copied whole. At 1k, the first refresh also reads the workload's and libc's symbol"
echo "tables (libc's 10k symbols radix-sorted by address). Rebuilding sorts the new stacks"
echo "into the profile's order and keeps those that pass the filters; the view's nodes are"
echo "made from them as the screen shows them (a node's children grouped from its stacks,"
echo "which the sorted order keeps together), not the whole trie. At 100k the BPF maps that"
echo "remember the stacks and keys already sent are 3/4 full after the interval: the drain"
echo "switches to their empty twins (a store to shared memory) and a worker thread"
echo "replaces the full ones with new maps (deleting their 100k entries one by one took"
echo "~64 ms of the drain before, ~0.4 us each in this kernel). At 100k the first refresh"
echo "also touches ~50 MiB of new memory (profile, the view's stacks); on this VM the first"
echo "touch of a 4 KiB page costs ~2 us, which is most of the difference between the first"
echo "refresh and the second."
