// SPDX-License-Identifier: GPL-2.0
/*
 * first_screen COLS ROWS TEXT1 TEXT2 COMMAND [ARG]...: runs COMMAND on a
 * new pseudo-terminal of COLS x ROWS and says when its output first held
 * TEXT1, and when TEXT2 after it, in milliseconds of the monotonic clock
 * since just before the fork; then ends COMMAND (SIGTERM) and reaps it:
 *
 *   text1_ms=183.4   (or "none" when it never came)
 *   text2_ms=190.2   (or "none")
 *   status=0         (COMMAND's exit status, or 128 + its signal)
 *
 * The texts are looked for in what COMMAND writes with its escape
 * sequences (CSI and two-byte ones) and shift bytes taken out, as a
 * terminal would show the letters: no terminal emulator and no polling
 * stand between the write and the clock. Gives up after 10 s.
 * Measures, never judges: the exit status is 0 whenever COMMAND could be run.
 */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"

#define GIVE_UP_MS 10000.0
#define KEEP 4096 /* bytes of text kept to match across reads */

/* Escape-sequence state of the output, carried across reads. */
enum esc { TEXT, ESC, CSI };

/* Appends the letters of @in (@n bytes) to @text (holding *@len), escapes dropped. */
static void add_text(char *text, size_t *len, enum esc *st, const char *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];

		if (*st == ESC) {
			*st = c == '[' ? CSI : TEXT; /* ESC x: a two-byte sequence */
			continue;
		}
		if (*st == CSI) {
			if (c >= 0x40 && c <= 0x7e)
				*st = TEXT;
			continue;
		}
		if (c == 0x1b) {
			*st = ESC;
			continue;
		}
		if (c < 0x20 && c != '\n')
			continue; /* shift in/out, carriage returns, bells */
		if (*len == KEEP - 1) { /* keep the newer half */
			memmove(text, text + KEEP / 2, KEEP / 2 - 1);
			*len = KEEP / 2 - 1;
		}
		text[(*len)++] = (char)c;
		text[*len] = 0;
	}
}

int main(int argc, char **argv)
{
	struct winsize ws = { 0 };
	double start, t1 = -1, t2 = -1;
	char text[KEEP] = "", buf[65536], *from1;
	enum esc st = TEXT;
	size_t len = 0;
	int fd, wstatus, status;
	pid_t pid;

	if (argc < 6 || atoi(argv[1]) <= 0 || atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: first_screen COLS ROWS TEXT1 TEXT2 COMMAND [ARG]...\n");
		return 2;
	}
	ws.ws_col = (unsigned short)atoi(argv[1]);
	ws.ws_row = (unsigned short)atoi(argv[2]);
	start = now_ms();
	pid = forkpty(&fd, NULL, NULL, &ws);
	if (pid < 0) {
		fprintf(stderr, "first_screen: forkpty: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[5], argv + 5);
		fprintf(stderr, "first_screen: can't run %s: %s\n", argv[5], strerror(errno));
		_exit(127);
	}
	while (t2 < 0 && now_ms() - start < GIVE_UP_MS) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break; /* the command ended (EIO on the master) */
		add_text(text, &len, &st, buf, (size_t)n);
		if (t1 < 0 && (from1 = strstr(text, argv[3])) != NULL) {
			t1 = now_ms();
			/* TEXT2 is looked for after TEXT1 only: what came before goes. */
			len -= (size_t)(from1 - text);
			memmove(text, from1, len + 1);
		}
		if (t1 >= 0 && strstr(text, argv[4]))
			t2 = now_ms();
	}
	kill(pid, SIGTERM);
	/* Drain what it writes while it ends: a full pty would hold it up. */
	while (waitpid(pid, &wstatus, WNOHANG) == 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 50) > 0 && read(fd, buf, sizeof(buf)) <= 0)
			break;
	}
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	close(fd);
	status = WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
	if (t1 < 0)
		printf("text1_ms=none\n");
	else
		printf("text1_ms=%.1f\n", t1 - start);
	if (t2 < 0)
		printf("text2_ms=none\n");
	else
		printf("text2_ms=%.1f\n", t2 - start);
	printf("status=%d\n", status);
	return 0;
}
