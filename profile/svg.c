// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/hash_index.h"
#include "profile/svg.h"
#include "symbols/sanitize.h"

#define ROW_HEIGHT 16
#define FRAME_HEIGHT 15
#define TOP 64	       /* title, subtitle, search box, above the frames */
#define BOTTOM 32      /* the details line below them */
#define CHAR_WIDTH 6.6 /* of the 11-pixel monospace font the style sets */

/*
 * The page's behaviour: hover details, click zoom, search. Kept in one
 * piece so that the file needs nothing else. Frames are found by class; a
 * frame's place comes from its rect as written (x, width, y), its parent
 * from the order they are written in (a frame after its parent, one row
 * below it). The search counts each matched sample once by that tree: a
 * matched frame inside another is in its samples already; the root ("all")
 * is no frame of the profile and never matches. It matches as
 * the screen's / does (text_match.h): in any case unless the text holds a
 * capital letter.
 */
static const char script[] =
	"var W = 0, PAD = 0, CW = 0, ROW = 0, PER_US = 0, frames = [], total = 0, unit = '';\n"
	"function fmt(n) { return n.toString().replace(/\\B(?=(\\d{3})+(?!\\d))/g, ','); }\n"
	"function share(n, of) { return (100 * n / of).toFixed(2) + '%'; }\n"
	"function rnd(n, d) { return Math.floor(n / d) + (n % d >= (d + 1) / 2 ? 1 : 0); }\n"
	"/* A count as the file's titles write it: a number of the unit, or a time. */\n"
	"function amount(n) {\n"
	"  var t, c = PER_US;\n"
	"  if (!c) return fmt(n) + ' ' + unit;\n"
	"  if (n < 1000 * c) t = rnd(n, c) + ' \\u00b5s';\n"
	"  else if (n < 999950 * c) { t = rnd(n, 100 * c); t = Math.floor(t / 10) + '.' + t % 10 + ' ms'; }\n"
	"  else { t = rnd(n, 10000 * c); t = Math.floor(t / 100) + '.' + String(t % 100).padStart(2, '0') + ' s'; }\n"
	"  return t + ' ' + unit;\n"
	"}\n"
	"function lower(s) { return s.replace(/[A-Z]/g, function (c) { return c.toLowerCase(); }); }\n"
	"function label(f, w) {\n"
	"  var fit = Math.floor((w - 6) / CW);\n"
	"  if (fit < 3) return '';\n"
	"  return f.name.length <= fit ? f.name : f.name.substring(0, fit - 2) + '..';\n"
	"}\n"
	"function place(f, x, w) {\n"
	"  f.r.setAttribute('x', x.toFixed(6)); f.r.setAttribute('width', w.toFixed(6));\n"
	"  f.t.setAttribute('x', (x + 3).toFixed(2)); f.t.textContent = label(f, w);\n"
	"}\n"
	"function details(f) {\n"
	"  document.getElementById('details').textContent = f ? f.title + ' (' + amount(f.n) + ', ' +\n"
	"    share(f.n, total) + ')' : ' ';\n"
	"}\n"
	"function zoom(z) {\n"
	"  document.getElementById('unzoom').setAttribute('class', z ? '' : 'hide');\n"
	"  frames.forEach(function (f) {\n"
	"    var show = true, x = f.x, w = f.w;\n"
	"    f.g.classList.remove('parent');\n"
	"    if (z && f.d < z.d) {\n"
	"      show = f.x <= z.x + 1e-6 && f.x + f.w >= z.x + z.w - 1e-6;\n"
	"      x = PAD; w = W;\n"
	"      if (show) f.g.classList.add('parent');\n"
	"    } else if (z) {\n"
	"      show = f.x >= z.x - 1e-6 && f.x + f.w <= z.x + z.w + 1e-6;\n"
	"      x = PAD + (f.x - z.x) * W / z.w; w = f.w * W / z.w;\n"
	"    }\n"
	"    f.g.style.display = show ? '' : 'none';\n"
	"    if (show) place(f, x, w);\n"
	"  });\n"
	"}\n"
	"function search(text) {\n"
	"  var exact = /[A-Z]/.test(text), sum = 0, hits = 0;\n"
	"  frames.forEach(function (f) {\n"
	"    var hit = text !== '' && f.parent !== null && (exact ? f.name : f.lname).indexOf(text) >= 0;\n"
	"    var under = f.parent !== null && f.parent.inside;\n"
	"    f.inside = hit || under;\n"
	"    if (hit && !under) sum += f.n;\n"
	"    hits += hit;\n"
	"    f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
	"    f.g.classList.toggle('match', hit);\n"
	"  });\n"
	"  var m = document.getElementById('matched');\n"
	"  m.textContent = text === '' ? ' ' : 'Matched: ' + share(sum, total) + ' (' + amount(sum) +\n"
	"    ', ' + hits + (hits === 1 ? ' frame)' : ' frames)');\n"
	"  m.setAttribute('data-n', sum);\n"
	"}\n"
	"function init() {\n"
	"  var svg = document.documentElement, below = {};\n"
	"  unit = svg.getAttribute('data-unit');\n"
	"  CW = +svg.getAttribute('data-char-width');\n"
	"  ROW = +svg.getAttribute('data-row');\n"
	"  PER_US = +(svg.getAttribute('data-per-us') || 0);\n"
	"  document.querySelectorAll('g.f').forEach(function (g) {\n"
	"    var r = g.querySelector('rect'), title = g.querySelector('title').textContent;\n"
	"    var y = +r.getAttribute('y'), k = g.classList.contains('k');\n"
	"    var f = { g: g, r: r, t: g.querySelector('text'), n: +g.getAttribute('data-n'),\n"
	"      x: +r.getAttribute('x'), w: +r.getAttribute('width'), d: -y,\n"
	"      fill: r.getAttribute('fill'), title: title.substring(0, title.lastIndexOf('\\n')),\n"
	"      parent: below[y + ROW] || null };\n"
	"    f.name = k ? f.title.substring(0, f.title.length - 4) : f.title;\n"
	"    f.lname = lower(f.name);\n"
	"    below[y] = f;\n"
	"    if (g.classList.contains('r')) { total = f.n; PAD = f.x; W = f.w; }\n"
	"    frames.push(f);\n"
	"    g.addEventListener('mouseover', function () { details(f); });\n"
	"    g.addEventListener('mouseout', function () { details(null); });\n"
	"    g.addEventListener('click', function () { zoom(f); });\n"
	"  });\n"
	"  document.getElementById('unzoom').addEventListener('click', function () { zoom(null); });\n"
	"  var box = document.getElementById('search');\n"
	"  box.addEventListener('input', function () { search(box.value); });\n"
	"  document.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey && e.key === 'f') || (e.key === '/' && e.target !== box)) {\n"
	"      e.preventDefault(); box.focus();\n"
	"    } else if (e.key === 'Escape') { box.value = ''; search(''); zoom(null); }\n"
	"  });\n"
	"  var q = new URLSearchParams(window.location.search);\n"
	"  if (q.get('z')) {\n"
	"    var best = null;\n"
	"    frames.forEach(function (f) { if (f.name === q.get('z') && (!best || f.n > best.n)) best = f; });\n"
	"    if (best) zoom(best);\n"
	"  }\n"
	"  if (q.get('s')) { box.value = q.get('s'); search(q.get('s')); }\n"
	"  document.documentElement.setAttribute('data-ready', '1');\n"
	"}\n"
	"window.addEventListener('load', init);\n";

