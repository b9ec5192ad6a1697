// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#define NCURSES_WIDECHAR 1
#include <ncurses.h>
#include <term.h>

#include "tui/keys.h"
#include "tui/term.h"

#define ESC_DELAY_MS 25
#define MAX_PAIRS 64

static struct {
	SCREEN *scr;
	FILE *in;          /* keys: stdin, or /dev/tty */
	bool own_in;       /* @in was opened here */
	bool color;
	bool utf8;         /* the locale can print any character */
	int ncolors;       /* 256 or 8 */
	short pair_fg[MAX_PAIRS], pair_bg[MAX_PAIRS];
	int npairs;
	struct screen_cell *shown; /* what stdscr holds, shown_w * shown_h; NULL: unknown */
	int shown_w, shown_h;
	struct cell_style last;    /* the style attr_of() was last asked about ... */
	attr_t last_attr;          /* ... and its answer */
	short last_pair;           /* -1: none yet */
} term = { .last_pair = -1 };

static volatile sig_atomic_t stop_requested, suspend_requested;

/* A byte in it for each signal the screen's wait is to wake for (term__wake_fd()). */
static int wake_pipe[2] = { -1, -1 };

/* curses' own SIGWINCH handler, run first by flametop's (a resize: KEY_RESIZE). */
static struct sigaction curses_winch;

static void wake(void)
{
	int saved = errno;

	if (wake_pipe[1] >= 0 && write(wake_pipe[1], "", 1) < 0) {
		/* full: a wakeup is waiting already */
	}
	errno = saved;
}

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
	wake();
}

static void on_winch(int sig)
{
	if (curses_winch.sa_handler != SIG_DFL && curses_winch.sa_handler != SIG_IGN)
		curses_winch.sa_handler(sig);
	wake();
}

/* Ctrl-Z: flametop's, not curses' (which would switch SIGTSTP off and on at each update). */
static void on_tstp(int sig)
{
	(void)sig;
	suspend_requested = 1;
	wake();
}

/* Signals that end flametop at once (a crash, abort()): the terminal is given back first. */
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
#define NFATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

/*
 * What gives the terminal back from a signal handler, which may only
 * write() and tcsetattr(): the terminal's modes before curses took it and
 * the sequences that leave curses' screen (attributes off, cursor shown,
 * keypad off, the alternate screen left), made while the screen is open.
 */
static struct {
	volatile sig_atomic_t armed;
	struct termios modes;
	char leave[512];
	size_t len;
	struct sigaction before[NFATAL]; /* the handlers the fatal signals had */
} rescue;

/* tputs()' output while the sequences are made: into rescue.leave. */
static int rescue_putc(int c)
{
	if (rescue.len < sizeof(rescue.leave))
		rescue.leave[rescue.len++] = (char)c;
	return c;
}

/* Appends the terminal's sequence @cap (a terminfo name), when it has one. */
static void rescue_add(const char *cap)
{
	const char *seq = tigetstr(cap);

	if (seq && seq != (const char *)-1)
		tputs(seq, 1, rescue_putc);
}

/* Gives the terminal back (async-signal-safe), then dies of @sig as it would have. */
static void on_fatal(int sig)
{
	if (rescue.armed) {
		rescue.armed = 0;
		if (write(STDOUT_FILENO, rescue.leave, rescue.len) < 0) {
			/* nothing more can be done */
		}
		tcsetattr(STDOUT_FILENO, TCSADRAIN, &rescue.modes);
	}
	for (size_t i = 0; i < NFATAL; i++) {
		if (fatal_signals[i] == sig)
			sigaction(sig, &rescue.before[i], NULL);
	}
	raise(sig); /* the handler it had (the default: die, maybe with a core) */
}

/* Arms on_fatal() for the fatal signals with the modes saved in @modes. */
static void rescue_arm(const struct termios *modes)
{
	struct sigaction sa = { .sa_handler = on_fatal, .sa_flags = SA_NODEFER };

	rescue.modes = *modes;
	rescue.len = 0;
	rescue_add("sgr0");
	rescue_add("cnorm");
	rescue_add("rmkx");
	rescue_add("rmcup");
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal_signals[i], &sa, &rescue.before[i]);
	rescue.armed = 1;
}

/* The terminal is curses' no more: the fatal signals get their handlers back. */
static void rescue_disarm(void)
{
	if (!rescue.armed)
		return;
	rescue.armed = 0;
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal_signals[i], &rescue.before[i], NULL);
}

