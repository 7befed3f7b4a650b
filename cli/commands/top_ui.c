// SPDX-License-Identifier: GPL-2.0
/*
 * The curses view of `aioscope top`: draws a struct top_frame and turns keys
 * into reactions. Knows nothing about the tracer or the aggregation core.
 *
 * No flicker: every frame is erase() + draw + refresh(); curses sends only the
 * cells that changed. Never clear() per frame.
 */
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "core/format.h"
#include "core/table.h"
#include "top_ui.h"

volatile sig_atomic_t top_exiting;

static const char *const group_names[AIO_GROUP_NR] = {
	[AIO_GROUP_PID] = "process",
	[AIO_GROUP_DEV] = "device",
	[AIO_GROUP_CTX] = "context",
	[AIO_GROUP_FILE] = "file",
};

static int top_layout_width(const struct top_layout *l);

const char *top_group_name(enum aio_group g)
{
	return g < AIO_GROUP_NR ? group_names[g] : "?";
}

const char *top_col_name(enum top_col c)
{
	return aio_col_name((enum aio_col)(c + 1));
}

static volatile sig_atomic_t ui_active;
static bool ui_utf8;

/*
 * What a fatal signal's handler writes to undo initscr(): leave the alternate
 * screen, show the cursor, plain attributes, keypad off (terminfo strings read
 * at init), and the terminal modes from before initscr() (tcsetattr). Both are
 * async-signal-safe: endwin() is not.
 */
static char ui_restore_seq[256];
static size_t ui_restore_len;
static struct termios ui_saved_tio;
static bool ui_have_tio;

enum { PAIR_HEAD = 1, PAIR_TITLE, PAIR_STUCK, PAIR_KEY };

struct colspec {
	const char *name;
	int width;
	bool left;		/* left-aligned text column */
	int key;		/* sort shortcut */
};

static const struct colspec cols[TOP_NR_COLS] = {
	[COL_PID]      = { "PID",       7, false, 'P' },
	[COL_COMM]     = { "COMM",     15, true,  'C' },
	[COL_DEV]      = { "DEV",      16, true,  'D' },
	[COL_RS]       = { "R/s",       8, false, 'R' },
	[COL_WS]       = { "W/s",       8, false, 'W' },
	[COL_MBS]      = { "MB/s",      7, false, 'M' },
	[COL_INFLIGHT] = { "INFLIGHT",  8, false, 'I' },
	[COL_QDMAX]    = { "QD-MAX",    6, false, 'Q' },
	[COL_AVG]      = { "AVG",       8, false, 'A' },
	[COL_P99]      = { "P99",       8, false, 'L' },
	[COL_MAX]      = { "MAX",       8, false, 'X' },
	[COL_ERR]      = { "ERR",       6, false, 'E' },
	[COL_CNCL]     = { "CNCL",      6, false, 'N' },
	[COL_STUCK]    = { "STUCK",     5, false, 'S' },
	[COL_STAGE]    = { "STAGE",    12, true,  'T' },
};

static int top_col_for_key(int ch)
{
	for (int c = 0; c < TOP_NR_COLS; c++)
		if (cols[c].key == ch)
			return c;
	return -1;
}

/* ---------- small formatters (fixed width, never wider than asked) ---------- */

/* A latency: "-" when there is no data (0 is never a measured latency here). */
void top_fmt_ns(char *buf, size_t sz, uint64_t ns)
{
	if (ns == 0)
		snprintf(buf, sz, "-");
	else
		aio_fmt_ns(buf, sz, ns);
}

void top_fmt_rate(char *buf, size_t sz, double v)
{
	aio_fmt_count(buf, sz, v);
}

void top_fmt_count(char *buf, size_t sz, uint64_t v)
{
	aio_fmt_count(buf, sz, (double)v);
}

