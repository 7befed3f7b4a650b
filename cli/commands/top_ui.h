/* SPDX-License-Identifier: GPL-2.0 */
/*
 * top's views (iotop-c style): the curses view, its key handling, and the cell and
 * row formatters the batch view (top.c) shares with it (top_ui.c).
 */
#ifndef AIOSCOPE_TOP_UI_H
#define AIOSCOPE_TOP_UI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "top_model.h"

extern volatile sig_atomic_t top_exiting;	/* set by top's signal handlers */

const char *top_group_name(enum aio_group g);
const char *top_col_name(enum top_col c);

struct top_view {
	const char *name;
	int (*init)(struct top_view_state *st);
	void (*draw)(struct top_view_state *st, const struct top_frame *fr);
	/* Wait for input until @deadline_ns (CLOCK_MONOTONIC); returns reactions. */
	int (*wait)(struct top_view_state *st, const struct top_frame *fr, uint64_t deadline_ns);
	void (*fini)(void);
};

extern const struct top_view top_curses_view;
/*
 * Put the terminal back as it was before the curses view started, from a
 * signal handler (async-signal-safe; nothing when the view is not up).
 */
void top_ui_restore_now(void);


void top_fmt_ns(char *buf, size_t sz, uint64_t ns);
void top_fmt_rate(char *buf, size_t sz, double v);
void top_fmt_count(char *buf, size_t sz, uint64_t v);
void top_fmt_duration(char *buf, size_t sz, double s);
/* Column widths (0: hidden); NULL everywhere means the full 127-column table. */
struct top_layout {
	int width[TOP_NR_COLS];
};
/* Every column at its full width; STAGE only with @stages (top --stages). */
void top_layout_full(struct top_layout *l, bool stages);
void top_fmt_header(char *buf, size_t sz, const struct top_layout *l);
void top_fmt_row(char *buf, size_t sz, const struct top_row *r, const struct top_layout *l);

#endif
