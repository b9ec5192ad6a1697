// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "profile/text_match.h"

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool text_match__exact(const char *pattern)
{
	for (; *pattern; pattern++) {
		if (*pattern >= 'A' && *pattern <= 'Z')
			return true;
	}
	return false;
}

/* Does @text start with @pattern (all lower case), ASCII case folded? */
static bool starts_folded(const char *text, const char *pattern)
{
	for (; *pattern; text++, pattern++) {
		if (ascii_lower(*text) != *pattern)
			return false;
	}
	return true;
}

const char *text_match(const char *text, const char *pattern)
{
	if (text_match__exact(pattern))
		return strstr(text, pattern);
	for (; *text; text++) {
		if (starts_folded(text, pattern))
			return text;
	}
	return NULL;
}
