// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "tui/keys.h"

static const char *const names[TK_NR - TK_UP] = {
	[TK_UP - TK_UP] = "Up",
	[TK_DOWN - TK_UP] = "Down",
	[TK_LEFT - TK_UP] = "Left",
	[TK_RIGHT - TK_UP] = "Right",
	[TK_PGUP - TK_UP] = "PgUp",
	[TK_PGDN - TK_UP] = "PgDn",
	[TK_HOME - TK_UP] = "Home",
	[TK_END - TK_UP] = "End",
	[TK_BACKTAB - TK_UP] = "S-Tab",
	[TK_BACKSPACE - TK_UP] = "Backspace",
	[TK_DELETE - TK_UP] = "Delete",
	[TK_INSERT - TK_UP] = "Insert",
};

static char other[16]; /* TK_OTHER's name, "" when not known */

void key__name_other(const char *name)
{
	snprintf(other, sizeof(other), "%s", name ? name : "");
}

void key__name(int key, char *buf, size_t size)
{
	if (key >= TK_F1 && key <= TK_F12)
		snprintf(buf, size, "F%d", key - TK_F1 + 1);
	else if (key == TK_OTHER)
		snprintf(buf, size, "%s", other[0] ? other : "that key");
	else if (key >= TK_UP && key < TK_NR)
		snprintf(buf, size, "%s", names[key - TK_UP]);
	else if (key == ' ')
		snprintf(buf, size, "Space");
	else if (key == TK_ESC)
		snprintf(buf, size, "Esc");
	else if (key == TK_TAB)
		snprintf(buf, size, "Tab");
	else if (key == TK_ENTER)
		snprintf(buf, size, "Enter");
	else if (key >= 0 && key < ' ')
		snprintf(buf, size, "Ctrl-%c", key + '@');
	else if (key > ' ' && key < 127)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "that key");
}
