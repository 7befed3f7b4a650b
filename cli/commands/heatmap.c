// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope heatmap FILE -o OUT.svg: a latency heatmap of a recording, in the style
 * latency heatmaps made standard: completion time across, latency up on a log scale,
 * each cell coloured by how many requests it holds (a log colour scale, so that a
 * few slow requests still show), with the queue depth over the same time axis
 * beneath. One panel per group with --by. A self-contained SVG; each cell carries its
 * count (data-count), so the picture can be checked against the recording.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "core/format.h"
#include "recording.h"

#define LEFT		78	/* px: the latency labels */
#define RIGHT		110	/* px: the colour legend */
#define TOP		44	/* px: the title */
#define PANEL_GAP	30	/* px: between panels (a panel's title) */
#define QD_HEIGHT	90	/* px: the queue-depth chart */
#define BOTTOM		46	/* px: the time axis */
#define MAX_PANELS	16

enum hm_by { HM_ALL, HM_OP, HM_DEV, HM_PID };

struct heatmap_env {
	const char *file;
	const char *out;
	enum hm_by by;
	unsigned int cols;
	unsigned int rpo;		/* rows per octave (power of two) of latency */
};

enum { OPT_HM_BY = OPT_CMD_BASE, OPT_HM_COLS, OPT_HM_RPO };

static const struct argp_option heatmap_options[] = {
	{ "output", 'o', "OUT.svg", 0, "Write the SVG to OUT.svg ('-': stdout; required)", 0 },
	{ "by", OPT_HM_BY, "GROUP", 0, "A panel per op, dev or pid (the 16 largest)", 0 },
	{ "cols", OPT_HM_COLS, "N", 0, "Time columns (10-1000, default 120)", 0 },
	{ "rows-per-octave", OPT_HM_RPO, "N", 0,
	  "Latency rows per power of two (1-16, default 4)", 0 },
	{ 0 },
};

static const char heatmap_doc[] =
	"Draw a latency heatmap of a recording (aioscope record) as a self-contained SVG:\n"
	"completion time across, latency (submit to completion) up on a log scale, each\n"
	"cell coloured by its number of requests, and the queue depth over the same time\n"
	"axis beneath. --by draws a panel per group. Render it with any browser, or to\n"
	"PNG with rsvg-convert.\n"
	"\v"
	"Exit status: 0 ok, 1 the recording cannot be read, holds no request, or the SVG\n"
	"cannot be written, 2 usage error.\n\n"
	"Examples:\n"
	"  aioscope heatmap io.rec -o io.svg\n"
	"  aioscope heatmap io.rec -o io.svg --by op && rsvg-convert io.svg -o io.png\n";

static error_t heatmap_parse(int key, char *arg, struct argp_state *state)
{
	struct heatmap_env *env = state->input;

	switch (key) {
	case 'o':
		env->out = arg;
		break;
	case OPT_HM_BY:
		if (!strcmp(arg, "op"))
			env->by = HM_OP;
		else if (!strcmp(arg, "dev"))
			env->by = HM_DEV;
		else if (!strcmp(arg, "pid"))
			env->by = HM_PID;
		else
			opt_invalid(state, "--by", arg, "op, dev or pid");
		break;
	case OPT_HM_COLS:
		env->cols = (unsigned int)opt_u64(state, "--cols", arg, 10, 1000, NULL);
		break;
	case OPT_HM_RPO:
		env->rpo = (unsigned int)opt_u64(state, "--rows-per-octave", arg, 1, 16, NULL);
		break;
	default:
		return opt_file_out(key, arg, state, &env->file, &env->out, "-o OUT.svg");
	}
	return 0;
}

/* One panel: a group's cells (cols x rows counts). */
struct panel {
	uint64_t key;
	char label[64];
	uint64_t n;
	uint64_t *cells;
};

/* The grid every panel shares. */
struct grid {
	uint64_t t0, t1;		/* completion times covered, ns */
	unsigned int cols, rows, rpo;
	int lo;				/* log2 of the lowest row's lower bound */
	double cw, ch;			/* cell width and height, px */
	uint64_t max;			/* the largest cell count */
};