static void top_fmt_age(char *buf, size_t sz, uint64_t ns)
{
	if (ns >= 100ULL * 1000000000ULL)
		snprintf(buf, sz, "%.0fs", ns / 1e9);
	else
		snprintf(buf, sz, "%.3fs", ns / 1e9);
}

void top_fmt_duration(char *buf, size_t sz, double s)
{
	unsigned long t = (unsigned long)s;

	snprintf(buf, sz, "%02lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
}

/* One table cell for row @r, column @c. */
static void top_fmt_cell(char *buf, size_t sz, const struct top_row *r, enum top_col c)
{
	switch (c) {
	case COL_PID:
		if (r->pid >= 0)
			snprintf(buf, sz, "%d", r->pid);
		else
			snprintf(buf, sz, "-");
		break;
	case COL_COMM:	/* names chosen by other users: escaped for the terminal */
		aio_fmt_term(buf, sz, r->comm[0] ? r->comm : "-");
		break;
	case COL_DEV:
		aio_fmt_term(buf, sz, r->dev[0] ? r->dev : "-");
		break;
	case COL_RS:
		top_fmt_rate(buf, sz, r->r_s);
		break;
	case COL_WS:
		top_fmt_rate(buf, sz, r->w_s);
		break;
	case COL_MBS:
		if (r->mb_s < 0.005)
			snprintf(buf, sz, "0");
		else
			snprintf(buf, sz, "%.2f", r->mb_s);
		break;
	case COL_INFLIGHT:
		top_fmt_count(buf, sz, r->inflight);
		break;
	case COL_QDMAX:
		top_fmt_count(buf, sz, r->max_inflight);
		break;
	case COL_AVG:
		top_fmt_ns(buf, sz, r->avg_ns);
		break;
	case COL_P99:
		top_fmt_ns(buf, sz, r->p99_ns);
		break;
	case COL_MAX:
		top_fmt_ns(buf, sz, r->max_ns);
		break;
	case COL_ERR:
		top_fmt_count(buf, sz, r->errors);
		break;
	case COL_CNCL:
		top_fmt_count(buf, sz, r->cancelled);
		break;
	case COL_STUCK:
		top_fmt_count(buf, sz, r->stuck);
		break;
	case COL_STAGE:
		if (r->stage >= 0)
			snprintf(buf, sz, "%s %.0f%%", aio_stage_name((enum aio_stage)r->stage),
				 100 * r->stage_share);
		else
			snprintf(buf, sz, "-");
		break;
	default:
		buf[0] = '\0';
	}
}

void top_layout_full(struct top_layout *l, bool stages)
{
	for (int c = 0; c < TOP_NR_COLS; c++)
		l->width[c] = cols[c].width;
	if (!stages)
		l->width[COL_STAGE] = 0;
}

/*
 * Column widths for @avail screen columns: the full table is 127 wide; on a
 * narrower terminal text columns shrink first, then the least needed columns
 * are hidden (width 0), so the rightmost ones (ERR CNCL STUCK) stay visible.
 * STAGE is there with --stages only, and goes first.
 */
static void top_layout_fit(struct top_layout *l, int avail, bool stages)
{
	static const struct { enum top_col c; int w; } steps[] = {
		{ COL_DEV, 10 }, { COL_COMM, 10 }, { COL_RS, 6 }, { COL_WS, 6 },
		{ COL_ERR, 5 }, { COL_CNCL, 5 }, { COL_AVG, 7 }, { COL_P99, 7 },
		{ COL_MAX, 7 }, { COL_DEV, 7 }, { COL_MAX, 0 }, { COL_AVG, 0 },
		{ COL_QDMAX, 0 }, { COL_CNCL, 0 }, { COL_ERR, 0 },
	};
	size_t i = 0;

	top_layout_full(l, stages);
	while (top_layout_width(l) > avail && i < sizeof(steps) / sizeof(steps[0])) {
		l->width[steps[i].c] = steps[i].w;
		i++;
	}
}

static int top_layout_width(const struct top_layout *l)
{
	int w = 0;

	for (int c = 0; c < TOP_NR_COLS; c++)
		if (!l || l->width[c])
			w += (l ? l->width[c] : cols[c].width) + 1;
	return w - 1;
}

static int lw(const struct top_layout *l, int c)
{
	return l ? l->width[c] : cols[c].width;
}

/* The column header line (the sort column is named in the title line). */
void top_fmt_header(char *buf, size_t sz, const struct top_layout *l)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int c = 0; c < TOP_NR_COLS && off < sz; c++) {
		int w = lw(l, c);

		if (!w)
			continue;
		off += snprintf(buf + off, sz - off, cols[c].left ? "%s%-*.*s" : "%s%*.*s",
				off ? " " : "", w, w, cols[c].name);
	}
}

