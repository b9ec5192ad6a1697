#!/usr/bin/env bash
# make screenshots: text captures of the real screen, in tmux, into
# screenshots/*.txt (the README shows them): live sampling of a known
# workload (also at 80x24), read mode, the flat view, the file viewer and
# the help, off-CPU mode; and the SVG flame graph of the same workloads, as headless
# Chromium draws it, in screenshots/flamegraph.png.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tmux.sh"
trap 'screen_stop; cleanup_test' EXIT

OUT=screenshots
W=${SCREENSHOT_WIDTH:-100}
H=${SCREENSHOT_HEIGHT:-40}
mkdir -p "$OUT"

# shot NAME: saves the screen as $OUT/NAME.txt.
shot() {
	screen_text | sed -e 's/[[:space:]]*$//' >"$OUT/$1.txt"
	echo "wrote $OUT/$1.txt"
}

# The file viewer: every row of the fixture expanded.
screen_start "$W" "$H" "$FLAMETOP -i tests/fixtures/viewer.folded"
screen_wait 'leaf_a' || exit 1
screen_keys E
sleep 0.3
shot viewer
screen_keys q

if [ "$(id -u)" != 0 ]; then
	echo "screenshots: the live ones need root (sudo make screenshots)" >&2
	exit 1
fi

# Live sampling: cpu_split (main > work > leaf_a 3 : leaf_b 1) beside a
# read() loop, over a 2 s window, both processes only.
start_bg "$WORKLOADS/cpu_split" 120
split=$bg_pid
start_bg "$WORKLOADS/syscall_loop" 120
loop=$bg_pid
for size in "$W $H" "80 24"; do
	read -r w h <<<"$size"
	screen_start "$w" "$h" "$FLAMETOP -p $split,$loop"
	screen_wait 'recent \(last 2\.0 s\)' 15 && sleep 2.5
	if [ "$w" = "$W" ]; then
		screen_keys E g # every row, from the top
		sleep 0.3
		shot sample
	else
		shot "sample-${w}x$h"
	fi
	screen_keys q
	screen_exit_code >/dev/null
done
screen_start "$W" "$H" "$FLAMETOP -p $split,$loop"
screen_wait 'recent \(last 2\.0 s\)' 15 && sleep 2.5
screen_keys Tab Tab Tab Tab
screen_wait 'Function \(Enter: callers\)' || exit 1
shot flat
screen_keys '?'
screen_wait 'q or Esc closes this help' || exit 1
shot help
screen_keys q q # the help, then flametop
screen_exit_code >/dev/null

# Read mode: who reads, through which code.
screen_start "$W" "$H" "$FLAMETOP --mode read -p $loop"
screen_wait 'recent \(last 2\.0 s\)' 15 && sleep 2.5
screen_keys E
sleep 0.3
shot read
screen_keys q
screen_exit_code >/dev/null

# Off-CPU mode: where offcpu_work waits (wait_a sleeps 30 ms, wait_b 10 ms).
start_bg "$WORKLOADS/offcpu_work" sleep 30
sleeper=$bg_pid
screen_start "$W" "$H" "$FLAMETOP --mode offcpu -p $sleeper"
screen_wait 'recent \(last 2\.0 s\)' 15 && sleep 2.5
screen_keys E
sleep 0.3
shot offcpu
screen_keys q
screen_exit_code >/dev/null

# Python: Debian's python3.11 running outer -> middle -> leaf_a / leaf_b (3:1),
# its Python frames where the interpreter's were.
start_bg /usr/bin/python3.11 tests/workloads/python/split.py 120 /dev/null
py=$bg_pid
screen_start "$W" "$H" "$FLAMETOP -p $py"
screen_wait 'recent \(last 2\.0 s\)' 15 && sleep 2.5
screen_keys E g
sleep 0.3
shot python
screen_keys q
screen_exit_code >/dev/null

# The SVG flame graph of both workloads, searched for "leaf", as Chromium draws it.
$FLAMETOP --svg "$OUT/flamegraph.svg" --duration 3 -p "$split,$loop" 2>/dev/null || exit 1
h=$(xmllint --xpath 'string(/*/@height)' "$OUT/flamegraph.svg") || exit 1
chrome --window-size=1200,"$h" --screenshot="$OUT/flamegraph.png" \
	"file://$PWD/$OUT/flamegraph.svg?s=leaf" >/dev/null || exit 1
echo "wrote $OUT/flamegraph.svg, $OUT/flamegraph.png"