static uint64_t group_key(enum hm_by by, const struct tracer_event *e)
{
	switch (by) {
	case HM_OP:
		return e->op;
	case HM_DEV:
		return e->dev;
	case HM_PID:
		return (uint32_t)e->pid;
	default:
		return 0;
	}
}

static void group_label(enum hm_by by, const struct tracer_event *e, char *buf, size_t len)
{
	char d[32];

	switch (by) {
	case HM_OP:
		snprintf(buf, len, "op %s", tracer_op_name(e->op));
		break;
	case HM_DEV:
		snprintf(buf, len, "device %s", tracer_dev_str(e->dev, d, sizeof(d)));
		break;
	case HM_PID:
		snprintf(buf, len, "pid %d (%s)", e->pid, e->comm);
		break;
	default:
		snprintf(buf, len, "all requests");
	}
}

static double lat_log2(uint64_t ns)
{
	return log2((double)(ns ? ns : 1));
}

static unsigned int row_of(const struct grid *g, uint64_t lat)
{
	double r = (lat_log2(lat) - g->lo) * g->rpo;

	if (r < 0)
		return 0;
	return r >= g->rows ? g->rows - 1 : (unsigned int)r;
}

static unsigned int col_of(const struct grid *g, uint64_t ts)
{
	/* in double: a file's times may span all of 64 bits */
	double c = ts <= g->t0 ? 0 : (double)(ts - g->t0) / ((double)(g->t1 - g->t0) + 1) * g->cols;

	return c >= g->cols ? g->cols - 1 : (unsigned int)c;
}

static void grid_size(struct grid *g, const struct recording *rec, const struct heatmap_env *env)
{
	uint64_t lmin = UINT64_MAX, lmax = 0;

	g->t0 = UINT64_MAX;
	g->t1 = 0;
	for (size_t i = 0; i < rec->nev; i++) {
		const struct tracer_event *e = &rec->ev[i];

		g->t0 = e->ts_ns < g->t0 ? e->ts_ns : g->t0;
		g->t1 = e->ts_ns > g->t1 ? e->ts_ns : g->t1;
		lmin = e->lat_ns < lmin ? e->lat_ns : lmin;
		lmax = e->lat_ns > lmax ? e->lat_ns : lmax;
	}
	g->cols = env->cols;
	g->rpo = env->rpo;
	g->lo = (int)floor(lat_log2(lmin));
	g->rows = (unsigned int)(((int)ceil(lat_log2(lmax) + 1e-9) - g->lo) * (int)g->rpo);
	if (g->rows < g->rpo)
		g->rows = g->rpo;
	g->cw = 720.0 / g->cols;
	g->ch = fmax(3.0, fmin(12.0, 260.0 / g->rows));
}

/* The panels: one, or the largest groups (the rest counted in the title). */
static int fill_panels(const struct recording *rec, const struct heatmap_env *env,
		       struct grid *g, struct panel *p, size_t *np, uint64_t *left_out)
{
	size_t n = 0;

	*left_out = 0;
	for (size_t i = 0; i < rec->nev; i++) {
		uint64_t k = group_key(env->by, &rec->ev[i]);
		size_t j;

		for (j = 0; j < n && p[j].key != k; j++)
			;
		if (j == n) {
			if (n == MAX_PANELS) {
				(*left_out)++;
				continue;
			}
			p[n].key = k;
			p[n].n = 0;
			group_label(env->by, &rec->ev[i], p[n].label, sizeof(p[n].label));
			p[n].cells = calloc((size_t)g->cols * g->rows, sizeof(uint64_t));
			if (!p[n].cells)
				return -ENOMEM;
			n++;
		}
		p[j].cells[(size_t)col_of(g, rec->ev[i].ts_ns) * g->rows +
			   row_of(g, rec->ev[i].lat_ns)]++;
		p[j].n++;
	}
	g->max = 1;
	for (size_t j = 0; j < n; j++)
		for (size_t c = 0; c < (size_t)g->cols * g->rows; c++)
			g->max = p[j].cells[c] > g->max ? p[j].cells[c] : g->max;
	*np = n;
	return 0;
}

