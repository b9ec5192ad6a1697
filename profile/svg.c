// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/hash_index.h"
#include "profile/svg.h"

#define ROW_HEIGHT 16
#define FRAME_HEIGHT 15
#define TOP 64	       /* title, subtitle, search box, above the frames */
#define BOTTOM 32      /* the details line below them */
#define CHAR_WIDTH 6.6 /* of the 11-pixel monospace font the style sets */

/*
 * The page's behaviour: hover details, click zoom, search. Kept in one
 * piece so that the file needs nothing else. Frames are found by class; a
 * frame's place comes from its rect as written (x, width, y).
 */
static const char script[] =
	"var W = 0, PAD = 0, CW = 0, frames = [], total = 0, unit = '';\n"
	"function fmt(n) { return n.toString().replace(/\\B(?=(\\d{3})+(?!\\d))/g, ','); }\n"
	"function share(n, of) { return (100 * n / of).toFixed(2) + '%'; }\n"
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
	"  document.getElementById('details').textContent = f ? f.name + ' (' + fmt(f.n) + ' ' +\n"
	"    unit + ', ' + share(f.n, total) + ')' : ' ';\n"
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
	"  var hits = [], sum = 0, end = -1;\n"
	"  frames.forEach(function (f) {\n"
	"    var hit = text !== '' && f.name.indexOf(text) >= 0;\n"
	"    f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
	"    f.g.classList.toggle('match', hit);\n"
	"    if (hit) hits.push(f);\n"
	"  });\n"
	"  /* A frame inside another match is in its stacks already: count each sample once. */\n"
	"  hits.sort(function (a, b) { return a.x - b.x || a.d - b.d; });\n"
	"  hits.forEach(function (f) {\n"
	"    if (f.x >= end - 1e-9) { sum += f.n; end = f.x + f.w; }\n"
	"  });\n"
	"  var m = document.getElementById('matched');\n"
	"  m.textContent = text === '' ? ' ' : 'Matched: ' + share(sum, total) + ' (' + fmt(sum) +\n"
	"    ' ' + unit + ', ' + hits.length + ' frames)';\n"
	"  m.setAttribute('data-n', sum);\n"
	"}\n"
	"function init() {\n"
	"  var svg = document.documentElement;\n"
	"  unit = svg.getAttribute('data-unit');\n"
	"  CW = +svg.getAttribute('data-char-width');\n"
	"  document.querySelectorAll('g.f').forEach(function (g) {\n"
	"    var r = g.querySelector('rect'), title = g.querySelector('title').textContent;\n"
	"    var f = { g: g, r: r, t: g.querySelector('text'), n: +g.getAttribute('data-n'),\n"
	"      x: +r.getAttribute('x'), w: +r.getAttribute('width'), d: -r.getAttribute('y'),\n"
	"      fill: r.getAttribute('fill'), name: title.substring(0, title.lastIndexOf('\\n')) };\n"
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

/* Writes @s with the five XML specials escaped; U+FFFE and U+FFFF, not XML, become '?'. */
static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		const unsigned char *u = (const unsigned char *)s;

		if (u[0] == 0xef && u[1] == 0xbf && (u[2] == 0xbe || u[2] == 0xbf)) {
			fputc('?', out);
			s += 2;
			continue;
		}
		switch (*s) {
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
			fputc(*s, out);
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
		put_escaped(out, name);
		return;
	}
	len = (size_t)fit - 2;
	while (len && ((unsigned char)name[len] & 0xc0) == 0x80) /* not inside a character */
		len--;
	snprintf(cut, sizeof(cut), "%.*s..", (int)len, name);
	put_escaped(out, cut);
}

struct svg_page {
	FILE *out;
	const struct profile *p;
	const struct svg_info *info;
	uint64_t total;
	double min_total; /* narrower than SVG_MIN_WIDTH below it */
	double height;
	uint64_t *start;  /* per depth: where the node drawn last at that depth starts */
	uint64_t *next;   /* per depth: where its next sibling starts */
	long drawn, narrow;
};

/* Draws frame @frame (PROFILE_NONE: the root), of @total, @depth deep, from @start on. */
static void put_frame(struct svg_page *pg, uint32_t frame, uint64_t total, uint32_t depth,
		      uint64_t start)
{
	bool root = frame == PROFILE_NONE;
	const char *name = root ? "all" : profile__frame_name(pg->p, frame);
	enum frame_kind kind = root ? FRAME_PROCESS
				    : (enum frame_kind)profile__frame_info(pg->p, frame)->kind;
	double scale = (double)(SVG_WIDTH - 2 * SVG_PAD) / (double)pg->total;
	double x = SVG_PAD + (double)start * scale, w = (double)total * scale;
	double y = pg->height - BOTTOM - (double)(depth + 1) * ROW_HEIGHT;
	static const char *const classes[] = {"p", "u", "k", "y"}; /* enum frame_kind's */
	int rgb[3];

	frame_colour(name, kind, root, rgb);
	fprintf(pg->out, "<g class=\"f %s\" data-n=\"%" PRIu64 "\"><title>",
		root ? "r" : classes[kind], total);
	put_escaped(pg->out, name);
	fprintf(pg->out, "%s\n%" PRIu64 " %s, %.2f%%</title>", kind == FRAME_KERNEL ? " [k]" : "",
		total, pg->info->unit, 100.0 * (double)total / (double)pg->total);
	fprintf(pg->out,
		"<rect x=\"%.6f\" y=\"%.0f\" width=\"%.6f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" "
		"rx=\"2\"/><text x=\"%.2f\" y=\"%.0f\">",
		x, y, w, FRAME_HEIGHT, rgb[0], rgb[1], rgb[2], x + 3, y + 11);
	put_label(pg->out, name, w);
	fputs("</text></g>\n", pg->out);
}

