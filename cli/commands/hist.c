// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope hist: latency histograms aggregated in the kernel (no per-event traffic).
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "core/format.h"
#include "core/hist.h"
#include "core/json.h"
#include "collect/tracer.h"

/* cumulative state of one (kind, group) */
struct hgroup {
	enum aios_hist_kind kind;
	uint64_t group;
	struct aio_hist cum;	/* last cumulative read */
	struct aio_hist prev;	/* cumulative at the previous print */
	bool seen;
};

struct hist_env {
	struct tracer_opts o;
	bool json;
	double interval;
	uint64_t count;		/* intervals; 0: until Ctrl-C */
	double duration;
	struct hgroup *g;
	size_t ng, capg;
	struct aio_json j;
	int64_t mono_to_real;
};

/*
 * Sleep until @deadline (CLOCK_MONOTONIC ns; 0: no deadline) or until one of the
 * blocked signals in @set arrives. Returns true on a signal. The kernel aggregates
 * everything, so there is nothing to do in between: no periodic wakeups, which on a
 * busy machine would take CPU time from the workload being measured.
 */
static bool wait_signal(const sigset_t *set, uint64_t deadline)
{
	struct timespec ts;
	uint64_t now, left;

	if (!deadline)
		return sigwaitinfo(set, NULL) > 0;
	now = tracer_now_ns();
	if (now >= deadline)
		return false;
	left = deadline - now;
	ts.tv_sec = left / 1000000000ULL;
	ts.tv_nsec = left % 1000000000ULL;
	return sigtimedwait(set, NULL, &ts) > 0;
}

enum { OPT_BY = OPT_CMD_BASE, OPT_JSON, OPT_REAP, OPT_SYSCALLS };