/* YlOrRd: pale yellow for one request, dark red for the most, on a log scale. */
static void colour(uint64_t c, uint64_t max, char *buf, size_t len)
{
	static const int stops[5][3] = {
		{ 255, 237, 160 }, { 254, 178, 76 }, { 253, 141, 60 }, { 227, 26, 28 },
		{ 128, 0, 38 },
	};
	double t = max > 1 ? log((double)c) / log((double)max) : 1.0, f;
	int k;

	t = fmin(fmax(t, 0.0), 1.0) * 4.0;
	k = t >= 4.0 ? 3 : (int)t;
	f = t - k;
	snprintf(buf, len, "#%02x%02x%02x",
		 (int)(stops[k][0] + f * (stops[k + 1][0] - stops[k][0])),
		 (int)(stops[k][1] + f * (stops[k + 1][1] - stops[k][1])),
		 (int)(stops[k][2] + f * (stops[k + 1][2] - stops[k][2])));
}

/*
 * @s as SVG text: control bytes and ill-formed UTF-8 as "\xHH" (aio_fmt_term: names
 * come from the recording, chosen by whoever ran the process), then XML's escapes.
 */
static void xml_text(FILE *f, const char *s)
{
	char safe[1024];

	aio_fmt_term(safe, sizeof(safe), s);
	for (const char *c = safe; *c; c++) {
		switch (*c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*c, f);
		}
	}
}

/* A panel at @y: its cells, latency ticks at the decades, its title. */
static void draw_panel(FILE *f, const struct grid *g, const struct panel *p, double y)
{
	static const uint64_t steps[] = { 1, 2, 5 };	/* ticks at 1, 2 and 5 of each decade */
	double h = g->rows * g->ch;
	char fill[16], lab[16];

	fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"ptitle\">", LEFT, y - 8);
	xml_text(f, p->label);
	fprintf(f, ": %" PRIu64 " requests</text>\n", p->n);
	fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n",
		LEFT, y, g->cols * g->cw, h);
	fprintf(f, "<g class=\"cells\">\n");
	for (unsigned int c = 0; c < g->cols; c++) {
		for (unsigned int r = 0; r < g->rows; r++) {
			uint64_t n = p->cells[(size_t)c * g->rows + r];

			if (!n)
				continue;
			colour(n, g->max, fill, sizeof(fill));
			fprintf(f, "<rect class=\"cell\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"%s\" data-count=\"%" PRIu64 "\"/>\n",
				LEFT + c * g->cw, y + h - (r + 1) * g->ch, g->cw, g->ch, fill, n);
		}
	}
	fprintf(f, "</g>\n");
	for (uint64_t dec = 100; dec <= 100000000000ULL; dec *= 10) {
		for (size_t k = 0; k < 3; k++) {
			uint64_t v = dec * steps[k];
			double r = (lat_log2(v) - g->lo) * g->rpo, ty;

			/* the 2 and 5 only where a decade (3.32 octaves) is tall enough */
			if (r < 0 || r > g->rows || (k && 3.32 * g->rpo * g->ch < 60))
				continue;
			ty = y + h - r * g->ch;
			aio_fmt_ns(lab, sizeof(lab), v);
			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
				"class=\"tick\"/><text x=\"%d\" y=\"%.1f\" class=\"ylab\">%s</text>\n",
				LEFT - 5, ty, LEFT, ty, LEFT - 8, ty + 4, lab);
		}
	}
}

/*
 * The queue depth of all devices together at each sampling round (the recorder
 * writes one sample per device with the same time): @fn(ctx, ts, depth) per round.
 */
