#!/usr/bin/env bash
# What Python frames cost (measured, never asserted):
#
# 1. In the kernel, per sample of a Python process: run_time_ns of flametop's
#    on_sample (kernel.bpf_stats_enabled=1, read from flametop's own fds) with
#    the Python walk (--python on) and without it (--python off: the native
#    walk alone), on an interpreter spinning 10 and 100 Python frames deep,
#    each frame a code object of its own (tests/workloads/python/deep.py: the
#    walk tags each): Debian's python3.11, and pyenv's 3.10 to 3.13 where
#    installed (3.12+'s code objects carry a version the walk keeps tags by;
#    3.10's and 3.11's frees are counted by a probe, bpf/python_frees.bpf.c).
#    flametop samples every CPU; the samples of other processes, filtered out
#    by -p at the program's first lines, are taken out of the figure: their
#    cost is measured apart (-p on a process that sleeps), and a Python
#    sample's cost is (run time - filtered samples x their cost) / the samples
#    counted.
# 2. From a Python process's start to its description to the walk (from
#    then on its samples carry its Python frames): build/bench/py_first_frame
#    starts the interpreter under a running flametop and watches flametop's
#    map of Python processes for it.
#
# The screen's own CPU with two busy Python processes beside perf top is in
# self_cost.sh's "python" case.
. "$(dirname "$0")/../bench_lib.sh"

SECS=4
PY=/usr/bin/python3.11
FREQ=999

# own_sample_cost PID: "ns_per_run runs" of the perf_event program (on_sample) flametop PID
# holds, from its fds' fdinfo: its own, whatever other profilers run beside it.
own_sample_cost() {
	local f
	for f in /proc/"$1"/fdinfo/*; do
		grep -q '^prog_type:[[:space:]]*7$' "$f" 2>/dev/null || continue
		awk '/^run_time_ns:/ { ns = $2 } /^run_cnt:/ { n = $2 }
			END { if (n > 0) printf "%.0f %d\n", ns / n, n }' "$f"
		return
	done
}

# sample_cost PID FLAGS...: "ns_per_run runs events" of on_sample while flametop samples PID.
sample_cost() {
	local pid=$1 ft cost
	shift
	$FLAMETOP --folded -F $FREQ --duration $((SECS + 1)) -p "$pid" -o /dev/null "$@" \
		2>"$BENCH_TMP/sum" &
	ft=$!
	sleep "$SECS"
	cost=$(own_sample_cost "$ft")
	wait "$ft"
	echo "$cost $(sed -nE 's/^flametop: ([0-9]+) samples in .*/\1/p' "$BENCH_TMP/sum")"
}

# per_sample NS RUNS EVENTS FILTERED_NS: ns per counted sample.
per_sample() {
	awk -v ns="$1" -v runs="$2" -v ev="$3" -v f="$4" \
		'BEGIN { if (ev > 0) printf "%.0f", (ns * runs - (runs - ev) * f) / ev; else print 0 }'
}

if [ ! -x "$PY" ]; then
	echo "## Python frames"
	echo
	echo "Not run: no $PY."
	exit 0
fi
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
on_exit "sysctl -qw kernel.bpf_stats_enabled=$old"

# The interpreters measured: Debian's, then pyenv's where installed.
PYENV_DIR=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
INTERPS=("$PY")
for v in 3.10 3.11 3.12 3.13; do
	for py in "$PYENV_DIR"/versions/"$v".*/bin/python"$v"; do
		[ -x "$py" ] && INTERPS+=("$py") && break
	done
done
# label PY: how a row names interpreter PY.
label() { case $1 in "$PY") echo "Debian python3.11" ;; *) echo "pyenv ${1##*/}" ;; esac; }

declare -A cost
filtered=()
for _ in $(seq "$BENCH_RUNS"); do
	sleep 60 &
	sleeper=$!
	read -r ns _ <<<"$(sample_cost "$sleeper")"
	filtered+=("${ns:-0}")
	stop_pid "$sleeper"
	for py in "${INTERPS[@]}"; do
		for depth in 10 100; do
			for python in on off; do
				"$py" tests/workloads/python/deep.py "$depth" $((SECS + 4)) &
				wl=$!
				sleep 1
				read -r ns runs events <<<"$(sample_cost "$wl" --python "$python")"
				cost[$py|$depth|$python]+="$(per_sample "${ns:-0}" "${runs:-0}" \
					"${events:-0}" "$(median "${filtered[@]}")") "
				stop_pid "$wl"
			done
		done
	done
done

echo "## Python frames"
echo
echo "In-kernel cost of a sample of an interpreter spinning DEPTH Python frames deep, each frame"
echo "a code object of its own (tests/workloads/python/deep.py), flametop -F $FREQ -p PID,"
echo "run_time_ns of on_sample (kernel.bpf_stats_enabled=1) over $SECS s, less the samples of"
echo "other processes filtered out at the program's start ($(median_minmax "${filtered[@]}") ns each,"
echo "measured with -p on a process that sleeps), per sample counted. Median of $BENCH_RUNS runs"
echo "(min-max), the configurations alternating within each run. Targets: the Python walk at most"
echo "1.5x the native walk alone at 10 frames, 3x at 100."
echo
for py in "${INTERPS[@]}"; do
	for depth in 10 100; do
		# shellcheck disable=SC2086
		printf '%s\t%s\t%s\t%s\t%s\n' "$(label "$py")" "$depth" \
			"$(median_minmax ${cost[$py|$depth|off]})" \
			"$(median_minmax ${cost[$py|$depth|on]})" \
			"$(ratio "$(median ${cost[$py|$depth|on]})" "$(median ${cost[$py|$depth|off]})")"
	done
done | md_table "interpreter" "Python frames" "--python off: native walk, ns" \
	"--python on: both walks, ns" "on / off"
echo
if [ -x build/bench/py_first_frame ]; then
	firsts=() starts=()
	for _ in $(seq "$BENCH_RUNS"); do
		$FLAMETOP --folded -F $FREQ --duration 10 -c python3.11 -o /dev/null 2>/dev/null &
		ft=$!
		sleep 5 # attached, on a loaded machine too
		read -r desc started <<<"$(build/bench/py_first_frame "$PY" 2>/dev/null)"
		[ -n "$desc" ] && firsts+=("$desc") && starts+=("$started")
		wait "$ft"
	done
	echo "From the exec of Debian's python3.11 (a script that spins) under a running flametop"
	echo "(-F $FREQ -c python3.11) to the process's description in flametop's map of Python"
	echo "processes, from which on its samples carry its Python frames (named at the next"
	echo "refresh): $(median_minmax "${firsts[@]}") ms (target: at most 100 ms from its first"
	echo "sample, which comes within a millisecond of its exec at $FREQ Hz). The interpreter"
	echo "itself runs its script's first line $(median_minmax "${starts[@]}") ms after its exec:"
	echo "before that it has no Python frame to show. build/bench/py_first_frame, median of"
	echo "$BENCH_RUNS runs (min-max)."
fi
