#!/usr/bin/env bash
# A C++ program with namespaces and templates, built here: its frames are
# demangled, and shown raw (as nm shows them) with --no-demangle.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "demangling tests" "not root: BPF programs can't be loaded"
	exit 0
fi

cat >"$TEST_TMP/shapes.cc" <<'SRC'
#include <cstdlib>
#include <ctime>

namespace shapes {
template <typename T> __attribute__((noinline)) T churn(T x)
{
	for (volatile int i = 0; i < 100000; i++)
		x = x * 3 + 1;
	return x;
}

template <typename T, int N> struct Grid {
	__attribute__((noinline)) static T sum_rows(T seed)
	{
		for (int i = 0; i < N; i++)
			seed += churn<T>(seed);
		return seed;
	}
};
} // namespace shapes

int main(int argc, char **argv)
{
	std::time_t end = std::time(nullptr) + (argc > 1 ? std::atoi(argv[1]) : 5);
	volatile long sink = 0;

	while (std::time(nullptr) < end)
		sink = sink + shapes::Grid<long, 3>::sum_rows(sink);
	return 0;
}
SRC
g++ -O2 -g -o "$TEST_TMP/shapes" "$TEST_TMP/shapes.cc"
raw_sum=$(nm "$TEST_TMP/shapes" | awk '$3 ~ /sum_rows/ { print $3 }')
raw_churn=$(nm "$TEST_TMP/shapes" | awk '$3 ~ /churn/ { print $3 }')

start_bg "$TEST_TMP/shapes" 3
$FLAMETOP --folded --duration 2 -p "$bg_pid" >"$TEST_TMP/pretty.folded" 2>"$TEST_TMP/pretty.err"
check "C++ frames are demangled: main;shapes::Grid<long, 3>::sum_rows(long);long shapes::churn<long>(long)" \
	grep -qF ';main;shapes::Grid<long, 3>::sum_rows(long);long shapes::churn<long>(long) ' \
	"$TEST_TMP/pretty.folded"
check "no mangled name is left" bash -c "! grep -q '_ZN' '$TEST_TMP/pretty.folded'"

start_bg "$TEST_TMP/shapes" 3
$FLAMETOP --folded --duration 2 --no-demangle -p "$bg_pid" >"$TEST_TMP/raw.folded" 2>"$TEST_TMP/raw.err"
check "--no-demangle shows the names nm shows (;main;$raw_sum;$raw_churn)" \
	grep -qF ";main;$raw_sum;$raw_churn " "$TEST_TMP/raw.folded"
check "--no-demangle: no demangled name" bash -c "! grep -q 'shapes::' '$TEST_TMP/raw.folded'"