bool term__stop_requested(void)
{
	return stop_requested;
}

/* Sets SIGTSTP's action: on_tstp(), or SIG_DFL to stop. */
static void set_tstp(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, NULL);
}

/*
 * Before curses starts: the wake pipe, and Ctrl-Z's handler, unless the
 * shell has SIGTSTP ignored (no job control): curses finds a handler
 * there and leaves SIGTSTP alone.
 */
static int catch_suspend(void)
{
	struct sigaction old;

	if (wake_pipe[0] < 0 && pipe2(wake_pipe, O_NONBLOCK | O_CLOEXEC))
		return -errno;
	if (sigaction(SIGTSTP, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
		set_tstp(on_tstp);
	return 0;
}

/* Once curses started (it installs its SIGWINCH handler then). */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop }; /* no SA_RESTART: poll() wakes up */
	struct sigaction winch = { .sa_handler = on_winch, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&winch.sa_mask);
	sigaction(SIGWINCH, &winch, &curses_winch);
}

/*
 * Ctrl-Z, asked for by on_tstp(): the terminal is given back, flametop
 * stops as the shell expects; once continued (fg) the whole screen is
 * drawn again (the shell wrote over it).
 */
static void suspend(void)
{
	suspend_requested = 0;
	endwin();
	set_tstp(SIG_DFL);
	raise(SIGTSTP); /* stopped here until continued */
	set_tstp(on_tstp);
	clearok(curscr, TRUE);
	refresh();
}

/* Closes the keyboard's stream when term__open() opened it. */
static void close_input(void)
{
	if (term.own_in)
		fclose(term.in);
	term.in = NULL;
}

void term__close(void)
{
	if (!term.scr)
		return;
	rescue_disarm();
	endwin();
	delscreen(term.scr);
	term.scr = NULL;
	free(term.shown);
	term.shown = NULL;
	close_input();
}

/* A screen needs a terminal that moves the cursor (TERM=dumb does not). */
static bool can_move_cursor(void)
{
	const char *cup = tigetstr("cup");

	return cup && cup != (const char *)-1;
}

/* The one refusal of a terminal flametop can't drive, saying @why. */
static int refuse(char *err, size_t err_size, const char *why)
{
	const char *name = getenv("TERM");

	snprintf(err, err_size,
		 "can't drive this terminal (TERM=%s): %s; set TERM to the terminal's type "
		 "(xterm-256color, screen, linux), or use --folded for text output",
		 name ? name : "", why);
	return -ENOTTY;
}

int term__check(char *err, size_t err_size)
{
	TERMINAL *saved = cur_term, *t;
	int status = 0;
	bool ok;

	if (setupterm(NULL, STDOUT_FILENO, &status) != OK)
		return refuse(err, err_size, "an unknown terminal type");
	ok = can_move_cursor();
	t = set_curterm(saved);
	del_curterm(t);
	return ok ? 0 : refuse(err, err_size, "it can't move the cursor");
}

/* Gives back a terminal that newterm() took but flametop can't drive: its modes as they were. */
static void give_back(const struct termios *modes, bool have_modes)
{
	if (term.scr)
		delscreen(term.scr);
	term.scr = NULL;
	close_input();
	if (have_modes)
		tcsetattr(STDOUT_FILENO, TCSADRAIN, modes);
}

int term__open(bool color, char *err, size_t err_size)
{
	struct termios modes;
	bool have_modes;
	const char *why;
	int ret = term__check(err, err_size);

	if (ret) /* before curses touches the terminal */
		return ret;
	have_modes = tcgetattr(STDOUT_FILENO, &modes) == 0; /* before curses changes them */
	term.in = stdin;
	term.own_in = !isatty(STDIN_FILENO);
	if (term.own_in) {
		term.in = fopen("/dev/tty", "re");
		if (!term.in) {
			snprintf(err, err_size, "no terminal to read keys from: /dev/tty: %s",
				 strerror(errno));
			return -ENOTTY;
		}
	}
	setlocale(LC_CTYPE, "");
	term.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	ret = catch_suspend();
	if (ret) {
		snprintf(err, err_size, "can't make a pipe: %s", strerror(-ret));
		close_input();
		return ret;
	}
	term.scr = newterm(NULL, stdout, term.in);
	why = !term.scr		   ? "an unknown terminal type"
	      : !can_move_cursor() ? "it can't move the cursor"
				   : NULL;
	if (why) {
		give_back(&modes, have_modes);
		return refuse(err, err_size, why);
	}
	atexit(term__close);
	catch_signals();
	if (have_modes)
		rescue_arm(&modes);
	set_escdelay(ESC_DELAY_MS);
	cbreak();
	noecho();
	nonl();
	curs_set(0);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	typeahead(-1); /* else each refresh polls the keyboard */
	/*
	 * Until its screen has once come back from endwin(), ncurses 6.4 flushes
	 * its output at every cursor move: a write() per changed line of every
	 * update. One round trip puts it in its running state; an update is then
	 * one or two writes.
	 */
	endwin();
	refresh();
	scrollok(stdscr, FALSE);
	term.color = color && has_colors() && start_color() == OK;
	term.last_pair = -1;
	if (term.color) {
		use_default_colors();
		term.ncolors = COLORS >= 256 ? 256 : 8;
	}
	return 0;
}

