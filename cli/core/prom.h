/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prom.h - Prometheus text exposition writer (aioscope core): the text format
 * 0.0.4 and OpenMetrics 1.0.0, one writer for both.
 *
 *   struct aio_prom p;
 *   aio_prom_init(&p, f, openmetrics);
 *   aio_prom_family(&p, "aioscope_requests", AIO_PROM_COUNTER, "Requests finished.");
 *   aio_prom_u64(&p, labels, nlabels, 42);  // aioscope_requests_total{...} 42
 *   aio_prom_finish(&p);                      // "# EOF" in OpenMetrics
 *
 * Counter families are named without "_total": the writer adds it to every sample
 * (and, in 0.0.4, to the HELP and TYPE lines, where the name is the sample's).
 * Histograms take cumulative counts at edges given in nanoseconds and write le and
 * _sum in seconds, exactly (decimal ns, no floating point rounding), then +Inf.
 * Label values and HELP text are escaped (backslash, newline; quote in values and
 * in OpenMetrics HELP). Names are the caller's: aio_prom_name_ok() checks one.
 * A write error or misuse records -EIO / -EINVAL (aio_prom_error()); the FILE stays
 * the caller's.
 */
#ifndef AIOSCOPE_CORE_PROM_H
#define AIOSCOPE_CORE_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#define AIO_PROM_CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define AIO_PROM_CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

enum aio_prom_type { AIO_PROM_COUNTER, AIO_PROM_GAUGE, AIO_PROM_HISTOGRAM };

struct aio_prom_label {
	const char *name;
	const char *value;
};

struct aio_prom {
	FILE *f;
	bool om;			/* OpenMetrics 1.0.0, else text 0.0.4 */
	int err;
	enum aio_prom_type type;	/* of the current family */
	char family[128];		/* current family name ("" before the first) */
	bool finished;
};

void aio_prom_init(struct aio_prom *p, FILE *f, bool openmetrics);
int aio_prom_error(const struct aio_prom *p);

/* aio_prom_name_ok - @s is a valid metric or label name ([a-zA-Z_:][a-zA-Z0-9_:]*). */
bool aio_prom_name_ok(const char *s, bool label);

/*
 * aio_prom_accept_openmetrics - does an Accept header ask for OpenMetrics
 * (a media range application/openmetrics-text with q > 0)? NULL: no.
 */
bool aio_prom_accept_openmetrics(const char *accept);

/* Start a family: HELP and TYPE lines. Names must pass aio_prom_name_ok(). */
void aio_prom_family(struct aio_prom *p, const char *name, enum aio_prom_type type,
		     const char *help);

/* One sample of the current counter or gauge family. */
void aio_prom_u64(struct aio_prom *p, const struct aio_prom_label *l, size_t nl, __u64 v);
/* A value in ns written in seconds, exactly ("0.000001023"). */
void aio_prom_ns(struct aio_prom *p, const struct aio_prom_label *l, size_t nl, __u64 ns);

/*
 * One histogram of the current histogram family: @cum[i] values <= @edges_ns[i]
 * (cumulative, non-decreasing, @n edges increasing), @count in all (the +Inf
 * bucket, >= cum[n-1]), @sum_ns their sum. -EINVAL if cum decreases or exceeds count.
 */
void aio_prom_histogram(struct aio_prom *p, const struct aio_prom_label *l, size_t nl,
			const __u64 *edges_ns, const __u64 *cum, size_t n, __u64 count,
			__u64 sum_ns);

/* End of the exposition: "# EOF" in OpenMetrics, nothing in 0.0.4. */
void aio_prom_finish(struct aio_prom *p);

/* aio_prom_fmt_seconds - @ns as seconds, exactly, shortest form ("1", "0.5"). */
int aio_prom_fmt_seconds(char *buf, size_t len, __u64 ns);

#endif /* AIOSCOPE_CORE_PROM_H */