/* Screen column where column @col starts, and its width (0: hidden). */
static int col_x(const struct top_layout *l, enum top_col col, int *width)
{
	int x = 0;

	for (int c = 0; c < (int)col; c++)
		if (lw(l, c))
			x += lw(l, c) + 1;
	*width = lw(l, col);
	return x;
}

void top_fmt_row(char *buf, size_t sz, const struct top_row *r, const struct top_layout *l)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int c = 0; c < TOP_NR_COLS && off < sz; c++) {
		char cell[STUCK_PATH_LEN];
		int w = lw(l, c);

		if (!w)
			continue;
		top_fmt_cell(cell, sizeof(cell), r, c);
		off += snprintf(buf + off, sz - off, cols[c].left ? "%s%-*.*s" : "%s%*.*s",
				off ? " " : "", w, w, cell);
	}
}

static void top_fmt_spark(char *buf, size_t sz, const uint64_t *v, size_t n, bool utf8)
{
	__u64 vals[TOP_SPARK_LEN];

	if (n > TOP_SPARK_LEN)
		n = TOP_SPARK_LEN;
	for (size_t i = 0; i < n; i++)
		vals[i] = v[i];
	buf[0] = '\0';
	if (n)
		aio_sparkline(buf, sz, vals, n, 0, !utf8);
}

/* ------------------------------ the curses view ------------------------------ */

static void restore_add(const char *cap)
{
	const char *s = tigetstr(cap);
	size_t n;

	if (!s || s == (const char *)-1)
		return;
	n = strlen(s);
	if (ui_restore_len + n < sizeof(ui_restore_seq)) {
		memcpy(ui_restore_seq + ui_restore_len, s, n);
		ui_restore_len += n;
	}
}

void top_ui_restore_now(void)
{
	ssize_t rc;

	if (!ui_active)
		return;
	ui_active = 0;
	rc = write(STDOUT_FILENO, ui_restore_seq, ui_restore_len);
	(void)rc;
	if (ui_have_tio)
		tcsetattr(STDOUT_FILENO, TCSADRAIN, &ui_saved_tio);
}

/* A fatal signal: the terminal as it was, then the signal's own default action. */
static void ui_fatal(int sig)
{
	int saved = errno;

	top_ui_restore_now();
	signal(sig, SIG_DFL);
	raise(sig);	/* pending until this handler returns, then fatal */
	errno = saved;
}

static void ui_catch_fatal(void)
{
	static const int sigs[] = {
		SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS,
		SIGXCPU, SIGXFSZ, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGVTALRM,
		SIGPROF, SIGSTKFLT, SIGPWR, SIGIO,
	};
	static char altstack[65536];	/* SIGSEGV from a stack overflow too */
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = { 0 };

	sigaltstack(&ss, NULL);
	sa.sa_handler = ui_fatal;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		/* a signal the caller ignores (nohup, SIGPIPE) stays ignored */
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

static void ui_fini(void)
{
	if (!ui_active)
		return;
	ui_active = 0;
	curs_set(1);
	endwin();
}

static int ui_init(struct top_view_state *st)
{
	const char *cs;

	(void)st;
	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	ui_utf8 = cs && !strcmp(cs, "UTF-8");
	ui_have_tio = !tcgetattr(STDOUT_FILENO, &ui_saved_tio);
	if (!initscr())
		return -1;
	ui_restore_len = 0;
	restore_add("rmcup");
	restore_add("cnorm");
	restore_add("sgr0");
	restore_add("rmkx");
	ui_active = 1;
	atexit(ui_fini);
	ui_catch_fatal();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(PAIR_HEAD, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_TITLE, COLOR_CYAN, -1);
		init_pair(PAIR_STUCK, COLOR_RED, -1);
		init_pair(PAIR_KEY, COLOR_YELLOW, -1);
	}
	/* top.c's handlers only set top_exiting; getch() returns on EINTR. */
	return 0;
}