static void qd_rounds(const struct recording *rec, void (*fn)(void *, uint64_t, int64_t),
		      void *ctx)
{
	uint64_t ts = 0;
	int64_t now = 0;
	size_t n = 0;

	for (size_t k = 0; k <= rec->nqd; k++) {
		if (k == rec->nqd || rec->qd[k].ts_ns != ts) {
			if (n)
				fn(ctx, ts, now > 0 ? now : 0);	/* a race can read below 0 */
			if (k == rec->nqd)
				break;
			ts = rec->qd[k].ts_ns;
			now = 0;
			n = 0;
		}
		if (rec->qd[k].kind == AIOS_QD_DEV) {
			now += rec->qd[k].now;
			n++;
		}
	}
}

static void qd_max(void *ctx, uint64_t ts, int64_t now)
{
	int64_t *max = ctx;

	(void)ts;
	*max = now > *max ? now : *max;
}

struct qd_plot {
	FILE *f;
	const struct grid *g;
	double y, w;
	int64_t max;
};

static void qd_point(void *ctx, uint64_t ts, int64_t now)
{
	struct qd_plot *q = ctx;

	if (ts < q->g->t0 || ts > q->g->t1)
		return;
	fprintf(q->f, "%.1f,%.1f ",
		LEFT + (double)(ts - q->g->t0) / ((double)(q->g->t1 - q->g->t0) + 1) * q->w,
		q->y + QD_HEIGHT - (double)now / (double)q->max * (QD_HEIGHT - 4));
}

/* The queue depth over time: every device's, summed, from the 100 ms samples. */
static void draw_qd(FILE *f, const struct grid *g, const struct recording *rec, double y)
{
	struct qd_plot q = { .f = f, .g = g, .y = y, .w = g->cols * g->cw, .max = 1 };

	qd_rounds(rec, qd_max, &q.max);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"ptitle\">queue depth (requests in flight, "
		"all devices, sampled every 100 ms)</text>\n", LEFT, y - 8);
	fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" class=\"frame\"/>\n",
		LEFT, y, q.w, QD_HEIGHT);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"ylab\">%" PRId64 "</text>"
		"<text x=\"%d\" y=\"%.1f\" class=\"ylab\">0</text>\n",
		LEFT - 8, y + 10, q.max, LEFT - 8, y + QD_HEIGHT);
	fprintf(f, "<polyline class=\"qd\" points=\"");
	qd_rounds(rec, qd_point, &q);
	fprintf(f, "\"/>\n");
}

/* Seconds since the start of the recording along the bottom. */
static void draw_time_axis(FILE *f, const struct grid *g, const struct recording *rec, double y)
{
	double a = recording_us(rec, g->t0) / 1e6, b = recording_us(rec, g->t1) / 1e6;
	double w = g->cols * g->cw, raw = (b - a) / 10, mag, step;

	/* at most about ten ticks, at 1, 2 or 5 times a power of ten seconds */
	if (!(raw > 0))
		raw = 1e-3;
	mag = pow(10, floor(log10(raw)));
	step = raw <= mag ? mag : raw <= 2 * mag ? 2 * mag : raw <= 5 * mag ? 5 * mag : 10 * mag;
	/* counted, not summed: a step below a huge time's precision would not advance t */
	for (int i = 0; i <= 20; i++) {
		double t = ceil(a / step) * step + i * step, x;

		if (t > b + step / 1000)
			break;
		if (fabs(t) < step / 1000)
			t = 0;	/* not "-0" */
		x = LEFT + (b > a ? (t - a) / (b - a) * w : 0);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"tick\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" class=\"xlab\">%g</text>\n",
			x, y, x, y + 5, x, y + 18, t);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"xlab\">time since the recording "
		"started (s), by completion</text>\n", LEFT + w / 2, y + 36);
}