static const char style[] = "text { font-family: monospace; font-size: "
			    "11"
			    "px; fill: #000; }\n"
			    "#title { font-size: 15px; }\n"
			    "#unzoom { cursor: pointer; fill: #06c; }\n"
			    ".hide { display: none; }\n"
			    "g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
			    "g.f { cursor: pointer; }\n"
			    "g.parent { opacity: 0.5; }\n"
			    "input { font: 12px monospace; width: 260px; }\n";

/*
 * Writes @s as XML text: through the sanitizer every name passes where it
 * enters (valid UTF-8, no control, nothing XML refuses: a file name, a
 * sample type read from a file, a title cut inside a character), then with
 * the five XML specials escaped.
 */
static void put_text(FILE *out, const char *s)
{
	char clean[NAME_MAX_BYTES + 1];

	sanitize_name(clean, sizeof(clean), s, strlen(s));
	for (const char *c = clean; *c; c++) {
		switch (*c) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			fputc(*c, out);
		}
	}
}

/* A colour of the frame's family, varied by its name so neighbours differ. */
static void frame_colour(const char *name, enum frame_kind kind, bool root, int rgb[3])
{
	uint64_t h = hash_bytes(name, strlen(name));
	int a = (int)(h % 64), b = (int)((h >> 8) % 64), c = (int)((h >> 16) % 32);

	if (root) {
		rgb[0] = rgb[1] = rgb[2] = 200;
	} else if (kind == FRAME_PROCESS) {
		rgb[0] = 170 + c, rgb[1] = 160 + c, rgb[2] = 200 + c;
	} else if (kind == FRAME_KERNEL) {
		rgb[0] = 60 + a, rgb[1] = 130 + b, rgb[2] = 210 + c;
	} else if (kind == FRAME_PYTHON) {
		rgb[0] = 70 + a, rgb[1] = 175 + c + c / 2, rgb[2] = 60 + b;
	} else {
		rgb[0] = 205 + c + c / 2, rgb[1] = 80 + a + b, rgb[2] = 40 + b / 2;
	}
}