/* Bytes of @s that fill at most @cols screen columns (UTF-8: one per character). */
static int bytes_for_cols(const char *s, int cols)
{
	int n = 0, chars = 0;

	for (; s[n]; n++) {
		if (((unsigned char)s[n] & 0xc0) == 0x80)
			continue;	/* continuation byte */
		if (chars == cols)
			break;
		chars++;
	}
	return n;
}

static void put(int y, int x, const char *s)
{
	if (y < 0 || y >= LINES || x >= COLS)
		return;
	mvaddnstr(y, x, s, bytes_for_cols(s, COLS - x));
}

/* Clip @s to the screen width as a full line, padded (for reverse video). */
static void put_line(int y, const char *s, attr_t a)
{
	if (y < 0 || y >= LINES)
		return;
	attron(a);
	mvaddnstr(y, 0, s, bytes_for_cols(s, COLS));
	for (int x = getcurx(stdscr); x < COLS && getcury(stdscr) == y; x++)
		addch(' ');
	attroff(a);
}

static const char *const help_text[] = {
	"aioscope top: live view of asynchronous I/O (libaio, io_uring, aiodev)",
	"",
	"  q           quit (also Ctrl-C)",
	"  h ?         this help (any key closes it)",
	"  space       pause / resume data updates (keys keep working)",
	"  + -         longer / shorter refresh interval",
	"  g           group rows by process -> device -> aio context -> file",
	"  < >         sort by the column left / right of the current one",
	"  r           reverse the sort order (descending by default)",
	"  P C D       sort by PID, COMM, DEV",
	"  R W M       sort by R/s, W/s, MB/s",
	"  I Q         sort by INFLIGHT, QD-MAX",
	"  A L X       sort by AVG, P99, MAX latency",
	"  E N S       sort by ERR, CNCL, STUCK",
	"  T           sort by STAGE (the dominant stage's share; top --stages)",
	"  l           latency columns: the whole latency, then each stage's in turn",
	"              (top --stages; from the next request on)",
	"              (pressing the current sort key again reverses the order)",
	"  / text      filter rows: comm containing text, or exact pid; Enter keeps,",
	"              Esc clears",
	"  \\           clear the filter",
	"  Up Down     move the selection (kept on the same row across refreshes)",
	"  PgUp PgDn Home End   scroll",
	"  t           show / hide the stuck-request panel",
	"",
	"Columns: rates and latencies cover the last interval; INFLIGHT is now,",
	"QD-MAX the interval's maximum; STUCK counts requests pending longer than",
	"--stuck-ms. STAGE (--stages): the stage where the row's requests spent most",
	"of their time in the interval, and its share. Header: totals for the",
	"interval and a sparkline of the total queue depth over the last minute.",
	NULL,
};

static void draw_help(void)
{
	for (int i = 0; help_text[i]; i++)
		put(i + 1, 2, help_text[i]);
}

/* Rows visible in the table area, for paging. */
static int table_rows(const struct top_view_state *st, const struct top_frame *fr)
{
	int top = 5, bottom = LINES - 1;

	if (st->show_stuck && fr->stuck.n) {
		int panel = (int)fr->stuck.n + 2;

		if (panel > LINES / 3)
			panel = LINES / 3;
		bottom -= panel;
	}
	return bottom - top > 0 ? bottom - top : 0;
}