/* The colour scale: counts 1 .. max. */
static void draw_legend(FILE *f, const struct grid *g, double x, double y)
{
	char fill[16];

	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"leg\">requests</text>\n", x, y - 8);
	for (int i = 0; i < 5; i++) {
		uint64_t c = (uint64_t)llround(exp(log((double)g->max) * (4 - i) / 4.0));

		colour(c ? c : 1, g->max, fill, sizeof(fill));
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" class=\"leg\">%" PRIu64
			"</text>\n", x, y + i * 18, fill, x + 20, y + i * 18 + 11, c ? c : 1);
	}
}

static int write_svg(FILE *f, const struct recording *rec, const struct heatmap_env *env,
		     const struct grid *g, const struct panel *p, size_t np, uint64_t left_out)
{
	double ph = g->rows * g->ch, y = TOP + PANEL_GAP, w = g->cols * g->cw;
	double height = TOP + np * (ph + PANEL_GAP) + PANEL_GAP + QD_HEIGHT + BOTTOM;
	char span[16];

	aio_fmt_ns(span, sizeof(span), g->t1 - g->t0);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" data-requests=\"%zu\">\n",
		LEFT + w + RIGHT, height, LEFT + w + RIGHT, height, rec->nev);
	fprintf(f, "<style>text { font-family: sans-serif; font-size: 11px; fill: #222; } "
		".title { font-size: 15px; font-weight: bold; } .ptitle { font-size: 12px; } "
		".ylab { text-anchor: end; } .xlab { text-anchor: middle; } .leg { text-anchor: start; } "
		".frame { fill: #fafafa; stroke: #999; stroke-width: 0.5; } "
		".tick { stroke: #666; stroke-width: 1; } "
		".qd { fill: none; stroke: #1f5fa8; stroke-width: 1.5; }</style>\n");
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"22\" class=\"title\">Latency heatmap: ", LEFT);
	xml_text(f, env->file);
	fprintf(f, "</text>\n<text x=\"%d\" y=\"37\">%zu requests over %s, submit to completion; "
		"host ", LEFT, rec->nev, span);
	xml_text(f, rec->hdr.host);
	fputs(", kernel ", f);
	xml_text(f, rec->hdr.kernel);
	fputs(", mode ", f);
	xml_text(f, rec->hdr.mode);
	if (left_out)
		fprintf(f, "; %" PRIu64 " requests of further groups not drawn", left_out);
	fputs("</text>\n", f);
	for (size_t j = 0; j < np; j++, y += ph + PANEL_GAP)
		draw_panel(f, g, &p[j], y);
	draw_legend(f, g, LEFT + w + 16, TOP + PANEL_GAP + 10);
	draw_qd(f, g, rec, y);
	draw_time_axis(f, g, rec, y + QD_HEIGHT);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

int cmd_heatmap(int argc, char **argv)
{
	static const struct argp argp = { heatmap_options, heatmap_parse, "FILE", heatmap_doc,
					  NULL, NULL, NULL };
	struct heatmap_env env = { .cols = 120, .rpo = 4 };
	struct panel p[MAX_PANELS] = { 0 };
	struct recording rec;
	uint64_t left_out = 0;
	struct grid g;
	size_t np = 0;
	FILE *f;
	int ret;

	if (argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	ret = recording_load(env.file, &rec);
	if (ret)
		return ret;
	if (!rec.nev) {
		p_err("%s: no request to draw", env.file);
		ret = EXIT_RUNTIME;
		goto out;
	}
	grid_size(&g, &rec, &env);
	if (fill_panels(&rec, &env, &g, p, &np, &left_out)) {
		p_err("out of memory drawing %zu requests", rec.nev);
		ret = EXIT_RUNTIME;
		goto out;
	}
	f = out_open(env.out);
	if (!f) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	ret = out_close(f, env.out, write_svg(f, &rec, &env, &g, p, np, left_out));
	if (!ret)
		fprintf(stderr, "%zu requests in %zu panel%s of %u x %u cells to %s\n", rec.nev, np,
		np == 1 ? "" : "s", g.cols, g.rows, env.out);
out:
	for (size_t j = 0; j < MAX_PANELS; j++)
		free(p[j].cells);
	recording_free(&rec);
	return ret;
}