/* The text drawn in a frame @w pixels wide: the name, cut with ".." to fit. */
static void put_label(FILE *out, const char *name, double w)
{
	long fit = (long)((w - 6) / CHAR_WIDTH);
	size_t len = strlen(name);
	char cut[1100];

	if (fit < 3)
		return;
	if (len <= (size_t)fit) {
		put_text(out, name);
		return;
	}
	len = (size_t)fit - 2;
	while (len && ((unsigned char)name[len] & 0xc0) == 0x80) /* not inside a character */
		len--;
	snprintf(cut, sizeof(cut), "%.*s..", (int)len, name);
	put_text(out, cut);
}

struct svg_page {
	FILE *out;
	const struct profile *p;
	const struct svg_info *info;
	uint64_t total;
	uint64_t per_us; /* counts per microsecond when they are times, else 0 */
	double height;
	/* Per depth, of the node placed last there: its place, where its next sibling goes,
	 * and the pixels per count of it and its siblings. */
	double *x, *w, *next, *sibling_scale;
	long drawn, narrow;
};

/* @n / @d (@d > 0), rounded half up, without overflow. */
static uint64_t div_round(uint64_t n, uint64_t d)
{
	return n / d + (n % d >= (d + 1) / 2);
}

/*
 * Writes the count @n as the page says counts: "1234 samples", or, counts
 * of time, "850 µs", "12.3 ms", "4.56 s" and the unit ("off-CPU time"). The
 * page's script writes them alike (amount()).
 */
static void put_amount(const struct svg_page *pg, uint64_t n)
{
	uint64_t c = pg->per_us, t;

	if (!c) {
		fprintf(pg->out, "%" PRIu64 " ", n);
	} else if (n < 1000 * c) {
		fprintf(pg->out, "%" PRIu64 " \xc2\xb5s ", div_round(n, c));
	} else if (n < 999950 * c) {
		t = div_round(n, 100 * c);
		fprintf(pg->out, "%" PRIu64 ".%" PRIu64 " ms ", t / 10, t % 10);
	} else {
		t = div_round(n, 10000 * c);
		fprintf(pg->out, "%" PRIu64 ".%02" PRIu64 " s ", t / 100, t % 100);
	}
	put_text(pg->out, pg->info->unit);
}

/* Counts per microsecond of a count unit: 1 for "microseconds", 1000 for "nanoseconds", else 0. */
static uint64_t counts_per_us(const char *count_unit)
{
	if (count_unit && strcmp(count_unit, "microseconds") == 0)
		return 1;
	if (count_unit && strcmp(count_unit, "nanoseconds") == 0)
		return 1000;
	return 0;
}