static long selected_index(struct top_view_state *st, const struct top_frame *fr)
{
	if (!fr->nrows)
		return -1;
	if (st->have_selection)
		for (size_t i = 0; i < fr->nrows; i++)
			if (fr->rows[i].key == st->selected_key)
				return (long)i;
	return -1;
}

#define UI_LINE 1024

/* Lines 0-3: the clock and the view, rates, latency and counts, the QD sparkline. */
static void draw_header(const struct top_view_state *st, const struct top_frame *fr)
{
	char line[UI_LINE], a[32], b[32], c[32], d[32], e[32], spark[TOP_SPARK_LEN * 4 + 8];
	const struct top_totals *t = &fr->tot;
	time_t now = (time_t)(fr->ts_ns / 1000000000ULL);
	uint64_t mx = 0;
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(a, sizeof(a), "%H:%M:%S", &tm);
	top_fmt_duration(b, sizeof(b), fr->elapsed_s);
	snprintf(line, sizeof(line),
		 "aiotop %s  tracing %s  mode %s  interval %.1fs  by %s  sort %s %s%s",
		 a, b, fr->mode ? fr->mode : "-", st->interval_s,
		 top_group_name(st->group), cols[st->sort_col].name,
		 st->ascending ? "asc" : "desc", st->paused ? "  [PAUSED]" : "");
	attron(A_BOLD);
	put(0, 0, line);
	attroff(A_BOLD);

	top_fmt_rate(a, sizeof(a), t->r_s);
	top_fmt_rate(b, sizeof(b), t->w_s);
	snprintf(line, sizeof(line),
		 "IOPS r %s w %s  MB/s %.2f  inflight %" PRIu64 " (max %" PRIu64 ")",
		 a, b, t->mb_s, t->inflight, t->max_inflight);
	put(1, 0, line);

	top_fmt_ns(a, sizeof(a), t->avg_ns);
	top_fmt_ns(b, sizeof(b), t->p50_ns);
	top_fmt_ns(c, sizeof(c), t->p99_ns);
	top_fmt_ns(d, sizeof(d), t->max_ns);
	snprintf(line, sizeof(line),
		 "lat%s%s%s avg %s p50 %s p99 %s max %s  err %" PRIu64 "  cncl %" PRIu64
		 "  lost %" PRIu64 "  ", st->lat_stage >= 0 ? "(" : "",
		 st->lat_stage >= 0 ? aio_stage_name((enum aio_stage)st->lat_stage) : "",
		 st->lat_stage >= 0 ? ")" : "", a, b, c, d, t->errors, t->cancelled, t->lost);
	put(2, 0, line);
	snprintf(e, sizeof(e), "stuck %" PRIu64, t->stuck);
	if (t->stuck && has_colors())
		attron(COLOR_PAIR(PAIR_STUCK) | A_BOLD);
	addnstr(e, COLS > getcurx(stdscr) ? COLS - getcurx(stdscr) : 0);
	attroff(COLOR_PAIR(PAIR_STUCK) | A_BOLD);

	top_fmt_spark(spark, sizeof(spark), fr->spark, fr->nspark, ui_utf8);
	for (size_t i = 0; i < fr->nspark; i++)
		if (fr->spark[i] > mx)
			mx = fr->spark[i];
	snprintf(line, sizeof(line), "QD 60s [%s] max %" PRIu64, spark, mx);
	put(3, 0, line);
}

