// SPDX-License-Identifier: GPL-2.0
/*
 * prom.c - Prometheus text format 0.0.4 / OpenMetrics 1.0.0 writer (see prom.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "prom.h"

void aio_prom_init(struct aio_prom *p, FILE *f, bool openmetrics)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->om = openmetrics;
	p->err = f ? 0 : -EINVAL;
}

int aio_prom_error(const struct aio_prom *p)
{
	return p->err;
}

bool aio_prom_name_ok(const char *s, bool label)
{
	if (!s || !*s)
		return false;
	for (const char *c = s; *c; c++) {
		bool alpha = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_';
		bool digit = *c >= '0' && *c <= '9';

		if (!alpha && !(c > s && digit) && !(!label && *c == ':'))
			return false;
	}
	return true;
}

bool aio_prom_accept_openmetrics(const char *accept)
{
	static const char mt[] = "application/openmetrics-text";
	const char *s = accept;

	if (!s)
		return false;
	while (*s) {
		size_t len = strcspn(s, ",");
		const char *e = s + len, *q;
		double qv = 1;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		if ((size_t)(e - s) >= sizeof(mt) - 1 && !strncasecmp(s, mt, sizeof(mt) - 1) &&
		    (s + sizeof(mt) - 1 == e || s[sizeof(mt) - 1] == ';' ||
		     s[sizeof(mt) - 1] == ' ')) {
			for (q = s; q < e; q++) {
				if (*q == ';') {
					const char *v = q + 1;

					while (v < e && *v == ' ')
						v++;
					if (e - v > 2 && (v[0] == 'q' || v[0] == 'Q') && v[1] == '=')
						qv = strtod(v + 2, NULL);
				}
			}
			if (qv > 0)
				return true;
		}
		s = *e ? e + 1 : e;
	}
	return false;
}

static void put(struct aio_prom *p, const char *s)
{
	if (p->err)
		return;
	if (fputs(s, p->f) == EOF)
		p->err = -EIO;
}

/* @s escaped: backslash and newline always, the double quote when @quote */
static void put_escaped(struct aio_prom *p, const char *s, bool quote)
{
	for (; *s && !p->err; s++) {
		char esc[3] = { '\\', 0, 0 };

		if (*s == '\\')
			esc[1] = '\\';
		else if (*s == '\n')
			esc[1] = 'n';
		else if (*s == '"' && quote)
			esc[1] = '"';
		if (esc[1]) {
			put(p, esc);
		} else if (fputc(*s, p->f) == EOF) {
			p->err = -EIO;
		}
	}
}

void aio_prom_family(struct aio_prom *p, const char *name, enum aio_prom_type type,
		     const char *help)
{
	static const char *const tn[] = { "counter", "gauge", "histogram" };
	/* 0.0.4 names a counter by its sample name */
	const char *suffix = type == AIO_PROM_COUNTER && !p->om ? "_total" : "";

	if (p->err)
		return;
	if (!aio_prom_name_ok(name, false) || strlen(name) + 8 > sizeof(p->family) ||
	    (unsigned int)type > AIO_PROM_HISTOGRAM || p->finished) {
		p->err = -EINVAL;
		return;
	}
	snprintf(p->family, sizeof(p->family), "%s", name);
	p->type = type;
	put(p, "# HELP ");
	put(p, name);
	put(p, suffix);
	put(p, " ");
	put_escaped(p, help ? help : "", p->om);
	put(p, "\n# TYPE ");
	put(p, name);
	put(p, suffix);
	put(p, " ");
	put(p, tn[type]);
	put(p, "\n");
}

/* name{labels[,extra="v"]} */
static void sample_head(struct aio_prom *p, const char *suffix, const struct aio_prom_label *l,
			size_t nl, const char *extra, const char *extra_v)
{
	bool any = nl || extra;

	if (!p->family[0] || p->finished) {
		p->err = p->err ? p->err : -EINVAL;
		return;
	}
	put(p, p->family);
	put(p, suffix);
	if (any)
		put(p, "{");
	for (size_t i = 0; i < nl; i++) {
		if (!aio_prom_name_ok(l[i].name, true)) {
			p->err = p->err ? p->err : -EINVAL;
			return;
		}
		if (i)
			put(p, ",");
		put(p, l[i].name);
		put(p, "=\"");
		put_escaped(p, l[i].value ? l[i].value : "", true);
		put(p, "\"");
	}
	if (extra) {
		if (nl)
			put(p, ",");
		put(p, extra);
		put(p, "=\"");
		put(p, extra_v);
		put(p, "\"");
	}
	if (any)
		put(p, "}");
	put(p, " ");
}

static const char *scalar_suffix(struct aio_prom *p)
{
	if (p->type == AIO_PROM_HISTOGRAM)
		p->err = p->err ? p->err : -EINVAL;
	return p->type == AIO_PROM_COUNTER ? "_total" : "";
}

void aio_prom_u64(struct aio_prom *p, const struct aio_prom_label *l, size_t nl, __u64 v)
{
	char b[24];

	sample_head(p, scalar_suffix(p), l, nl, NULL, NULL);
	snprintf(b, sizeof(b), "%llu\n", (unsigned long long)v);
	put(p, b);
}

int aio_prom_fmt_seconds(char *buf, size_t len, __u64 ns)
{
	unsigned long long s = ns / 1000000000ULL, f = ns % 1000000000ULL;
	int n;

	if (!buf || !len)
		return -EINVAL;
	if (!f)
		return snprintf(buf, len, "%llu", s);
	n = snprintf(buf, len, "%llu.%09llu", s, f);
	if (n > 0 && (size_t)n < len)
		while (buf[n - 1] == '0')
			buf[--n] = '\0';
	return n;
}

void aio_prom_ns(struct aio_prom *p, const struct aio_prom_label *l, size_t nl, __u64 ns)
{
	char b[40];

	sample_head(p, scalar_suffix(p), l, nl, NULL, NULL);
	aio_prom_fmt_seconds(b, sizeof(b), ns);
	put(p, b);
	put(p, "\n");
}

void aio_prom_histogram(struct aio_prom *p, const struct aio_prom_label *l, size_t nl,
			const __u64 *edges_ns, const __u64 *cum, size_t n, __u64 count,
			__u64 sum_ns)
{
	char le[40], v[24];

	if (p->err)
		return;
	if (p->type != AIO_PROM_HISTOGRAM || (n && (!edges_ns || !cum))) {
		p->err = -EINVAL;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (cum[i] > count || (i && (cum[i] < cum[i - 1] || edges_ns[i] <= edges_ns[i - 1]))) {
			p->err = -EINVAL;
			return;
		}
	}
	for (size_t i = 0; i < n; i++) {
		aio_prom_fmt_seconds(le, sizeof(le), edges_ns[i]);
		sample_head(p, "_bucket", l, nl, "le", le);
		snprintf(v, sizeof(v), "%llu\n", (unsigned long long)cum[i]);
		put(p, v);
	}
	sample_head(p, "_bucket", l, nl, "le", "+Inf");
	snprintf(v, sizeof(v), "%llu\n", (unsigned long long)count);
	put(p, v);
	sample_head(p, "_sum", l, nl, NULL, NULL);
	aio_prom_fmt_seconds(le, sizeof(le), sum_ns);
	put(p, le);
	put(p, "\n");
	sample_head(p, "_count", l, nl, NULL, NULL);
	put(p, v);
}

void aio_prom_finish(struct aio_prom *p)
{
	if (p->om && !p->finished)
		put(p, "# EOF\n");
	p->finished = true;
	if (!p->err && fflush(p->f) == EOF)
		p->err = -EIO;
}
