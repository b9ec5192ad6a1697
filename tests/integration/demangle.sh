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

# A deep template's function name, 16 KiB demangled: whole in the folded
# stacks and in pprof, as c++filt writes it (names were cut at 1 KiB, and two
# instantiations differing past the cut would have been one frame).
cat >"$TEST_TMP/long_name.cc" <<'SRC'
#include <cstdlib>
#include <ctime>
#include <utility>

template <typename T, int N> struct nest {
	using type = typename nest<std::pair<T, T>, N - 1>::type;
};
template <typename T> struct nest<T, 0> {
	using type = T;
};

template <typename T> __attribute__((noinline)) unsigned long spin(T *, unsigned long n)
{
	volatile unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s = s + i;
	return s;
}

int main(int argc, char **argv)
{
	std::time_t end = std::time(nullptr) + (argc > 1 ? std::atoi(argv[1]) : 5);

	while (std::time(nullptr) < end)
		spin<nest<int, 9>::type>(nullptr, 10000000);
	return 0;
}
SRC
g++ -O2 -g -o "$TEST_TMP/long_name" "$TEST_TMP/long_name.cc"
long_name=$(nm "$TEST_TMP/long_name" | awk '$3 ~ /spin/ { print $3 }' | head -n 1 | c++filt)
start_bg "$TEST_TMP/long_name" 4
$FLAMETOP --folded --duration 2 -p "$bg_pid" --pprof "$TEST_TMP/long.pb.gz" \
	>"$TEST_TMP/long.folded" 2>"$TEST_TMP/long.err"
check "the deep template's name is over 4 KiB (${#long_name} bytes, c++filt)" [ "${#long_name}" -gt 4096 ]
check "... and whole in the folded stacks: main;<its ${#long_name} bytes>" \
	grep -qF ";main;$long_name " "$TEST_TMP/long.folded"
# (-raw: pprof's other reports shorten C++ names to their plain name;
# -symbolize=none: the names the profile holds, not pprof's own lookup in the
# binary, which its build-id lets pprof do.)
go tool pprof -raw -symbolize=none "$TEST_TMP/long.pb.gz" >"$TEST_TMP/long.raw" 2>/dev/null
check "... and whole in pprof (go tool pprof -raw)" grep -qF "$long_name" "$TEST_TMP/long.raw"