/* Line 4: the column titles, the sort column's standing out. */
static void draw_titles(const struct top_view_state *st, struct top_layout *layout,
			bool stages)
{
	char line[UI_LINE], title[32];
	int w, x;

	top_layout_fit(layout, COLS, stages);
	top_fmt_header(line, sizeof(line), layout);
	put_line(4, line, has_colors() ? COLOR_PAIR(PAIR_HEAD) : A_REVERSE);
	x = col_x(layout, st->sort_col, &w);
	snprintf(title, sizeof(title), cols[st->sort_col].left ? "%-*.*s" : "%*.*s", w, w,
		 cols[st->sort_col].name);
	attron(A_BOLD | A_UNDERLINE | (has_colors() ? COLOR_PAIR(PAIR_HEAD) : A_REVERSE));
	if (w)
		put(4, x, title);
	attroff(A_BOLD | A_UNDERLINE | (has_colors() ? COLOR_PAIR(PAIR_HEAD) : A_REVERSE));
}

/* The rows from line 5, @nvis of them at most, the selected one kept in view. */
static void draw_rows(struct top_view_state *st, const struct top_frame *fr,
		      const struct top_layout *layout, int nvis)
{
	char line[UI_LINE];
	long sel = selected_index(st, fr);
	int y = 5;

	if (sel < 0 && fr->nrows) {
		/* selection lost (filtered or gone): stay at the same place */
		size_t at = st->scroll < fr->nrows ? st->scroll : fr->nrows - 1;

		sel = st->have_selection ? (long)at : 0;
		st->selected_key = fr->rows[sel].key;
		st->have_selection = true;
	}
	if (sel >= 0) {
		if ((size_t)sel < st->scroll)
			st->scroll = sel;
		if (nvis > 0 && (size_t)sel >= st->scroll + nvis)
			st->scroll = sel - nvis + 1;
	}
	if (st->scroll >= fr->nrows)
		st->scroll = 0;
	for (size_t i = st->scroll; i < fr->nrows && y < 5 + nvis; i++, y++) {
		top_fmt_row(line, sizeof(line), &fr->rows[i], layout);
		if ((long)i == sel)
			put_line(y, line, A_REVERSE);
		else
			put(y, 0, line);
	}
	if (!fr->nrows)
		put(5, 1, fr->nrows_all ? "(no row matches the filter)"
					: "(no asynchronous I/O in this interval)");
}

/* The stuck panel from line @py, as many requests as fit above the footer. */
static void draw_stuck(const struct top_frame *fr, int py)
{
	char line[UI_LINE], a[32];
	int room = LINES - 1 - py - 1;

	snprintf(line, sizeof(line),
		 "STUCK: %zu pending longer than the threshold, oldest first", fr->stuck.n);
	put_line(py, line, has_colors() ? COLOR_PAIR(PAIR_STUCK) | A_BOLD : A_BOLD);
	py++;
	snprintf(line, sizeof(line), "%9s %7s %-15s %-5s %-16s %12s %8s %s",
		 "AGE", "PID", "COMM", "OP", "DEVICE/FILE", "OFFSET", "BYTES", "REQUEST");
	put(py++, 0, line);
	room--;
	for (size_t i = 0; i < fr->stuck.n && room > 0; i++, room--) {
		const struct stuck_req *r = &fr->stuck.v[i];
		char comm[sizeof(r->req.comm) * 4], path[STUCK_PATH_LEN * 4];

		top_fmt_age(a, sizeof(a), r->age_ns);
		aio_fmt_term(comm, sizeof(comm), r->req.comm);
		aio_fmt_term(path, sizeof(path), r->path);
		snprintf(line, sizeof(line),
			 "%9s %7d %-15s %-5s %-16.16s %12" PRIu64 " %8" PRIu64 " 0x%" PRIx64,
			 a, r->req.pid, comm, stuck_op_name(r), path, (uint64_t)r->req.offset,
			 r->req.bytes, r->req.id);
		put(py++, 0, line);
	}
}