/* Draws frame @frame (PROFILE_NONE: the root), of @total, @depth deep, at @x, @w pixels wide. */
static void put_frame(struct svg_page *pg, uint32_t frame, uint64_t total, uint32_t depth,
		      double x, double w)
{
	bool root = frame == PROFILE_NONE;
	const char *name = root ? "all" : profile__frame_name(pg->p, frame);
	enum frame_kind kind = root ? FRAME_PROCESS
				    : (enum frame_kind)profile__frame_info(pg->p, frame)->kind;
	double y = pg->height - BOTTOM - (double)(depth + 1) * ROW_HEIGHT;
	static const char *const classes[] = {"p", "u", "k", "y"}; /* enum frame_kind's */
	int rgb[3];

	frame_colour(name, kind, root, rgb);
	fprintf(pg->out, "<g class=\"f %s\" data-n=\"%" PRIu64 "\"><title>",
		root ? "r" : classes[kind], total);
	put_text(pg->out, name);
	fprintf(pg->out, "%s\n", kind == FRAME_KERNEL ? " [k]" : "");
	put_amount(pg, total);
	fprintf(pg->out, ", %.2f%%</title>", 100.0 * (double)total / (double)pg->total);
	fprintf(pg->out,
		"<rect x=\"%.6f\" y=\"%.0f\" width=\"%.6f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" "
		"rx=\"2\"/><text x=\"%.2f\" y=\"%.0f\">",
		x, y, w, FRAME_HEIGHT, rgb[0], rgb[1], rgb[2], x + 3, y + 11);
	put_label(pg->out, name, w);
	fputs("</text></g>\n", pg->out);
}

/*
 * The sum of the totals of @node's siblings, @node among them (from its
 * parent's first child on): more than their parent's only where counts
 * saturated.
 */
static double siblings_total(const struct stack_trie *t, uint32_t node)
{
	double sum = 0;

	for (uint32_t c = node; c != TRIE_NONE; c = t->nodes[c].next_sibling)
		sum += (double)t->nodes[c].total;
	return sum;
}

/*
 * Places @node where its hotter siblings end, one row above its parent,
 * its width its share of the parent's total in the parent's width (so its
 * share of the root's). Where saturated counts make siblings add up to
 * more than their parent, they share its width in proportion: every frame
 * stays on the canvas, within its parent. Returns the width; the place is
 * in pg->x and pg->w at its depth.
 */
static double place_node(struct svg_page *pg, const struct stack_trie *t, uint32_t node)
{
	const struct trie_node *n = &t->nodes[node];
	uint32_t d = n->depth;

	if (node == TRIE_ROOT) {
		pg->x[0] = SVG_PAD;
		pg->w[0] = SVG_WIDTH - 2 * SVG_PAD;
		return pg->w[0];
	}
	if (stack_trie__first_child(t, n->parent) == node) {
		double sum = siblings_total(t, node), parent = (double)t->nodes[n->parent].total;
		double of = sum > parent ? sum : parent;

		pg->sibling_scale[d] = of > 0 ? pg->w[d - 1] / of : 0;
		pg->next[d] = pg->x[d - 1];
	}
	pg->x[d] = pg->next[d];
	pg->w[d] = (double)n->total * pg->sibling_scale[d];
	pg->next[d] += pg->w[d];
	return pg->w[d];
}

/*
 * Draws @node when it is at least SVG_MIN_WIDTH wide; the walk goes on to
 * its children only then (theirs are narrower still).
 */
static bool draw_node(void *ctx, const struct stack_trie *t, uint32_t node)
{
	struct svg_page *pg = ctx;
	const struct trie_node *n;
	double w = place_node(pg, t, node);

	if (w < SVG_MIN_WIDTH)
		return false;
	n = &t->nodes[node];
	put_frame(pg, n->frame, n->total, n->depth, pg->x[n->depth], w);
	pg->drawn++;
	return true;
}

/*
 * Draws a chain (see struct trie_visitor) when wide enough: each frame above
 * the one before, as wide as the node above it (it has their one stack).
 */
static void draw_chain(void *ctx, const struct stack_trie *t, uint32_t above,
		       const uint32_t *frames, uint32_t n, uint64_t count)
{
	struct svg_page *pg = ctx;
	uint32_t d = t->nodes[above].depth;

	for (uint32_t k = 0; k < n && pg->w[d] >= SVG_MIN_WIDTH; k++, pg->drawn++)
		put_frame(pg, frames[k], count, d + 1 + k, pg->x[d], pg->w[d]);
}

