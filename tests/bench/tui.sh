#!/usr/bin/env bash
# The screen's costs: a refresh (rebuild the view, draw 200x50) for 1k, 10k
# and 100k unique stacks (build/bench/tui), and 1,000,000-stack folded files
# with -i: CPU time and peak memory (VmHWM), the viewer's first screen and
# its keys. Measured only.
. "$(dirname "$0")/../bench_lib.sh"

LINES_IN=${BENCH_BIG_LINES:-1000000}

# max V...: the largest of numbers.
max() { printf '%s\n' "$@" | sort -g | tail -n 1; }

echo "## The screen"
echo
echo "A refresh rebuilds the view from the profile (keeps the stacks that pass the"
echo "filters, makes the nodes of the tree's rows on screen), then draws a 200x50"
echo "screen (tree above icicle, which makes the nodes it draws) into the in-memory"
echo "screen; copying it to the terminal is left to ncurses. The trie's nodes are made"
echo "as they are looked at: \"trie nodes\" is the whole view's, counted by a walk,"
echo "beside those the screen made. Synthetic profiles: 20 processes, 5 to 24 frames"
echo "of framework, a 6-level tree branching 8 ways, kernel frames on a third of the"
echo "stacks. Medians of 7 runs."
echo
build/bench/tui
echo
# The big inputs of issue 17: 1,000,000 stacks, 10 to 30 frames over 5,000
# names (build/bench/big_folded): every frame random (the worst case: the
# view trie gets a node per frame), and shaped like a real profile.
echo "Big folded files: $LINES_IN stacks, 10 to 30 frames deep over 5,000 names of"
echo "8 to 30 characters (\`build/bench/big_folded\`), $BENCH_RUNS runs, medians (min-max)."
echo "\`-i FILE --folded -o /dev/null\` reads the file into a profile, builds the"
echo "view and writes every stack out again: its CPU time (user + system) and"
echo "peak memory (VmHWM), against the targets 2.5 s and 1.5x the file's size."
echo "The viewer (\`build/bench/tui --load\`): read, sort and pack the profile, build,"
echo "draw the first 200x50 screen, then a first look's keys, each rebuilt or"
echo "refreshed and drawn as the app does (target: 100 ms each); Tab is the slowest of"
echo "five, through every layout (the flat list is made when its layout shows)."
echo
echo "| file | size (MB) | \`-i --folded\` CPU (s) | peak (MiB) | peak / size | viewer: first screen (s) | viewer peak (MiB) | E (ms) | / search (ms) | end search (ms) | K (ms) | U (ms) | Tab (ms) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for shape in random graph; do
	build/bench/big_folded "$LINES_IN" "$shape" >"$BENCH_TMP/big.folded"
	size=$(($(stat -c %s "$BENCH_TMP/big.folded") / 1000000))
	cpu=() peak=() first=() e=() search=() unsearch=() k=() u=() tab=() vpeak=()
	for _ in $(seq "$BENCH_RUNS"); do
		read -r c m < <(/usr/bin/time -f '%U %S %M' "$FLAMETOP" -i "$BENCH_TMP/big.folded" --folded \
			-o /dev/null 2>&1 >/dev/null | awk 'END { print $1 + $2, $3 }')
		cpu+=("$c")
		peak+=("$((m / 1024))")
		# first-screen peak E C search end-search K K U U Tab x5
		read -r -a v < <(build/bench/tui --load "$BENCH_TMP/big.folded")
		first+=("${v[0]}") vpeak+=("${v[1]}") e+=("${v[2]}") search+=("${v[4]}")
		unsearch+=("${v[5]}") k+=("$(max "${v[@]:6:2}")") u+=("$(max "${v[@]:8:2}")")
		tab+=("$(max "${v[@]:10:5}")")
	done
	echo "| $shape | $size | $(median_minmax "${cpu[@]}") | $(median_minmax "${peak[@]}") |" \
		"$(awk -v p="$(median "${peak[@]}")" -v s="$size" 'BEGIN { printf "%.2f", p * 1.048576 / s }') |" \
		"$(median_minmax "${first[@]}") | $(median "${vpeak[@]}") | $(median "${e[@]}") |" \
		"$(median "${search[@]}") |" \
		"$(median "${unsearch[@]}") | $(median "${k[@]}") | $(median "${u[@]}") | $(median "${tab[@]}") |"
done