/*
 * Draws @node when it is at least SVG_MIN_WIDTH wide, where its hotter
 * siblings end, one row above its parent; the walk goes on to its
 * children only then (theirs are narrower still).
 */
static bool draw_node(void *ctx, const struct stack_trie *t, uint32_t node)
{
	struct svg_page *pg = ctx;
	const struct trie_node *n = &t->nodes[node];
	uint32_t d = n->depth;

	if ((double)n->total < pg->min_total)
		return false;
	if (node == TRIE_ROOT)
		pg->next[0] = 0;
	else if (stack_trie__first_child(t, n->parent) == node)
		pg->next[d] = pg->start[d - 1];
	pg->start[d] = pg->next[d];
	pg->next[d] = count__add(pg->next[d], n->total);
	put_frame(pg, n->frame, n->total, d, pg->start[d]);
	pg->drawn++;
	return true;
}

/* Draws a chain (see struct trie_visitor) when wide enough: each frame above the one before. */
static void draw_chain(void *ctx, const struct stack_trie *t, uint32_t above,
		       const uint32_t *frames, uint32_t n, uint64_t count)
{
	struct svg_page *pg = ctx;
	uint32_t d = t->nodes[above].depth;

	for (uint32_t k = 0; k < n && (double)count >= pg->min_total; k++, pg->drawn++)
		put_frame(pg, frames[k], count, d + 1 + k, pg->start[d]);
}

/* Counts the frames that would be left out, to say so in the title before they are drawn. */
static bool count_narrow(void *ctx, const struct stack_trie *t, uint32_t node)
{
	struct svg_page *pg = ctx;

	pg->narrow += (double)t->nodes[node].total < pg->min_total;
	return true;
}

static void count_narrow_chain(void *ctx, const struct stack_trie *t, uint32_t above,
			       const uint32_t *frames, uint32_t n, uint64_t count)
{
	struct svg_page *pg = ctx;

	(void)t, (void)above, (void)frames;
	pg->narrow += (double)count < pg->min_total ? n : 0;
}

static void put_head(struct svg_page *pg, size_t narrow)
{
	FILE *out = pg->out;

	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%.0f\" viewBox=\"0 0 %d %.0f\" data-unit=\"",
		SVG_WIDTH, pg->height, SVG_WIDTH, pg->height);
	put_escaped(out, pg->info->unit);
	fprintf(out,
		"\" data-total=\"%" PRIu64 "\" data-char-width=\"%.2f\">\n<style>\n%s</style>\n"
		"<script><![CDATA[\n%s]]></script>\n",
		pg->total, CHAR_WIDTH, style, script);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#f6f6f0\"/>\n",
		SVG_WIDTH, pg->height);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"20\" text-anchor=\"middle\">", SVG_WIDTH / 2);
	put_escaped(out, pg->info->title);
	fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"38\" text-anchor=\"middle\">",
		SVG_WIDTH / 2);
	fprintf(out, "%" PRIu64 " ", pg->total);
	put_escaped(out, pg->info->unit);
	if (pg->info->subtitle && pg->info->subtitle[0]) {
		fputs(" | ", out);
		put_escaped(out, pg->info->subtitle);
	}
	if (narrow)
		fprintf(out, " | %zu frames narrower than %.1f px left out", narrow, SVG_MIN_WIDTH);
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
			       .total = t->n ? t->nodes[TRIE_ROOT].total : 0 };
	uint32_t depth = t->max_depth;
	int err = 0;

	pg.min_total = SVG_MIN_WIDTH * (double)pg.total / (SVG_WIDTH - 2 * SVG_PAD);
	pg.height = TOP + BOTTOM + (double)(depth + 1) * ROW_HEIGHT;
	pg.start = malloc((depth + 1) * sizeof(*pg.start));
	pg.next = malloc((depth + 1) * sizeof(*pg.next));
	if (!pg.start || !pg.next)
		err = -ENOMEM;
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
	free(pg.start);
	free(pg.next);
	if (err)
		return err;
	if (fflush(out) || ferror(out))
		return -(errno ? errno : EIO);
	return pg.drawn;
}
