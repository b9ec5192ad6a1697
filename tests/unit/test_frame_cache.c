// SPDX-License-Identifier: GPL-2.0
/*
 * frame_cache: a reader's frames by their raw text and class, through the
 * table's growth, and with hashes of the reader's own, however bad.
 */
#include "tests/unit/unit.h"

#include "profile/frame_cache.h"
#include "profile/profile.h"

#define NTEXTS 100000

/* The slot of @s in class @cls, which must be there. */
static uint32_t *slot(struct frame_cache *fc, unsigned int cls, const char *s)
{
	uint32_t *v = frame_cache__slot(fc, cls, s, strlen(s));

	assert_non_null(v);
	return v;
}

/* A text once per class; what was stored for each is found again after the table grew. */
static void test_texts_and_classes(void **state)
{
	struct frame_cache fc;
	char buf[32];

	(void)state;
	assert_int_equal(frame_cache__init(&fc), 0);
	assert_int_equal(*slot(&fc, 0, "main"), PROFILE_NONE);
	*slot(&fc, 0, "main") = 7;
	assert_int_equal(*slot(&fc, 1, "main"), PROFILE_NONE); /* another class */
	*slot(&fc, 1, "main") = 8;
	assert_int_equal(*slot(&fc, 0, "mai"), PROFILE_NONE); /* a prefix */
	*slot(&fc, 0, "mai") = 9;
	/* The bytes given, not up to a NUL: "main" less its last byte. */
	assert_int_equal(*frame_cache__slot(&fc, 0, "main", 3), 9);
	for (int i = 0; i < NTEXTS; i++) {
		snprintf(buf, sizeof(buf), "fn_%d", i);
		*slot(&fc, (unsigned int)i % FRAME_CACHE_CLASSES, buf) = (uint32_t)i + 100;
	}
	assert_int_equal(*slot(&fc, 0, "main"), 7);
	assert_int_equal(*slot(&fc, 1, "main"), 8);
	assert_int_equal(*slot(&fc, 0, "mai"), 9);
	assert_int_equal(*slot(&fc, 2, "main"), PROFILE_NONE);
	for (int i = 0; i < NTEXTS; i++) {
		snprintf(buf, sizeof(buf), "fn_%d", i);
		assert_int_equal(*slot(&fc, (unsigned int)i % FRAME_CACHE_CLASSES, buf),
				 (uint32_t)i + 100);
		assert_int_equal(*slot(&fc, (unsigned int)(i + 1) % FRAME_CACHE_CLASSES, buf),
				 PROFILE_NONE);
	}
	frame_cache__free(&fc);
}

/* Every text with the same hash, of either class: slower, never wrong. */
static void test_hash_of_the_reader(void **state)
{
	struct frame_cache fc;
	char buf[32];

	(void)state;
	assert_int_equal(frame_cache__init(&fc), 0);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 3000; i++) {
			uint32_t *v;

			snprintf(buf, sizeof(buf), "f%d", i);
			frame_cache__prefetch(&fc, 42);
			v = frame_cache__slot_hashed(&fc, 0, buf, strlen(buf), 42);
			assert_non_null(v);
			if (round == 0) {
				assert_int_equal(*v, PROFILE_NONE);
				*v = (uint32_t)i;
			} else {
				assert_int_equal(*v, (uint32_t)i);
			}
		}
	}
	/* Long texts alike but for one byte, anywhere, with the same hash: other frames. */
	for (int at = 0; at < 20; at++) {
		char text[21] = "frame_of_twenty_byte";

		text[at] = '#';
		assert_int_equal(*frame_cache__slot_hashed(&fc, 0, text, 20, 42), PROFILE_NONE);
		*frame_cache__slot_hashed(&fc, 0, text, 20, 42) = 5000 + (uint32_t)at;
	}
	for (int at = 0; at < 20; at++) {
		char text[21] = "frame_of_twenty_byte";

		text[at] = '#';
		assert_int_equal(*frame_cache__slot_hashed(&fc, 0, text, 20, 42),
				 5000 + (uint32_t)at);
	}
	/* The same text in another class, with the same hash: another frame. */
	assert_int_equal(*frame_cache__slot_hashed(&fc, 1, "f7", 2, 42), PROFILE_NONE);
	*frame_cache__slot_hashed(&fc, 1, "f7", 2, 42) = 1234;
	assert_int_equal(*frame_cache__slot_hashed(&fc, 0, "f7", 2, 42), 7);
	frame_cache__free(&fc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_texts_and_classes),
	    cmocka_unit_test(test_hash_of_the_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
