#!/usr/bin/env bash
# soak.sh (make soak, not part of make test): flametop's live screen left open
# under process churn (SOAK_CHURN new processes a second, default 400) and CPU
# load for SOAK_MINUTES minutes (default 30). Every SOAK_EVERY seconds (default
# 60) it prints flametop's RSS, its open descriptors and the header's line on
# folded stacks; it passes when, after the first SOAK_SETTLE minutes (default
# 5), RSS stays within 10% (the highest over the lowest) and the descriptors
# do not grow (the second half's highest within a quarter of the first's).
# SOAK_FLAGS adds flametop flags (e.g. --max-stacks 4096: the limit reached sooner). Runs as root (it loads BPF programs): under the machine's BPF
# lock where several people share it.
source "$(dirname "$0")/lib.sh"
source tests/tmux.sh

MINUTES=${SOAK_MINUTES:-30}
RATE=${SOAK_CHURN:-400}
EVERY=${SOAK_EVERY:-60}
SETTLE=${SOAK_SETTLE:-5}
FLAGS=${SOAK_FLAGS:-}

need_root "soak" || exit 0
screen_start 160 50 "$FLAMETOP -d 1 $FLAGS"
trap 'screen_stop; cleanup_test' EXIT
if ! screen_wait 'samples' 20; then
	not_ok "the live screen starts"
	screen_text | diag
	exit 1
fi
pid=$(pgrep -n -x flametop -P "$(screen_var pane_pid)")
start_bg "$WORKLOADS/churn" "$RATE" 0
start_bg "$WORKLOADS/cpu_split" $((MINUTES * 60 + 60))

rss_mb() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status"; }
fds() { find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }

echo "# soak: flametop -d 1 $FLAGS, $RATE new processes a second and CPU load, $MINUTES minutes"
echo "# minute  RSS (MB)  fds  header"
settled_rss=() settled_fds=() table=()
end=$((SECONDS + MINUTES * 60))
while [ "$SECONDS" -lt "$end" ]; do
	sleep "$EVERY"
	[ -d "/proc/$pid" ] || break
	minute=$(awk -v s="$SECONDS" 'BEGIN { printf "%.1f", s / 60 }')
	rss=$(rss_mb)
	nfd=$(fds)
	folded=$(screen_text | grep -m1 -oE '[0-9]+ stacks folded \(max [0-9]+\)' || echo 'none')
	printf '# %6s  %8s  %3s  %s\n' "$minute" "$rss" "$nfd" "$folded"
	table+=("| $minute | $rss | $nfd | $folded |")
	if awk -v m="$minute" -v s="$SETTLE" 'BEGIN { exit !(m >= s) }'; then
		settled_rss+=("$rss")
		settled_fds+=("$nfd")
	fi
done

if [ ! -d "/proc/$pid" ]; then
	not_ok "flametop ran for $MINUTES minutes"
	screen_text | diag
	exit 1
fi
ok "flametop ran for $MINUTES minutes"
if [ "${#settled_rss[@]}" -lt 2 ]; then
	skip "RSS flat after $SETTLE minutes" "fewer than two samples after minute $SETTLE"
	exit 0
fi
read -r lo hi < <(printf '%s\n' "${settled_rss[@]}" | sort -g | sed -n '1p;$p' | paste -sd' ')
check "RSS flat within 10% after $SETTLE minutes ($lo..$hi MB)" \
	awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(hi <= lo * 1.10) }'
# Descriptors come and go with the processes snapshotted: no growth is the
# second half's highest within a quarter of the first half's.
half=$((${#settled_fds[@]} / 2))
first=$(printf '%s\n' "${settled_fds[@]:0:half}" | sort -g | tail -n 1)
second=$(printf '%s\n' "${settled_fds[@]:half}" | sort -g | tail -n 1)
check "open descriptors do not grow after $SETTLE minutes (highest $first, then $second)" \
	awk -v a="$first" -v b="$second" 'BEGIN { exit !(b <= a * 1.25) }'
screen_keys q

# The figures, as the last section of BENCH.md (make bench keeps it).
{
	sed '/^## Long session (make soak)/,$d' BENCH.md 2>/dev/null
	echo "## Long session (make soak)"
	echo
	echo "\`make soak\` on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs: the live screen"
	echo "(\`flametop -d 1 $FLAGS\`) for $MINUTES minutes under $RATE new processes a second"
	echo "(tests/workloads/churn.c) and CPU load (cpu_split); flametop's RSS and open"
	echo "descriptors, and the header's count of stacks folded, every $EVERY s."
	echo "RSS after minute $SETTLE: $lo..$hi MB (the check: within 10%)."
	echo
	echo "| minute | RSS (MB) | open fds | stacks folded |"
	echo "|---|---|---|---|"
	printf '%s\n' "${table[@]}"
} >BENCH.md.tmp && mv BENCH.md.tmp BENCH.md
