// SPDX-License-Identifier: GPL-2.0
/*
 * png_pixels FILE X,Y...: prints "R,G,B" of each pixel asked for, space
 * separated, on one line. Reads the 8-bit RGB and RGBA, non-interlaced PNGs
 * that Chromium writes, with zlib alone (its inflate), so that the tests
 * look at a screenshot without an imaging library. A file it can't read,
 * or a pixel outside the picture, gets one line on stderr and exit code 2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_BYTES (256u << 20) /* of the file, and of the picture inflated */

struct png {
	uint32_t width, height, bpp; /* bytes per pixel: 3 (RGB) or 4 (RGBA) */
	unsigned char *pixels;	     /* height rows of width * bpp bytes, unfiltered */
};

static void fail(const char *path, const char *why)
{
	fprintf(stderr, "png_pixels: %s: %s\n", path, why);
	exit(2);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The whole file, *@len bytes; exits on error. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = malloc(MAX_BYTES);

	if (!f)
		fail(path, "can't open it");
	if (!data)
		fail(path, "out of memory");
	*len = fread(data, 1, MAX_BYTES, f);
	if (ferror(f) || !feof(f))
		fail(path, "can't read it, or it is over 256 MiB");
	fclose(f);
	return data;
}

/* The Paeth predictor of PNG's filter type 4. */
static unsigned char paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return (unsigned char)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/*
 * Undoes each row's filter in place: @raw holds height rows of a filter
 * byte and stride bytes; the pixels end up at the start of @raw.
 */
static void unfilter(const char *path, struct png *png, unsigned char *raw)
{
	size_t stride = (size_t)png->width * png->bpp, bpp = png->bpp;
	unsigned char *prev = NULL;

	for (size_t y = 0; y < png->height; y++) {
		unsigned char kind = raw[y * (stride + 1)];
		unsigned char *cur = raw + y * stride;

		/* Each row moves one byte down over its filter byte (rows before it are done). */
		memmove(cur, raw + y * (stride + 1) + 1, stride);
		for (size_t i = 0; i < stride; i++) {
			int a = i >= bpp ? cur[i - bpp] : 0, b = prev ? prev[i] : 0;
			int c = prev && i >= bpp ? prev[i - bpp] : 0;

			switch (kind) {
			case 0:
				break;
			case 1:
				cur[i] = (unsigned char)(cur[i] + a);
				break;
			case 2:
				cur[i] = (unsigned char)(cur[i] + b);
				break;
			case 3:
				cur[i] = (unsigned char)(cur[i] + (a + b) / 2);
				break;
			case 4:
				cur[i] = (unsigned char)(cur[i] + paeth(a, b, c));
				break;
			default:
				fail(path, "a row with an unknown filter");
			}
		}
		prev = cur;
	}
	png->pixels = raw;
}

/* Reads the PNG at @path; exits with a message when it is not one it reads. */
static void read_png(const char *path, struct png *png)
{
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	size_t len, pos = 8, idat_len = 0, raw_len;
	unsigned char *data = slurp(path, &len), *idat = malloc(len), *raw;
	uLongf out_len;

	if (!idat)
		fail(path, "out of memory");
	if (len < 8 || memcmp(data, sig, 8) != 0)
		fail(path, "not a PNG");
	memset(png, 0, sizeof(*png));
	while (pos + 12 <= len) {
		uint32_t n = be32(data + pos);
		const unsigned char *kind = data + pos + 4, *body = data + pos + 8;

		if (n > len - pos - 12)
			fail(path, "a chunk runs past the end of the file");
		if (memcmp(kind, "IHDR", 4) == 0) {
			if (n != 13 || body[8] != 8 || (body[9] != 2 && body[9] != 6) || body[12])
				fail(path, "only 8-bit RGB or RGBA, not interlaced");
			png->width = be32(body);
			png->height = be32(body + 4);
			png->bpp = body[9] == 2 ? 3 : 4;
		} else if (memcmp(kind, "IDAT", 4) == 0) {
			memcpy(idat + idat_len, body, n);
			idat_len += n;
		}
		pos += 12 + (size_t)n;
	}
	if (!png->bpp || !png->width || !png->height ||
	    (uint64_t)png->height * ((uint64_t)png->width * png->bpp + 1) > MAX_BYTES)
		fail(path, "no picture, or one over 256 MiB");
	raw_len = (size_t)png->height * ((size_t)png->width * png->bpp + 1);
	raw = malloc(raw_len);
	out_len = raw_len;
	if (!raw)
		fail(path, "out of memory");
	if (uncompress(raw, &out_len, idat, idat_len) != Z_OK || out_len != raw_len)
		fail(path, "its picture does not inflate to its size");
	unfilter(path, png, raw);
	free(idat);
	free(data);
}

int main(int argc, char **argv)
{
	struct png png;

	if (argc < 3) {
		fprintf(stderr, "usage: png_pixels FILE X,Y...\n");
		return 2;
	}
	read_png(argv[1], &png);
	for (int i = 2; i < argc; i++) {
		unsigned long x, y;
		const unsigned char *px;
		char end;

		if (sscanf(argv[i], "%lu,%lu%c", &x, &y, &end) != 2 || x >= png.width ||
		    y >= png.height)
			fail(argv[1], "a pixel outside the picture, or not X,Y");
		px = png.pixels + (y * png.width + x) * png.bpp;
		printf("%s%d,%d,%d", i > 2 ? " " : "", px[0], px[1], px[2]);
	}
	printf("\n");
	free(png.pixels);
	return 0;
}