static const struct argp_option hist_options[] = {
	{ "by", OPT_BY, "GROUP", 0, "Group by op, pid, dev, ctx or qd (default: one group)", 0 },
	{ "interval", 'i', "SEC", 0, "Print every SEC seconds (default: once, at the end)", 0 },
	{ "count", 'n', "COUNT", 0, "Stop after COUNT intervals (of 1 s unless -i)", 0 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS", 0 },
	{ "reap", OPT_REAP, NULL, 0, "Also the reap latency (complete -> io_getevents)", 0 },
	{ "syscalls", OPT_SYSCALLS, NULL, 0, "Also requests per io_submit and events per "
	  "io_getevents (syscall batching)", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per group per interval", 0 },
	{ "pid", 'p', "PID", 0, "Only requests submitted by this process", 0 },
	{ "dev", OPT_FILTER_DEV, "PATH", 0, "Only this device node, file, or filesystem", 0 },
	{ "comm", OPT_FILTER_COMM, "NAME", 0, "Only requests submitted by tasks named NAME", 0 },
	{ "cgroup", OPT_FILTER_CGROUP, "PATH", 0, "Only tasks in this cgroup v2 (and below)", 0 },
	{ "min-lat-us", OPT_FILTER_MINLAT, "N", 0, "Only requests with lat >= N microseconds", 0 },
	{ "mode", OPT_FILTER_MODE, "MODE", 0, "Force the attach mode: fentry, kprobe or syscalls", 0 },
	{ "verbose", 'v', NULL, 0, "Print the attach mode and libbpf debug output", 0 },
	{ 0 },
};

static const char hist_doc[] =
	"Histograms of request latency (submit -> complete) of libaio and io_uring\n"
	"requests, aggregated in the kernel, with count, p50, p90, p99, p99.9 and max.\n"
	"Buckets are 1/64 of a power of two wide, so each percentile is within 1.6%\n"
	"above the exact value. --reap applies to libaio: io_uring completions are\n"
	"read from the ring without a syscall.\n"
	"\v"
	"Examples:\n"
	"  aioscope hist                        # until Ctrl-C, then print\n"
	"  aioscope hist -i 1 -n 10 --by op     # every second, reads and writes apart\n"
	"  aioscope hist --by qd -d 30          # latency by the queue depth at submit\n"
	"  aioscope hist --reap --syscalls      # also reap latency, syscall batches\n"
	"  aioscope hist --json -i 5            # a JSON line per group per interval\n";

static error_t hist_parse(int key, char *arg, struct argp_state *state)
{
	struct hist_env *env = state->input;
	int i;

	switch (key) {
	case OPT_BY:
		i = tracer_group_parse(arg);
		if (i <= 0)
			opt_invalid(state, "--by", arg, "op, pid, dev, ctx, qd");
		env->o.hist_by = (enum aios_group)i;
		break;
	case 'i':
		env->interval = opt_seconds(state, "interval", arg, 0.001, 1e6);
		break;
	case 'n':
		env->count = (uint64_t)opt_count(state, arg);
		break;
	case 'd':
		env->duration = opt_seconds(state, "duration", arg, 0.001, 1e6);
		break;
	case OPT_REAP:
		env->o.hist_reap = true;
		break;
	case OPT_SYSCALLS:
		env->o.hist_syscalls = true;
		break;
	case OPT_JSON:
		env->json = true;
		break;
	case ARGP_KEY_ARG:
		opt_unexpected(state, arg);
		break;
	default:
		return filter_opt_parse(key, arg, state, &env->o);
	}
	return 0;
}

static const char *kind_name(enum aios_hist_kind k)
{
	static const char *const n[] = { "lat", "reap", "driver", "submit_batch", "reap_batch",
					 "bytes" };

	return (unsigned int)k < AIOS_H_NR ? n[k] : "?";
}

/* Batch sizes (requests per io_submit, events per reap) are counts, never grouped. */
static bool is_batch_kind(enum aios_hist_kind kind)
{
	return kind == AIOS_H_SUBMIT_BATCH || kind == AIOS_H_REAP_BATCH;
}

static const char *group_label(const struct hist_env *env, enum aios_hist_kind kind,
			       uint64_t g, char *buf, size_t len)
{
	if (is_batch_kind(kind))
		return "all";
	switch (env->o.hist_by) {
	case AIOS_BY_OP:
		return tracer_op_name((enum aios_op)g);
	case AIOS_BY_PID:
		snprintf(buf, len, "%llu", (unsigned long long)g);
		return buf;
	case AIOS_BY_DEV:
		return tracer_dev_str((uint32_t)g, buf, len);
	case AIOS_BY_CTX:
		snprintf(buf, len, "0x%llx", (unsigned long long)g);
		return buf;
	case AIOS_BY_QD:
		if (g == 0)
			snprintf(buf, len, "1");
		else
			snprintf(buf, len, "%llu-%llu", 1ULL << g, (2ULL << g) - 1);
		return buf;
	default:
		return "all";
	}
}

static int on_hist(void *ctx, const struct tracer_hist *h)
{
	struct hist_env *env = ctx;
	struct hgroup *g = NULL;

	for (size_t i = 0; i < env->ng; i++)
		if (env->g[i].kind == h->kind && env->g[i].group == h->group)
			g = &env->g[i];
	if (!g) {
		if (env->ng == env->capg) {
			size_t nc = env->capg ? env->capg * 2 : 8;
			struct hgroup *n = realloc(env->g, nc * sizeof(*n));

			if (!n)
				return -ENOMEM;
			env->g = n;
			env->capg = nc;
		}
		g = &env->g[env->ng++];
		memset(g, 0, sizeof(*g));
		g->kind = h->kind;
		g->group = h->group;
	}
	aio_hist_reset(&g->cum);
	if (aio_hist_add_buckets(&g->cum, h->buckets, h->nbuckets))
		return -EINVAL;
	g->cum.sum = h->sum;
	g->cum.max = h->max;
	g->seen = true;
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct hgroup *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->group < y->group ? -1 : x->group > y->group;
}

/* A histogram of small counts (requests per call): one row per bucket in use. */
static void print_counts(const struct aio_hist *h)
{
	__u64 peak = 0;

	for (unsigned int b = 0; b < AIO_HIST_BUCKETS; b++)
		if (h->buckets[b] > peak)
			peak = h->buckets[b];
	printf("     %-19s : %-8s distribution\n", "per call", "calls");
	for (unsigned int b = 0; b < AIO_HIST_BUCKETS; b++) {
		unsigned long long lo = aio_bucket_lower(b), hi = aio_bucket_upper(b);
		char range[48], bar[41];
		int w;

		if (!h->buckets[b])
			continue;
		if (lo == hi)
			snprintf(range, sizeof(range), "%llu", lo);
		else
			snprintf(range, sizeof(range), "%llu -> %llu", lo, hi);
		w = (int)(h->buckets[b] * 40 / peak);
		memset(bar, '*', (size_t)w);
		bar[w] = 0;
		printf("%24s : %-8llu |%-40s|\n", range, (unsigned long long)h->buckets[b], bar);
	}
}

/* One group's interval as a JSON line: its percentiles and non-empty buckets. */
static void group_json(struct hist_env *env, struct tracer *t, uint64_t idx,
		       const struct timespec *rt, const struct hgroup *g, const char *label,
		       const struct aio_hist *d, const __u64 p[5])
{
	bool counts = is_batch_kind(g->kind);
	struct aio_json *j = &env->j;
	const char *mh;

	aio_json_start_object(j);
	aio_json_u64_field(j, "ts_ns", (uint64_t)rt->tv_sec * 1000000000ULL + rt->tv_nsec);
	aio_json_u64_field(j, "interval", idx);
	aio_json_string_field(j, "mode", tracer_mode_name(t));
	aio_json_name(j, "missing_hooks");
	aio_json_start_array(j);
	for (int m = 0; (mh = tracer_missing_hook(t, m, NULL, NULL)); m++)
		aio_json_string(j, mh);
	aio_json_end_array(j);
	aio_json_string_field(j, "hist", kind_name(g->kind));
	aio_json_string_field(j, "by", counts ? "all" : tracer_group_name(env->o.hist_by));
	aio_json_string_field(j, "group", label);
	aio_json_u64_field(j, "count", d->count);
	aio_json_u64_field(j, "p50_ns", p[0]);
	aio_json_u64_field(j, "p90_ns", p[1]);
	aio_json_u64_field(j, "p99_ns", p[2]);
	aio_json_u64_field(j, "p999_ns", p[3]);
	aio_json_u64_field(j, "max_ns", p[4]);
	aio_json_name(j, "buckets");
	aio_json_start_array(j);
	for (unsigned int b = 0; b < AIO_HIST_BUCKETS; b++) {
		if (!d->buckets[b])
			continue;
		aio_json_start_array(j);
		aio_json_u64(j, aio_bucket_lower(b));
		aio_json_u64(j, aio_bucket_upper(b));
		aio_json_u64(j, d->buckets[b]);
		aio_json_end_array(j);
	}
	aio_json_end_array(j);
	aio_json_end_object(j);
}

/* One group's interval as text: a summary line, then the histogram. */
static void group_text(const struct hist_env *env, const struct hgroup *g, const char *label,
		       const struct aio_hist *d, const __u64 p[5])
{
	char s[5][16], what[80];

	if (is_batch_kind(g->kind)) {
		printf("\n%s (%s per call): count %llu  p50 %llu  p90 %llu  p99 %llu  "
		       "max %llu\n", kind_name(g->kind),
		       g->kind == AIOS_H_SUBMIT_BATCH ? "requests" : "events",
		       (unsigned long long)d->count, (unsigned long long)p[0],
		       (unsigned long long)p[1], (unsigned long long)p[2],
		       (unsigned long long)p[4]);
		print_counts(d);
		return;
	}
	for (int k = 0; k < 5; k++)
		aio_fmt_ns(s[k], sizeof(s[k]), p[k]);
	if (env->o.hist_by == AIOS_BY_NONE)
		snprintf(what, sizeof(what), "%s", kind_name(g->kind));
	else
		snprintf(what, sizeof(what), "%s, %s %s", kind_name(g->kind),
			 tracer_group_name(env->o.hist_by), label);
	printf("\n%s: count %llu  p50 <=%s  p90 <=%s  p99 <=%s  "
	       "p99.9 <=%s  max %s\n", what,
	       (unsigned long long)d->count, s[0], s[1], s[2], s[3], s[4]);
	aio_hist_print_log2(d, stdout, NULL);
}

static void print_interval(struct hist_env *env, struct tracer *t, uint64_t idx)
{
	static const double pct[5] = { 50, 90, 99, 99.9, 100 };
	struct aio_hist d;
	struct timespec rt;
	char tbuf[32], lbuf[48];
	bool any = false;

	clock_gettime(CLOCK_REALTIME, &rt);
	if (env->ng)
		qsort(env->g, env->ng, sizeof(*env->g), cmp_group);
	if (!env->json) {
		struct tm tm;

		localtime_r(&rt.tv_sec, &tm);
		strftime(tbuf, sizeof(tbuf), "%H:%M:%S", &tm);
		printf("\n[%s] mode %s\n", tbuf, tracer_mode_name(t));
	}
	for (size_t i = 0; i < env->ng; i++) {
		struct hgroup *g = &env->g[i];
		const char *label = group_label(env, g->kind, g->group, lbuf, sizeof(lbuf));
		__u64 p[5] = { 0 };

		aio_hist_diff(&d, &g->cum, &g->prev);
		g->prev = g->cum;
		if (!d.count)
			continue;
		any = true;
		for (int k = 0; k < 5; k++)
			aio_hist_percentile(&d, pct[k], &p[k]);
		p[4] = d.max;
		if (env->json)
			group_json(env, t, idx, &rt, g, label, &d, p);
		else
			group_text(env, g, label, &d, p);
	}
	if (!env->json && !any)
		printf("(no requests)\n");
	fflush(stdout);
}

int cmd_hist(int argc, char **argv)
{
	static const struct argp argp = { hist_options, hist_parse, NULL, hist_doc,
					  NULL, NULL, NULL };
	struct hist_env env = { 0 };
	struct tracer *t = NULL;
	struct tracer_drops dr;
	char err[256];
	uint64_t start, end = 0, next, idx = 0;
	bool exiting = false;
	sigset_t sigs;
	int rc;

	env.o.hist = true;
	rc = argp_parse(&argp, argc, argv, 0, NULL, &env);
	if (rc)
		return EXIT_USAGE;
	if (env.count && !env.interval)
		env.interval = 1;	/* -n alone: COUNT one-second intervals */
	rc = tracer_open(&t, &env.o, err, sizeof(err));
	if (rc) {
		p_err("%s", err);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	/* taken with sigtimedwait: blocked from here on */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	aio_json_init(&env.j, stdout, false);
	if (env.o.verbose)
		tracer_describe(t, stderr);
	fprintf(stderr, "Tracing asynchronous I/O (mode %s)... Hit Ctrl-C to end.\n",
		tracer_mode_name(t));
	start = tracer_now_ns();
	if (env.duration > 0)
		end = start + (uint64_t)(env.duration * 1e9);
	next = env.interval > 0 ? start + (uint64_t)(env.interval * 1e9) : 0;
	rc = 0;
	for (;;) {
		uint64_t now = tracer_now_ns(), wake;
		bool last = exiting || (end && now >= end);

		if (last || (next && now >= next)) {
			rc = tracer_hist_foreach(t, on_hist, &env);
			if (rc < 0) {
				p_err("reading histograms: %s", strerror(-rc));
				rc = EXIT_RUNTIME;
				break;
			}
			rc = 0;
			print_interval(&env, t, ++idx);
			if (next)
				next += (uint64_t)(env.interval * 1e9);
			if (last || (env.count && idx >= env.count))
				break;
		}
		wake = next && (!end || next < end) ? next : end;
		if (wait_signal(&sigs, wake))
			exiting = true;
	}
	tracer_drops(t, &dr);
	fprintf(stderr, "lost: hist map full %llu, in-flight map full %llu, done map full %llu, "
		"program misses %llu, reaps unread %llu; completions not seen submitted %llu; "
		"completions not seen, reconciled %llu\n",
		(unsigned long long)dr.hist_full, (unsigned long long)dr.inflight_full,
		(unsigned long long)dr.reap_full, (unsigned long long)dr.prog_misses,
		(unsigned long long)dr.reap_unread, (unsigned long long)dr.unmatched_complete, (unsigned long long)dr.reconciled);
	tracer_close(t);
	free(env.g);
	return rc;
}
