// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_sort: C++ built as users build it (-O2, the standard library), for
 * the unwinder's tests. For argv[1] seconds (default 10): main ->
 * sort_some (std::sort of a vector, deep in templates) and main ->
 * map_some (std::map inserts: the tree, operator new, malloc in libc).
 */
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <map>
#include <vector>

static volatile long sink;

__attribute__((noinline)) void sort_some(std::vector<int> &v)
{
	for (auto &x : v)
		x = rand();
	std::sort(v.begin(), v.end());
	sink += v[0];
}

__attribute__((noinline)) void map_some()
{
	std::map<int, int> m;

	for (int i = 0; i < 20000; i++)
		m[rand()] = i;
	sink += m.size();
}

int main(int argc, char **argv)
{
	std::vector<int> v(100000);
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	time_t end = time(nullptr) + (time_t)seconds;

	while (time(nullptr) < end) {
		sort_some(v);
		map_some();
		sink++;
	}
	return 0;
}
