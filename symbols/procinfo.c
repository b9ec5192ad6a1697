// SPDX-License-Identifier: GPL-2.0
/*
 * procinfo: small /proc files, read whole into a bounded buffer with one
 * read() and parsed as untrusted text.
 */
#include "symbols/procinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/text_line.h"

#define STAT_BYTES 4096
#define STATUS_BYTES 16384
#define START_TIME_FIELD 22

/* Skips one space-separated field of @s, which must not end @s. */
static const char *skip_field(const char *s, const char *end)
{
	while (s < end && *s != ' ')
		s++;
	return s < end ? s + 1 : NULL;
}

int proc_stat__start_time(const char *text, size_t len, uint64_t *start)
{
	const char *end = text + len, *s = NULL, *p;
	char digits[24];
	size_t n = 0;
	int field;

	for (p = text; p < end; p++) {
		if (*p == ')')
			s = p;
	}
	if (!s || s + 2 >= end || s[1] != ' ')
		return -EINVAL;
	s += 2; /* field 3, the state */
	for (field = 3; field < START_TIME_FIELD && s; field++)
		s = skip_field(s, end);
	if (!s)
		return -EINVAL;
	while (s + n < end && n < sizeof(digits) - 1 && s[n] >= '0' && s[n] <= '9') {
		digits[n] = s[n];
		n++;
	}
	digits[n] = '\0';
	p = digits;
	if (s + n < end && s[n] != ' ' && s[n] != '\n')
		return -EINVAL;
	return text_line__parse_u64(&p, 10, start) ? -EINVAL : 0;
}

/* Parses the decimal field at *@s (after tabs or spaces) into a u32; advances *@s. */
static int parse_u32_field(const char **s, const char *end, uint32_t *v)
{
	char digits[16];
	const char *p;
	uint64_t val;
	size_t n = 0;

	while (*s < end && (**s == '\t' || **s == ' '))
		(*s)++;
	while (*s + n < end && n < sizeof(digits) - 1 && (*s)[n] >= '0' && (*s)[n] <= '9') {
		digits[n] = (*s)[n];
		n++;
	}
	digits[n] = '\0';
	p = digits;
	if (text_line__parse_u64(&p, 10, &val) || val > UINT32_MAX)
		return -EINVAL;
	*s += n;
	*v = (uint32_t)val;
	return 0;
}

/* The end of the line starting at @s. */
static const char *line_end(const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));

	return nl ? nl : end;
}

static bool line_starts(const char *s, const char *eol, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(eol - s) >= n && !memcmp(s, prefix, n);
}

/*
 * Parses the four ids of a "Uid:" or "Gid:" line (real, effective, saved,
 * file-system) at @s; sets *@eff and *@fs.
 */
static int parse_id_line(const char *s, const char *eol, uint32_t *eff, uint32_t *fs)
{
	uint32_t real, saved;

	if (parse_u32_field(&s, eol, &real) || parse_u32_field(&s, eol, eff) ||
	    parse_u32_field(&s, eol, &saved) || parse_u32_field(&s, eol, fs))
		return -EINVAL;
	return 0;
}

/* Parses the groups of a "Groups:" line at @s, the first PROC_GROUPS_MAX of them. */
static void parse_groups(const char *s, const char *eol, struct proc_creds *c)
{
	uint32_t v;

	c->n_groups = 0;
	while (c->n_groups < PROC_GROUPS_MAX && !parse_u32_field(&s, eol, &v))
		c->groups[c->n_groups++] = v;
}

/* Parses the size in KiB of a "Vm...:" line at @s ("  1234 kB"); 0 when malformed. */
static uint64_t parse_kb(const char *s, const char *eol)
{
	char digits[24];
	const char *p = digits;
	uint64_t v;
	size_t n = 0;

	while (s < eol && (*s == ' ' || *s == '\t'))
		s++;
	while (s + n < eol && n < sizeof(digits) - 1 && s[n] >= '0' && s[n] <= '9') {
		digits[n] = s[n];
		n++;
	}
	digits[n] = '\0';
	return text_line__parse_u64(&p, 10, &v) ? 0 : v;
}

bool proc_vm__equal(const struct proc_vm *a, const struct proc_vm *b)
{
	return a->size_kb == b->size_kb && a->exe_kb == b->exe_kb && a->lib_kb == b->lib_kb;
}