/* Counts the frames that would be left out, to say so in the title before they are drawn. */
static bool count_narrow(void *ctx, const struct stack_trie *t, uint32_t node)
{
	struct svg_page *pg = ctx;

	pg->narrow += place_node(pg, t, node) < SVG_MIN_WIDTH;
	return true;
}

static void count_narrow_chain(void *ctx, const struct stack_trie *t, uint32_t above,
			       const uint32_t *frames, uint32_t n, uint64_t count)
{
	struct svg_page *pg = ctx;

	(void)frames, (void)count;
	pg->narrow += pg->w[t->nodes[above].depth] < SVG_MIN_WIDTH ? n : 0;
}

static void put_head(struct svg_page *pg, size_t narrow)
{
	FILE *out = pg->out;

	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%.0f\" viewBox=\"0 0 %d %.0f\" data-unit=\"",
		SVG_WIDTH, pg->height, SVG_WIDTH, pg->height);
	put_text(out, pg->info->unit);
	fprintf(out, "\" data-total=\"%" PRIu64 "\" data-char-width=\"%.2f\" data-row=\"%d\"",
		pg->total, CHAR_WIDTH, ROW_HEIGHT);
	if (pg->per_us)
		fprintf(out, " data-per-us=\"%" PRIu64 "\"", pg->per_us);
	fprintf(out, ">\n<style>\n%s</style>\n<script><![CDATA[\n%s]]></script>\n", style, script);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#f6f6f0\"/>\n",
		SVG_WIDTH, pg->height);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"20\" text-anchor=\"middle\">", SVG_WIDTH / 2);
	put_text(out, pg->info->title);
	fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"38\" text-anchor=\"middle\">",
		SVG_WIDTH / 2);
	put_amount(pg, pg->total);
	if (pg->info->subtitle && pg->info->subtitle[0]) {
		fputs(" | ", out);
		put_text(out, pg->info->subtitle);
	}
	if (narrow)
		fprintf(out, " | %zu frame%s narrower than %.1f px left out (not searched)", narrow,
			narrow == 1 ? "" : "s", SVG_MIN_WIDTH);
	fprintf(out,
		"</text>\n<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"56\">Reset Zoom</text>\n",
		SVG_PAD);
	fprintf(out,
		"<foreignObject x=\"%d\" y=\"42\" width=\"280\" height=\"22\">"
		"<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"search\" type=\"search\" "
		"placeholder=\"Search (Ctrl-F)\"/></foreignObject>\n",
		SVG_WIDTH - SVG_PAD - 280);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%.0f\"> </text>\n", SVG_PAD,
		pg->height - 10);
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%.0f\" text-anchor=\"end\"> </text>\n",
		SVG_WIDTH - SVG_PAD, pg->height - 10);
}

long svg__write(FILE *out, struct stack_trie *t, const struct profile *p,
		const struct svg_info *info)
{
	struct svg_page pg = { .out = out, .p = p, .info = info,
			       .total = t->n ? t->nodes[TRIE_ROOT].total : 0,
			       .per_us = counts_per_us(info->count_unit) };
	size_t depths = (size_t)t->max_depth + 1;
	int err = 0;

	pg.height = TOP + BOTTOM + (double)depths * ROW_HEIGHT;
	pg.x = malloc(4 * depths * sizeof(double));
	if (!pg.x)
		err = -ENOMEM;
	else {
		pg.w = pg.x + depths;
		pg.next = pg.w + depths;
		pg.sibling_scale = pg.next + depths;
	}
	if (!err && pg.total)
		err = stack_trie__walk(t, &(struct trie_visitor){ count_narrow, count_narrow_chain,
								   &pg });
	if (!err) {
		put_head(&pg, (size_t)pg.narrow);
		fputs("<g id=\"frames\">\n", out);
		if (pg.total)
			err = stack_trie__walk(t, &(struct trie_visitor){ draw_node, draw_chain, &pg });
		fputs("</g>\n</svg>\n", out);
	}
	free(pg.x);
	if (err)
		return err;
	if (fflush(out) || ferror(out))
		return -(errno ? errno : EIO);
	return pg.drawn;
}
