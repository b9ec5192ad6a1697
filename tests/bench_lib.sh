# shellcheck shell=bash
# bench_lib.sh: what the benchmark sections share. Figures are medians of
# several runs with their min-max; nothing here passes or fails.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

FLAMETOP=${FLAMETOP:-./flametop}
WORKLOADS=build/workloads
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_TMP=$(mktemp -d /tmp/flametop-bench.XXXXXX)

# on_exit COMMAND: runs COMMAND (one shell line) when the section ends, however
# it ends (an interrupt too), before BENCH_TMP is removed; in the order added.
BENCH_ON_EXIT=()
on_exit() { BENCH_ON_EXIT+=("$1"); }
bench_exit() {
	local c
	for c in "${BENCH_ON_EXIT[@]}"; do eval "$c"; done
	rm -rf "$BENCH_TMP"
}
trap bench_exit EXIT
trap 'exit 130' INT TERM HUP

# interrupt PID: Ctrl-C for PID, and waits for it to end. A program that
# does not (bpftrace now and then misses its first SIGINT) gets a second one
# after 10 s, and SIGKILL after 20.
interrupt() {
	local i
	kill -INT "$1" 2>/dev/null
	for i in $(seq 200); do
		kill -0 "$1" 2>/dev/null || break
		[ "$i" = 100 ] && kill -INT "$1" 2>/dev/null
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# median_minmax V...: "median (min-max)" of numbers.
median_minmax() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "n/a"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%s (%s-%s)", fmt(m), fmt(v[1]), fmt(v[NR]) }
		function fmt(x) { return (x >= 100 || x <= -100) ? sprintf("%.0f", x) : sprintf("%.3g", x) }'
}

# md_table HEADER...: a Markdown table with the columns HEADER..., and a row
# for each line of standard input, its cells separated by tabs.
md_table() {
	local cells
	printf '| %s ' "$@"
	echo '|'
	printf '|---%.0s' "$@"
	echo '|'
	while IFS=$'\t' read -r -a cells; do
		printf '| %s ' "${cells[@]}"
		echo '|'
	done
}

# median V...: the median alone.
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print 0; exit }
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B: A / B to two decimals, or n/a.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'
}

. tests/bpf_progs.sh

# run_cost: "ns_per_run runs" of the last program that ran, of the lines of
# `bpftool prog show` on standard input (kernel.bpf_stats_enabled=1).
run_cost() {
	sed -nE 's/.*run_time_ns ([0-9]+) run_cnt ([0-9]+).*/\1 \2/p' |
		awk '$2 > 0 { printf "%.0f %d\n", $1 / $2, $2 }' | tail -n 1
}
prog_cost() { # NAME: run_cost of the newest loaded program NAME
	bpftool prog show 2>/dev/null | grep -E "name $1 " | tail -n 1 | run_cost
}

# ensure_package CMD PKG: installs PKG from Debian when CMD is missing.
ensure_package() {
	command -v "$1" >/dev/null 2>&1 && return 0
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1
	command -v "$1" >/dev/null 2>&1
}

# with_tracefs: mounts tracefs for peers that need it (bpftrace tracepoints);
# undo_tracefs unmounts it again if we mounted it.
TRACEFS_MOUNTED=
with_tracefs() {
	[ -e /sys/kernel/tracing/events ] && return 0
	mkdir -p /sys/kernel/tracing && mount -t tracefs nodev /sys/kernel/tracing && TRACEFS_MOUNTED=1
}
undo_tracefs() {
	[ -n "$TRACEFS_MOUNTED" ] && umount /sys/kernel/tracing
	TRACEFS_MOUNTED=
}

# A private tmux server for the sections that need a terminal, never another
# one's: bench_tmux runs a tmux command on it. A section that uses it calls
# `on_exit bench_tmux_stop` first.
BENCH_TMUX_SOCKET=flametop-bench-$$
bench_tmux() { tmux -L "$BENCH_TMUX_SOCKET" -f /dev/null "$@"; }

# bench_tmux_start NAME W H COMMAND: runs COMMAND (one shell line, run from
# this directory; start it with exec so that the pane's process is the
# command itself) in a new W x H terminal named NAME; prints the pane's pid.
# The terminal stays when COMMAND ends, with its last screen.
bench_tmux_start() {
	bench_tmux start-server \; set-option -g remain-on-exit on \; \
		new-session -d -s "$1" -x "$2" -y "$3" -c "$PWD" "$4" &&
		bench_tmux display-message -p -t "$1" '#{pane_pid}'
}

# bench_tmux_death NAME: how the command in terminal NAME ended ("exit
# status N", "signal N"), waiting 2 s at most for tmux to notice; or
# nothing while it runs.
bench_tmux_death() {
	local d
	for _ in $(seq 20); do
		d=$(bench_tmux display-message -p -t "$1" \
			'#{?pane_dead,#{?pane_dead_signal,signal #{pane_dead_signal},exit status #{pane_dead_status}},}' 2>/dev/null)
		[[ $d =~ [0-9]$ ]] && break
		sleep 0.1
	done
	echo "$d"
}

# bench_tmux_end NAME PID: closes terminal NAME and waits (5 s at most, then
# SIGKILL) until PID, the program that ran in it, is gone.
bench_tmux_end() {
	bench_tmux kill-session -t "$1" 2>/dev/null
	stop_pid "$2"
}

# bench_tmux_stop: ends the private server and removes its socket.
bench_tmux_stop() {
	bench_tmux kill-server 2>/dev/null
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$BENCH_TMUX_SOCKET"
}

# alive PID: true while PID runs (a zombie waiting to be reaped does not).
# Starts no process, so that polling loops can call it often.
alive() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[[ ${stat:0:1} != [ZX] ]]
}

# stop_pid PID [SIGNAL]: sends SIGNAL (TERM) to PID, waits 5 s at most for it
# to go, then SIGKILL; reaps it when it is this shell's child.
stop_pid() {
	local pid=$1
	[ -n "$pid" ] || return 0
	kill -"${2:-TERM}" "$pid" 2>/dev/null || return 0
	for _ in $(seq 50); do
		alive "$pid" || break
		sleep 0.1
	done
	alive "$pid" && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}
