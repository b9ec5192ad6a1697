# shellcheck shell=bash
# bench_lib.sh: what the benchmark sections share. Figures are medians of
# several runs with their min-max; nothing here passes or fails.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

FLAMETOP=${FLAMETOP:-./flametop}
WORKLOADS=build/workloads
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_TMP=$(mktemp -d /tmp/flametop-bench.XXXXXX)
trap 'rm -rf "$BENCH_TMP"' EXIT

# median_minmax V...: "median (min-max)" of numbers.
median_minmax() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "n/a"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%s (%s-%s)", fmt(m), fmt(v[1]), fmt(v[NR]) }
		function fmt(x) { return (x >= 100 || x <= -100) ? sprintf("%.0f", x) : sprintf("%.3g", x) }'
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

# newest_program_id / wait_program_after: see tests/lib.sh.
newest_program_id() {
	bpftool prog show 2>/dev/null | sed -nE 's/^([0-9]+): .*/\1/p' | sort -n | tail -n 1 | grep . || echo 0
}
wait_program_after() {
	for _ in $(seq 100); do
		bpftool prog show 2>/dev/null | sed -nE 's/^([0-9]+): .*/\1/p' |
			awk -v after="$1" '$1 > after { found = 1 } END { exit !found }' && return 0
		sleep 0.1
	done
	return 1
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