int proc_status__parse(const char *text, size_t len, uint32_t pid, struct proc_status *st)
{
	const char *s = text, *end = text + len;
	bool have_uid = false, have_gid = false;
	uint32_t egid, v;

	st->ns_pid = pid;
	st->creds.n_groups = 0;
	st->vm = (struct proc_vm){ 0 };
	while (s < end) {
		const char *eol = line_end(s, end), *p;

		if (line_starts(s, eol, "Uid:")) {
			if (parse_id_line(s + 4, eol, &st->euid, &st->creds.uid))
				return -EINVAL;
			have_uid = true;
		} else if (line_starts(s, eol, "Gid:")) {
			if (parse_id_line(s + 4, eol, &egid, &st->creds.gid))
				return -EINVAL;
			have_gid = true;
		} else if (line_starts(s, eol, "Groups:")) {
			parse_groups(s + 7, eol, &st->creds);
		} else if (line_starts(s, eol, "NSpid:")) {
			p = s + 6;
			while (p < eol && !parse_u32_field(&p, eol, &v))
				st->ns_pid = v; /* the last one is the innermost namespace */
		} else if (line_starts(s, eol, "VmSize:")) {
			st->vm.size_kb = parse_kb(s + 7, eol);
		} else if (line_starts(s, eol, "VmExe:")) {
			st->vm.exe_kb = parse_kb(s + 6, eol);
		} else if (line_starts(s, eol, "VmLib:")) {
			st->vm.lib_kb = parse_kb(s + 6, eol);
		}
		s = eol + 1;
	}
	return have_uid && have_gid ? 0 : -EINVAL;
}

/* Reads "@proc_root/@pid/@name" into @buf (capacity @size); returns the length or -errno. */
static ssize_t read_proc_file(const char *proc_root, uint32_t pid, const char *name, char *buf,
			      size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%" PRIu32 "/%s", proc_root, pid, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno == ESRCH ? -ENOENT : -errno;
	n = read(fd, buf, size);
	if (n < 0)
		n = errno == ESRCH ? -ENOENT : -errno;
	close(fd);
	return n;
}

int proc_info__start_time(const char *proc_root, uint32_t pid, uint64_t *start)
{
	char buf[STAT_BYTES];
	ssize_t n = read_proc_file(proc_root, pid, "stat", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return proc_stat__start_time(buf, (size_t)n, start);
}

int proc_info__status(const char *proc_root, uint32_t pid, struct proc_status *st)
{
	char buf[STATUS_BYTES];
	ssize_t n = read_proc_file(proc_root, pid, "status", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return proc_status__parse(buf, (size_t)n, pid, st);
}

bool proc_creds__equal(const struct proc_creds *a, const struct proc_creds *b)
{
	return a->uid == b->uid && a->gid == b->gid && a->n_groups == b->n_groups &&
	       !memcmp(a->groups, b->groups, a->n_groups * sizeof(a->groups[0]));
}

const struct proc_creds *proc_creds_memo__get(struct proc_creds_memo *m, const char *proc_root,
					      uint32_t pid)
{
	struct proc_status st;

	if (!m->state) {
		m->state = proc_info__status(proc_root, pid, &st);
		if (!m->state) {
			m->creds = st.creds;
			m->state = 1;
		}
	}
	return m->state == 1 ? &m->creds : NULL;
}

bool proc_info__exited(int32_t tgid)
{
	return tgid > 0 && kill((pid_t)tgid, 0) && errno == ESRCH;
}

/* The state letter of /proc/PID/stat text (field 3, after the last ')'), or 0. */
static char stat_state(const char *text, size_t len)
{
	const char *s = NULL;

	for (const char *p = text; p < text + len; p++) {
		if (*p == ')')
			s = p;
	}
	return s && s + 2 < text + len && s[1] == ' ' ? s[2] : 0;
}

bool proc_info__ended(const char *proc_root, uint32_t pid)
{
	char buf[STAT_BYTES];
	ssize_t n;
	char state;

	/* In this machine's /proc, one that exited goes without a failed lookup. */
	if (strcmp(proc_root, "/proc") == 0 && pid <= INT32_MAX && proc_info__exited((int32_t)pid))
		return true;
	n = read_proc_file(proc_root, pid, "stat", buf, sizeof(buf));
	state = n > 0 ? stat_state(buf, (size_t)n) : 0;
	return n == -ENOENT || state == 'Z' || state == 'X';
}

bool proc_info__exists(const char *proc_root, uint32_t pid)
{
	char path[PATH_MAX];
	struct stat st;

	return snprintf(path, sizeof(path), "%s/%" PRIu32, proc_root, pid) < (int)sizeof(path) &&
	       stat(path, &st) == 0;
}
