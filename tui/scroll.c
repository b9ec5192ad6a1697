// SPDX-License-Identifier: GPL-2.0
#include "tui/scroll.h"

size_t scroll_top(size_t sel_row, size_t top_row, size_t nrows, int height, long offset)
{
	long h = height > 0 ? height : 1, sel = (long)sel_row;
	long top = offset >= 0 && offset < h ? sel - offset : (long)top_row;
	long max_top = (long)nrows > h ? (long)nrows - h : 0;

	if (top > max_top)
		top = max_top;
	if (top < 0)
		top = 0;
	if (sel < top)
		top = sel;
	if (sel >= top + h)
		top = sel - h + 1;
	return (size_t)top;
}
