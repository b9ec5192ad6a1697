/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scroll: where a list of rows starts on screen. The call tree and the flat
 * list scroll alike: the selection keeps its place on screen when rows
 * move, and otherwise the list moves as little as needed to show it.
 */
#ifndef FLAMETOP_SCROLL_H
#define FLAMETOP_SCROLL_H

#include <stddef.h>

/*
 * scroll_top() returns the first row to show of @nrows rows, @height at a
 * time (1 when @height is not positive), with row @sel_row selected and
 * @top_row shown first until now. When 0 <= @offset < the height, the
 * selection goes back @offset rows below the top, where it was on screen;
 * then the top is kept within the rows and moved as little as needed to show
 * @sel_row.
 */
size_t scroll_top(size_t sel_row, size_t top_row, size_t nrows, int height, long offset);

#endif