/* The last line: the filter being edited, the filter in force, or the keys. */
static void draw_footer(const struct top_view_state *st, const struct top_frame *fr)
{
	char line[UI_LINE];

	if (st->filter_editing)
		snprintf(line, sizeof(line), "Filter (comm or pid): %s_", st->filter);
	else if (st->filter[0])
		snprintf(line, sizeof(line),
			 "filter: %s (%zu of %zu)   h help  q quit  / filter  \\ clear  g group  space pause",
			 st->filter, fr->nrows, fr->nrows_all);
	else
		snprintf(line, sizeof(line),
			 "h help  q quit  / filter  g group  < > sort  r reverse  space pause  +/- interval  t stuck");
	put_line(LINES - 1, line, A_REVERSE);
}

static void ui_draw(struct top_view_state *st, const struct top_frame *fr)
{
	struct top_layout layout;
	int nvis;

	erase();
	if (st->show_help) {
		draw_help();
		refresh();
		return;
	}
	draw_header(st, fr);
	draw_titles(st, &layout, fr->stages);
	nvis = table_rows(st, fr);
	draw_rows(st, fr, &layout, nvis);
	if (st->show_stuck && fr->stuck.n)
		draw_stuck(fr, 5 + nvis);
	draw_footer(st, fr);
	refresh();
}

static const double steps[] = { 0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 30, 60 };

static double top_interval_step(double cur, int dir)
{
	size_t n = sizeof(steps) / sizeof(steps[0]);

	if (dir > 0) {
		for (size_t i = 0; i < n; i++)
			if (steps[i] > cur + 1e-9)
				return steps[i];
		return steps[n - 1];
	}
	for (size_t i = n; i-- > 0;)
		if (steps[i] < cur - 1e-9)
			return steps[i];
	return steps[0];
}

static void move_selection(struct top_view_state *st, const struct top_frame *fr, long delta)
{
	long sel = selected_index(st, fr), n = (long)fr->nrows;

	if (!n)
		return;
	if (sel < 0)
		sel = 0;
	sel += delta;
	if (sel < 0)
		sel = 0;
	if (sel >= n)
		sel = n - 1;
	st->selected_key = fr->rows[sel].key;
	st->have_selection = true;
}

/* A key while the filter is being edited. */
static int filter_key(struct top_view_state *st, int ch)
{
	size_t len = strlen(st->filter);

	switch (ch) {
	case 27:		/* Esc */
		st->filter[0] = '\0';
		st->filter_editing = false;
		return TOP_R_REMAP;
	case '\r':
	case '\n':
	case KEY_ENTER:
		st->filter_editing = false;
		return TOP_R_REDRAW;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (len)
			st->filter[len - 1] = '\0';
		return TOP_R_REMAP;
	default:
		if (ch >= 32 && ch < 127 && len + 1 < sizeof(st->filter)) {
			st->filter[len] = (char)ch;
			st->filter[len + 1] = '\0';
			return TOP_R_REMAP;
		}
		return TOP_R_NONE;
	}
}

/* Selection keys: up, down, pages, home, end; -1 for another key. */
static int move_key(struct top_view_state *st, const struct top_frame *fr, int ch)
{
	switch (ch) {
	case KEY_UP:
	case 'k':
		move_selection(st, fr, -1);
		return TOP_R_REDRAW;
	case KEY_DOWN:
	case 'j':
		move_selection(st, fr, 1);
		return TOP_R_REDRAW;
	case KEY_PPAGE:
		move_selection(st, fr, -(long)(LINES > 10 ? LINES - 10 : 1));
		return TOP_R_REDRAW;
	case KEY_NPAGE:
		move_selection(st, fr, LINES > 10 ? LINES - 10 : 1);
		return TOP_R_REDRAW;
	case KEY_HOME:
		move_selection(st, fr, -(long)fr->nrows);
		return TOP_R_REDRAW;
	case KEY_END:
		move_selection(st, fr, (long)fr->nrows);
		return TOP_R_REDRAW;
	}
	return -1;
}

