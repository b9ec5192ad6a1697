/* SPDX-License-Identifier: GPL-2.0 */
/*
 * term: the terminal, through ncurses; the only file that includes it.
 * Copies a screen (tui/screen.h) to the terminal in colour (256 or 8
 * colours) or in plain attributes, reads keys as TK_* codes, and restores
 * the terminal however flametop ends: term__close(), exit() (an atexit
 * handler), or SIGINT, SIGTERM, SIGHUP and SIGQUIT (Ctrl-\), which only
 * raise a flag that the caller's loop checks (term__stop_requested()) so
 * that it ends cleanly. Ctrl-Z (SIGTSTP) gives the terminal back and
 * stops flametop; once continued, the next key read redraws. A fatal
 * signal (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) while the screen is
 * open first gives the terminal back (its modes as they were, the screen's
 * sequences undone: no curses call, only write() and tcsetattr()), then
 * takes its course.
 */
#ifndef FLAMETOP_TERM_H
#define FLAMETOP_TERM_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/screen.h"

#define TERM_NO_KEY (-1) /* nothing to read now */
#define TERM_RESIZED (-2) /* the terminal changed size */

/*
 * term__check() says whether the terminal on stdout can show the screen
 * (TERM names a known type that moves the cursor; TERM=dumb does not),
 * without taking it over: to refuse before anything is started. Returns 0,
 * or -ENOTTY with one line in @err; term__open() refuses alike.
 */
int term__check(char *err, size_t err_size);

/*
 * term__open() takes over the terminal: stdout for output, stdin for keys
 * (or /dev/tty when stdin is not a terminal, as with "-i -"). @color false
 * draws with attributes only. Returns 0, or -errno with one line in @err.
 */
int term__open(bool color, char *err, size_t err_size);

/* The descriptor keys arrive on, to poll. */
int term__input_fd(void);

/*
 * The descriptor that polls readable once a signal came (a resize, Ctrl-Z,
 * SIGINT...), whenever it came: its wakeups are taken by term__read_key().
 */
int term__wake_fd(void);

/*
 * term__read_key() returns a key (TK_* or ASCII), TERM_RESIZED or TERM_NO_KEY;
 * never blocks. Keys wait in the input descriptor (term__input_fd()) and
 * signals in term__wake_fd(), so a caller need ask only when either polls
 * readable; once it returned TERM_NO_KEY nothing is held back. After a
 * Ctrl-Z it stops flametop, and once continued returns TERM_RESIZED: the
 * screen is to be drawn again.
 */
int term__read_key(void);

/* The terminal's size now. */
void term__size(int *width, int *height);

/*
 * term__draw() shows @s: only the cells that differ from the last screen
 * drawn are handed to curses, which sends the terminal only what changed.
 */
void term__draw(const struct screen *s);

/* True once SIGINT, SIGTERM, SIGHUP or SIGQUIT arrived. */
bool term__stop_requested(void);

/* term__close() gives the terminal back as it was; a no-op when not open. */
void term__close(void);

#endif