int term__input_fd(void)
{
	return term.in ? fileno(term.in) : -1;
}

int term__wake_fd(void)
{
	return wake_pipe[0];
}

/* Empties the wake pipe, and stops for a Ctrl-Z; true when it stopped. */
static bool take_wakeups(void)
{
	char buf[64];

	while (wake_pipe[0] >= 0 && read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
	if (!suspend_requested)
		return false;
	suspend();
	return true;
}

void term__size(int *width, int *height)
{
	getmaxyx(stdscr, *height, *width);
}

/* Names curses key @c for key__name() (shifted keys as the help writes them); returns TK_OTHER. */
static int other_key(int c)
{
	static const struct {
		int c;
		const char *name;
	} shifted[] = {
		{ KEY_SR, "S-Up" },	{ KEY_SF, "S-Down" },	{ KEY_SLEFT, "S-Left" },
		{ KEY_SRIGHT, "S-Right" }, { KEY_SHOME, "S-Home" }, { KEY_SEND, "S-End" },
	};
	const char *name = keyname(c);

	for (size_t i = 0; i < sizeof(shifted) / sizeof(shifted[0]); i++) {
		if (shifted[i].c == c)
			name = shifted[i].name;
	}
	if (name && strncmp(name, "KEY_", 4) == 0)
		name += 4;
	key__name_other(name);
	return TK_OTHER;
}

int term__read_key(void)
{
	if (take_wakeups())
		return TERM_RESIZED; /* drawn again whole, at whatever size it has now */
	for (;;) {
		int c = getch();

		switch (c) {
		case ERR:
			return TERM_NO_KEY;
		case KEY_RESIZE:
			return TERM_RESIZED;
		case KEY_UP:
			return TK_UP;
		case KEY_DOWN:
			return TK_DOWN;
		case KEY_LEFT:
			return TK_LEFT;
		case KEY_RIGHT:
			return TK_RIGHT;
		case KEY_PPAGE:
			return TK_PGUP;
		case KEY_NPAGE:
			return TK_PGDN;
		case KEY_HOME:
			return TK_HOME;
		case KEY_END:
			return TK_END;
		case KEY_BTAB:
			return TK_BACKTAB;
		case KEY_BACKSPACE:
		case 127:
		case 8:
			return TK_BACKSPACE;
		case KEY_ENTER:
		case '\r':
		case '\n':
			return TK_ENTER;
		case KEY_DC:
			return TK_DELETE;
		case KEY_IC:
			return TK_INSERT;
		default:
			if (c >= 0 && c < 0x80)
				return c;
			if (c >= KEY_F(1) && c <= KEY_F(12))
				return TK_F(c - KEY_F0);
			if (c >= KEY_MIN)
				return other_key(c);
			/* A byte of a non-ASCII character: prompts take ASCII only. */
		}
	}
}

/* Colours as (foreground, background); -1 is the terminal's default. */
struct colors {
	short fg, bg;
	attr_t attr;
};

/* Heat gradients: cool to hot. */
static const short heat_256[HEAT_LEVELS] = { 34, 142, 178, 208, 196 };
static const short heat_8[HEAT_LEVELS] = { COLOR_GREEN, COLOR_GREEN, COLOR_YELLOW, COLOR_YELLOW,
					   COLOR_RED };
/* Icicle boxes: user frames warm (flame graph), kernel frames blue, Python green, others grey. */
static const short user_box_256[HEAT_LEVELS] = { 229, 222, 215, 209, 203 };
static const short kernel_box_256[HEAT_LEVELS] = { 153, 117, 111, 75, 69 };
static const short python_box_256[HEAT_LEVELS] = { 194, 157, 120, 114, 77 };
static const short other_box_256[HEAT_LEVELS] = { 252, 250, 248, 246, 244 };

static struct colors box_colors(const struct cell_style *st)
{
	bool hot = st->heat >= HEAT_LEVELS - 2;

	if (term.ncolors == 256) {
		const short *bg = st->role == ROLE_USER	    ? user_box_256
				  : st->role == ROLE_KERNEL ? kernel_box_256
				  : st->role == ROLE_PYTHON ? python_box_256
							    : other_box_256;

		return (struct colors){ COLOR_BLACK, bg[st->heat], 0 };
	}
	switch (st->role) {
	case ROLE_USER:
		return (struct colors){ COLOR_BLACK, hot ? COLOR_RED : COLOR_YELLOW, 0 };
	case ROLE_KERNEL:
		return (struct colors){ hot ? COLOR_WHITE : COLOR_BLACK, hot ? COLOR_BLUE : COLOR_CYAN,
					0 };
	case ROLE_PYTHON:
		return (struct colors){ COLOR_BLACK, COLOR_GREEN, hot ? A_BOLD : 0 };
	default:
		return (struct colors){ COLOR_BLACK, COLOR_WHITE, 0 };
	}
}

static struct colors role_colors(const struct cell_style *st)
{
	bool c256 = term.ncolors == 256;

	if (st->attr & ATTR_BLOCK)
		return box_colors(st);
	switch (st->role) {
	case ROLE_HEADER:
		return (struct colors){ COLOR_WHITE, COLOR_BLUE, A_BOLD };
	case ROLE_TITLE:
		return (struct colors){ COLOR_BLACK, COLOR_GREEN, 0 };
	case ROLE_KEY:
		return (struct colors){ COLOR_BLACK, COLOR_CYAN, 0 };
	case ROLE_ERROR:
		return (struct colors){ COLOR_RED, -1, A_BOLD };
	case ROLE_GUIDE:
		return (struct colors){ c256 ? 244 : -1, -1, 0 };
	case ROLE_PERCENT:
		return (struct colors){ c256 ? heat_256[st->heat] : heat_8[st->heat], -1,
					st->heat >= HEAT_LEVELS - 2 ? A_BOLD : 0 };
	case ROLE_KERNEL:
		return (struct colors){ c256 ? 81 : COLOR_CYAN, -1, 0 };
	case ROLE_PYTHON:
		return (struct colors){ c256 ? 114 : COLOR_GREEN, -1, 0 };
	case ROLE_UNKNOWN:
		return (struct colors){ c256 ? 245 : COLOR_WHITE, -1, c256 ? 0 : A_DIM };
	default:
		return (struct colors){ -1, -1, 0 };
	}
}

/* The colour pair for @c, allocated on first use; 0 (the default) when out of pairs. */
static short pair_of(const struct colors *c)
{
	if (c->fg == -1 && c->bg == -1)
		return 0;
	for (int i = 0; i < term.npairs; i++) {
		if (term.pair_fg[i] == c->fg && term.pair_bg[i] == c->bg)
			return (short)(i + 1);
	}
	if (term.npairs == MAX_PAIRS || term.npairs + 1 >= COLOR_PAIRS ||
	    init_pair((short)(term.npairs + 1), c->fg, c->bg) != OK)
		return 0;
	term.pair_fg[term.npairs] = c->fg;
	term.pair_bg[term.npairs] = c->bg;
	return (short)++term.npairs;
}

/* Attributes without colour: enough to tell the parts apart on any terminal. */
static attr_t plain_attr(const struct cell_style *st)
{
	switch (st->role) {
	case ROLE_HEADER:
	case ROLE_KEY:
		return A_REVERSE;
	case ROLE_TITLE:
		return A_BOLD | A_UNDERLINE;
	case ROLE_ERROR:
		return A_BOLD;
	case ROLE_PERCENT:
		return st->heat >= HEAT_LEVELS - 2 ? A_BOLD : 0;
	default:
		return 0;
	}
}

/*
 * The selection: one bar across the row, whatever the colours under it
 * (black on cyan; an icicle box white on magenta; black on white where the
 * pane has no focus).
 */
static struct colors selection_colors(const struct cell_style *st)
{
	if (st->attr & ATTR_DIM)
		return (struct colors){ COLOR_BLACK, COLOR_WHITE, 0 };
	if (st->attr & ATTR_BLOCK)
		return (struct colors){ COLOR_WHITE, COLOR_MAGENTA, A_BOLD };
	return (struct colors){ COLOR_BLACK, COLOR_CYAN, 0 };
}

static attr_t attr_of(const struct cell_style *st, short *pair)
{
	bool selected = st->attr & ATTR_SELECTED;
	attr_t a;

	*pair = 0;
	if (term.color) {
		struct colors c = selected ? selection_colors(st) : role_colors(st);

		*pair = pair_of(&c);
		a = c.attr;
	} else {
		a = plain_attr(st) | (selected ? A_REVERSE : 0);
	}
	if (st->attr & ATTR_BOLD)
		a |= A_BOLD;
	if (st->attr & ATTR_DIM && !selected)
		a |= A_DIM;
	if (st->attr & ATTR_UNDERLINE)
		a |= A_UNDERLINE;
	return a;
}

/*
 * Curses' character for cell @c (a wide character's right half: a space).
 * Neighbouring cells mostly share a style: the last one's answer is kept.
 */
static void cell_cchar(cchar_t *cc, const struct screen_cell *c)
{
	wchar_t wc[2] = { (wchar_t)c->ch, L'\0' };

	if (term.last_pair < 0 || c->style.role != term.last.role ||
	    c->style.heat != term.last.heat || c->style.attr != term.last.attr) {
		term.last_attr = attr_of(&c->style, &term.last_pair);
		term.last = c->style;
	}
	if (c->ch == SCREEN_WIDE_TAIL)
		wc[0] = L' ';
	else if (c->ch >= 0x80 && !term.utf8)
		wc[0] = L'?';
	setcchar(cc, wc, term.last_attr, term.last_pair, NULL);
}

static bool cell_equal(const struct screen_cell *a, const struct screen_cell *b)
{
	return a->ch == b->ch && a->style.role == b->style.role && a->style.heat == b->style.heat &&
	       a->style.attr == b->style.attr;
}

/*
 * Makes the copy of what stdscr holds fit @s; returns false when stdscr's
 * content is not known (first draw, a new size, no memory): all is drawn.
 */
static bool shown_fits(const struct screen *s)
{
	size_t n = (size_t)s->w * (size_t)s->h;

	if (term.shown && term.shown_w == s->w && term.shown_h == s->h)
		return true;
	free(term.shown);
	term.shown = n ? malloc(n * sizeof(*term.shown)) : NULL;
	term.shown_w = term.shown ? s->w : 0;
	term.shown_h = term.shown ? s->h : 0;
	return false;
}

/* Cells handed to curses in one call, at most. */
#define RUN_MAX 256

/*
 * Hands curses cells [@from, @to) of @line, row @row, RUN_MAX at a time
 * (a call per cell costs more than the cell). A wide character's right half
 * is curses' to fill where the terminal prints it (UTF-8); else it is a
 * space after the '?' its left half became.
 */
static void put_run(int row, const struct screen_cell *line, int from, int to)
{
	cchar_t run[RUN_MAX];
	int n = 0, at;

	if (from > 0 && line[from].ch == SCREEN_WIDE_TAIL)
		from--; /* its left half says what it is */
	at = from;
	for (int col = from; col < to; col++) {
		if (line[col].ch == SCREEN_WIDE_TAIL && term.utf8)
			continue;
		if (n == RUN_MAX) {
			mvadd_wchnstr(row, at, run, n);
			at = col;
			n = 0;
		}
		cell_cchar(&run[n++], &line[col]);
	}
	if (n)
		mvadd_wchnstr(row, at, run, n);
}

/* Unchanged cells between two changed ones that go to curses with them. */
#define RUN_GAP 8

void term__draw(const struct screen *s)
{
	bool known = shown_fits(s);

	for (int row = 0; row < s->h; row++) {
		const struct screen_cell *line = s->cells + (size_t)row * (size_t)s->w;
		struct screen_cell *was = term.shown ? term.shown + (size_t)row * (size_t)s->w : NULL;
		int from = -1, last = -1;

		/* Most rows are as they were: alike byte for byte, padding included. */
		if (known && memcmp(line, was, (size_t)s->w * sizeof(*line)) == 0)
			continue;
		for (int col = 0; col < s->w; col++) {
			if (known && cell_equal(&was[col], &line[col]))
				continue;
			if (was)
				was[col] = line[col];
			if (from >= 0 && col - last > RUN_GAP) {
				put_run(row, line, from, last + 1);
				from = -1;
			}
			if (from < 0)
				from = col;
			last = col;
		}
		if (from >= 0)
			put_run(row, line, from, last + 1);
	}
	refresh();
}
