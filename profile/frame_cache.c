// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "array.h"
#include "profile/frame_cache.h"
#include "profile/profile.h"

int frame_cache__init(struct frame_cache *fc)
{
	memset(fc, 0, sizeof(*fc));
	for (int i = 0; i < FRAME_CACHE_CLASSES; i++) {
		fc->text[i] = strtab__new();
		if (!fc->text[i]) {
			frame_cache__free(fc);
			return -ENOMEM;
		}
	}
	return 0;
}

uint32_t *frame_cache__slot(struct frame_cache *fc, unsigned int cls, const char *s, size_t len)
{
	uint32_t raw = strtab__intern(fc->text[cls], s, len);
	uint32_t **f = &fc->frame[cls];

	if (raw == STRTAB_NONE)
		return NULL;
	if (raw >= fc->cap[cls]) {
		size_t old_cap = fc->cap[cls];

		if (array__grow((void **)f, &fc->cap[cls], (size_t)raw + 1, sizeof(**f), 4096))
			return NULL;
		/* PROFILE_NONE: not looked up yet. */
		memset(*f + old_cap, 0xff, (fc->cap[cls] - old_cap) * sizeof(**f));
	}
	return &(*f)[raw];
}

void frame_cache__free(struct frame_cache *fc)
{
	for (int i = 0; i < FRAME_CACHE_CLASSES; i++) {
		strtab__free(fc->text[i]);
		free(fc->frame[i]);
	}
	memset(fc, 0, sizeof(*fc));
}