/* Keys of the view: quit, help, pause, pace, grouping, sort, filter, panels; -1 else. */
static int view_key(struct top_view_state *st, int ch)
{
	switch (ch) {
	case 'q':
		return TOP_R_QUIT;
	case 'h':
	case '?':
	case KEY_F(1):
		st->show_help = true;
		return TOP_R_REDRAW;
	case ' ':
		st->paused = !st->paused;
		return TOP_R_REDRAW;
	case '+':
	case '=':
		st->interval_s = top_interval_step(st->interval_s, 1);
		return TOP_R_RETIME | TOP_R_REDRAW;
	case '-':
		st->interval_s = top_interval_step(st->interval_s, -1);
		return TOP_R_RETIME | TOP_R_REDRAW;
	case 'g':
		st->group = (st->group + 1) % AIO_GROUP_NR;
		st->have_selection = false;
		st->scroll = 0;
		return TOP_R_REMAP;
	case '<':
	case ',':
		do	/* the hidden STAGE column is no sort key */
			st->sort_col = (st->sort_col + TOP_NR_COLS - 1) % TOP_NR_COLS;
		while (st->sort_col == COL_STAGE && !st->stages);
		return TOP_R_REMAP;
	case '>':
	case '.':
		do
			st->sort_col = (st->sort_col + 1) % TOP_NR_COLS;
		while (st->sort_col == COL_STAGE && !st->stages);
		return TOP_R_REMAP;
	case 'r':
		st->ascending = !st->ascending;
		return TOP_R_REMAP;
	case '/':
		st->filter_editing = true;
		st->filter[0] = '\0';
		return TOP_R_REMAP;
	case '\\':
		st->filter[0] = '\0';
		return TOP_R_REMAP;
	case 'l':	/* the latency columns: whole, then each stage (--stages) */
		if (!st->stages)
			return -1;
		st->lat_stage = st->lat_stage + 1 < AIO_STAGE_NR ? st->lat_stage + 1 : -1;
		return TOP_R_REDRAW;
	case 't':
		st->show_stuck = !st->show_stuck;
		return TOP_R_REDRAW;
	case KEY_RESIZE:
		return TOP_R_REDRAW;
	case 12:		/* Ctrl-L: repaint everything */
		clearok(curscr, TRUE);
		return TOP_R_REDRAW;
	}
	return -1;
}

static int top_handle_key(struct top_view_state *st, const struct top_frame *fr, int ch)
{
	int r;

	if (st->show_help && ch != KEY_RESIZE && ch != ERR) {
		st->show_help = false;
		return ch == 'q' ? TOP_R_QUIT : TOP_R_REDRAW;
	}
	if (st->filter_editing)
		return filter_key(st, ch);
	r = move_key(st, fr, ch);
	if (r < 0)
		r = view_key(st, ch);
	if (r >= 0)
		return r;
	r = top_col_for_key(ch);
	if (r == COL_STAGE && !st->stages)
		r = -1;
	if (r >= 0) {
		if ((int)st->sort_col == r)
			st->ascending = !st->ascending;
		else
			st->ascending = false;
		st->sort_col = r;
		return TOP_R_REMAP;
	}
	return TOP_R_NONE;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Wait for keys until @deadline_ns (CLOCK_MONOTONIC); the first key that needs
 * work ends the wait. Input sets the pace: timeout() expires at the deadline.
 */
static int ui_wait(struct top_view_state *st, const struct top_frame *fr, uint64_t deadline_ns)
{
	for (;;) {
		uint64_t now = mono_ns();
		int ch, react;

		if (top_exiting)
			return TOP_R_QUIT;
		if (now >= deadline_ns)
			return TOP_R_NONE;
		timeout((int)((deadline_ns - now + 999999) / 1000000));
		ch = getch();
		if (ch == ERR)
			continue;	/* timeout or EINTR: loop re-checks */
		react = top_handle_key(st, fr, ch);
		if (react)
			return react;
	}
}

const struct top_view top_curses_view = {
	.name = "curses",
	.init = ui_init,
	.draw = ui_draw,
	.wait = ui_wait,
	.fini = ui_fini,
};
