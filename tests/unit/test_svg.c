// SPDX-License-Identifier: GPL-2.0
/*
 * svg__write(): counts of time written as times, saturated counts kept on
 * the canvas, hostile strings written as valid XML text.
 */
#include "tests/unit/profile_fixture.h"

#include <stdio.h>

#include "profile/svg.h"

static const struct view_filter all = {.window = WINDOW_CUMULATIVE};

/* @p's SVG, as -i FILE --svg writes it, @info its title, unit and count unit (to free()). */
static char *svg_of(struct profile *p, const struct svg_info *info)
{
	struct output_info out = {.title = info->title,
				  .subtitle = info->subtitle,
				  .type = info->unit,
				  .unit = info->count_unit};

	return output_text(p, &all, OUTPUT_SVG, &out);
}

/* Off-CPU counts are microseconds: µs, ms or s, in the titles and the totals line. */
static void test_times(void **state)
{
	struct profile *p = profile__new();
	uint32_t app = frame(p, "app", FRAME_PROCESS);
	struct svg_info info = {"flametop: offcpu", NULL, "off-CPU time", "microseconds"};
	char *svg;

	(void)state;
	ADD(p, 1, 850, app, frame(p, "short", FRAME_USER));
	ADD(p, 1, 12345, app, frame(p, "middle", FRAME_USER));
	ADD(p, 1, 4560000, app, frame(p, "long", FRAME_USER));
	svg = svg_of(p, &info);
	assert_non_null(strstr(svg, "<title>short\n850 \xc2\xb5s off-CPU time, 0.02%</title>"));
	assert_non_null(strstr(svg, "<title>middle\n12.3 ms off-CPU time, 0.27%</title>"));
	assert_non_null(strstr(svg, "<title>long\n4.56 s off-CPU time, 99.71%</title>"));
	/* 4573195 us, rounded half up */
	assert_non_null(strstr(svg,
			       "id=\"subtitle\" x=\"600\" y=\"38\" text-anchor=\"middle\">4.57 s "
			       "off-CPU time</text>"));
	assert_non_null(strstr(svg, " data-per-us=\"1\""));
	free(svg);
	/* Nanoseconds (a pprof profile's): the same, a thousand to the microsecond. */
	info.count_unit = "nanoseconds";
	info.unit = "cpu";
	svg = svg_of(p, &info);
	assert_non_null(strstr(svg, "<title>long\n4.6 ms cpu, 99.71%</title>"));
	assert_non_null(strstr(svg, "<title>short\n1 \xc2\xb5s cpu, 0.02%</title>"));
	free(svg);
	/* Counts are counts. */
	info.count_unit = "count";
	info.unit = "samples";
	svg = svg_of(p, &info);
	assert_non_null(strstr(svg, "<title>long\n4560000 samples, 99.71%</title>"));
	assert_null(strstr(svg, " data-per-us=\""));
	free(svg);
	profile__free(p);
}

/* The x and width of every frame's rect in @svg, in @xs and @ws; how many. */
static size_t rects(const char *svg, double *xs, double *ws, size_t max)
{
	size_t n = 0;

	for (const char *g = strstr(svg, "<g class=\"f "); g && n < max;
	     g = strstr(g + 1, "<g class=\"f ")) {
		const char *r = strstr(g, "<rect x=\"");

		assert_non_null(r);
		assert_int_equal(
		    sscanf(r, "<rect x=\"%lf\" y=\"%*f\" width=\"%lf\"", &xs[n], &ws[n]), 2);
		n++;
	}
	return n;
}

/*
 * Saturated counts (two stacks of 2^64 - 1 under a root of 2^64 - 1) stay
 * on the canvas: side by side within their parent, never past its edge.
 */
static void test_saturated_on_canvas(void **state)
{
	struct profile *p = profile__new();
	uint32_t a = frame(p, "a", FRAME_PROCESS), b = frame(p, "b", FRAME_PROCESS);
	struct svg_info info = {"t", NULL, "samples", "count"};
	double xs[16], ws[16];
	size_t n;
	char *svg;

	(void)state;
	ADD(p, 1, COUNT_MAX, a, frame(p, "x", FRAME_USER), frame(p, "y", FRAME_USER));
	ADD(p, 1, COUNT_MAX, b, frame(p, "z", FRAME_USER));
	ADD(p, 1, 5, b, frame(p, "w", FRAME_USER));
	assert_true(profile__saturated(p));
	svg = svg_of(p, &info);
	n = rects(svg, xs, ws, 16);
	assert_int_equal(n, 6); /* all, a, x, y, b, z (w is narrower than 0.1 px) */
	for (size_t i = 0; i < n; i++) {
		assert_true(xs[i] >= SVG_PAD - 1e-6);
		assert_true(xs[i] + ws[i] <= SVG_WIDTH - SVG_PAD + 1e-6);
	}
	/* a and b share the root's width; b's z fills b. */
	assert_true(ws[1] > 589 && ws[1] < 591 && ws[4] > 589 && ws[4] < 591);
	assert_true(xs[4] > xs[1] + ws[1] - 1e-6);
	assert_true(ws[5] <= ws[4] + 1e-6 && xs[5] >= xs[4] - 1e-6);
	free(svg);
	profile__free(p);
}

/* Is @s valid UTF-8 of characters XML 1.0 allows, no control but '\n'? */
static bool xml_text(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		int len = *u < 0x80		? 1
			  : (*u & 0xe0) == 0xc0 ? 2
			  : (*u & 0xf0) == 0xe0 ? 3
			  : (*u & 0xf8) == 0xf0 ? 4
						: 0;
		unsigned int cp = len == 1   ? *u
				  : len == 2 ? *u & 0x1f
				  : len == 3 ? *u & 0x0f
					     : *u & 7;

		if (!len)
			return false;
		for (int i = 1; i < len; i++) {
			if ((u[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (u[i] & 0x3f);
		}
		if ((cp < 0x20 && cp != '\n') || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe ||
		    cp == 0xffff || cp > 0x10ffff || (len == 2 && cp < 0x80) ||
		    (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000))
			return false;
		u += len;
	}
	return true;
}

/*
 * Strings from outside reach the SVG sanitized, whatever they hold: a
 * sample type with control bytes and bytes that are not UTF-8 (a pprof
 * file's), a title cut inside a character (a long file name), U+FFFF.
 */
static void test_hostile_strings(void **state)
{
	struct profile *p = profile__new();
	uint32_t app = frame(p, "app", FRAME_PROCESS);
	struct svg_info info = {"flametop: evil\x1b[31m\xc3", "sub\x01title \xef\xbf\xbf",
				"samp\x1bles\xff<&>", "count"};
	char *svg;

	(void)state;
	ADD(p, 1, 3, app, frame(p, "main", FRAME_USER));
	svg = svg_of(p, &info);
	assert_true(xml_text(svg));
	assert_non_null(strstr(svg, "data-unit=\"samp?les?&lt;&amp;&gt;\""));
	assert_non_null(strstr(svg, ">flametop: evil?[31m?</text>"));
	assert_non_null(strstr(svg, "sub?title ?</text>"));
	free(svg);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_times),
	    cmocka_unit_test(test_saturated_on_canvas),
	    cmocka_unit_test(test_hostile_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
