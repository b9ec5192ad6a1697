// SPDX-License-Identifier: GPL-2.0
/*
 * code_name: a code object's fields are read in one piece (the walk's
 * code_bytes), its strings' heads and tagged text exactly as far as they
 * go, so that a read never depends on memory past an object.
 */
#include "python/code_name.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python/linetable.h"
#include "symbols/sanitize.h"

/* A string's head and the text the tag covers, as read. */
struct py_str {
	uint64_t addr;
	int64_t length;
	uint32_t state;
	uint32_t text_off;
	uint8_t text[PY_TAG_TEXT];
};

static uint64_t u64_at(const uint8_t *buf, __u16 off)
{
	uint64_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

static int32_t s32_at(const uint8_t *buf, __u16 off)
{
	int32_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/* Reads the head of the string at @addr and the text the tag covers. 0 or -errno. */
static int str_head(const struct py_mem *mem, const struct py_layout *l, uint64_t addr,
		    struct py_str *s)
{
	uint8_t head[PY_STR_READ];
	uint32_t n;
	int err;

	memset(s, 0, sizeof(*s));
	s->addr = addr;
	if (l->str_ascii_size > sizeof(head) || l->str_length + 8u > l->str_ascii_size ||
	    l->str_state + 4u > l->str_ascii_size)
		return -EPROTO;
	err = py_mem__read(mem, addr, head, l->str_ascii_size);
	if (err)
		return err;
	memcpy(&s->length, head + l->str_length, sizeof(s->length));
	memcpy(&s->state, head + l->str_state, sizeof(s->state));
	if (!py_str_readable(s->length, s->state))
		return -EPROTO;
	s->text_off = py_str_text_off(l, s->state);
	n = py_tag_text_bytes(s->length, s->state);
	return n ? py_mem__read(mem, addr + s->text_off, s->text, n) : 0;
}

/* Appends code point @c to @out (room for 4 more bytes) as UTF-8; '?' for none. */
static size_t put_utf8(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c >= 0xd800 && c < 0xe000) {
		out[0] = '?';
		return 1;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c < 0x110000) {
		out[0] = (char)(0xf0 | c >> 18);
		out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[3] = (char)(0x80 | (c & 0x3f));
		return 4;
	}
	out[0] = '?';
	return 1;
}

/*
 * The text of string @s, read to at most @cap characters, as sanitized
 * UTF-8 into @out (@size bytes). 0 or -errno.
 */
static int str_text(const struct py_mem *mem, const struct py_str *s, size_t cap, char *out,
		    size_t size)
{
	uint32_t kind = PY_STR_KIND(s->state);
	size_t chars = s->length < (int64_t)cap ? (size_t)s->length : cap, len = 0;
	uint8_t *raw = malloc(chars * kind + 1);
	char *utf8 = malloc(chars * 4 + 1);
	int err = raw && utf8 ? 0 : -ENOMEM;

	if (!err && chars)
		err = py_mem__read(mem, s->addr + s->text_off, raw, chars * kind);
	for (size_t i = 0; !err && i < chars; i++) {
		uint32_t c = 0;

		memcpy(&c, raw + i * kind, kind); /* host order, as the process wrote it */
		len += put_utf8(utf8 + len, c);
	}
	/* A name of more than @cap characters ends in "..", as sanitize_name() cuts one. */
	if (!err && sanitize_name(out, size - 2, utf8, len) && (size_t)s->length > chars &&
	    strcmp(out + strlen(out) - 2, ".."))
		strcat(out, "..");
	free(raw);
	free(utf8);
	return err;
}

/* Reads the line table, a bytes object at @addr, into @c (NULL when it cannot be). */
static void read_linetable(const struct py_mem *mem, const struct py_layout *l, uint64_t addr,
			   struct py_code *c)
{
	int64_t len;

	if (!addr || py_mem__read(mem, addr + l->bytes_size, &len, sizeof(len)) || len < 0 ||
	    len > PY_LINETABLE_MAX)
		return;
	c->linetable = malloc(len ? (size_t)len : 1);
	if (c->linetable && py_mem__read(mem, addr + l->bytes_data, c->linetable, (size_t)len)) {
		free(c->linetable);
		c->linetable = NULL;
	}
	c->linetable_len = c->linetable ? (size_t)len : 0;
}

int py_code__read(const struct py_mem *mem, const struct py_layout *l, uint64_t addr,
		  uint32_t want_tag, struct py_code *out)
{
	uint8_t buf[PY_READ_MAX];
	struct py_str name, file;
	uint64_t h, linetable;
	int err;

	memset(out, 0, sizeof(*out));
	if (!l->code_bytes || l->code_bytes > sizeof(buf))
		return -EPROTO;
	err = py_mem__read(mem, addr, buf, l->code_bytes);
	if (err)
		return err;
	linetable = u64_at(buf, l->code_linetable);
	err = str_head(mem, l, u64_at(buf, l->code_name), &name) ?:
	      str_head(mem, l, u64_at(buf, l->code_filename), &file);
	if (err)
		return err;
	h = py_tag_code(s32_at(buf, l->code_firstlineno), s32_at(buf, l->code_argcount), linetable);
	h = py_tag_mix(h, py_tag_string(name.addr, name.length, name.state, name.text));
	h = py_tag_mix(h, py_tag_string(file.addr, file.length, file.state, file.text));
	out->tag = py_tag_end(h);
	if (want_tag && want_tag != out->tag)
		return -ESTALE;
	out->firstlineno = s32_at(buf, l->code_firstlineno);
	err = str_text(mem, &name, PY_QUALNAME_MAX, out->qualname, sizeof(out->qualname)) ?:
	      str_text(mem, &file, PY_FILENAME_MAX, out->filename, sizeof(out->filename));
	if (err)
		return err;
	read_linetable(mem, l, linetable, out);
	return 0;
}

void py_code__free(struct py_code *c)
{
	free(c->linetable);
	c->linetable = NULL;
	c->linetable_len = 0;
}

int py_code__line(const struct py_code *c, uint32_t version, uint32_t lasti)
{
	return py_line(version, c->linetable, c->linetable_len, c->firstlineno,
		       lasti == PY_LASTI_NONE ? -1 : (int64_t)lasti);
}

size_t py_code__frame_name(const struct py_code *c, int line, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s (%s:%d)", c->qualname, c->filename, line);

	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}
