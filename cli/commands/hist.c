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
#include "core/hist.h"
#include "collect/tracer.h"
#include "hist_view.h"

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
	struct hist_view v;
	const char *missing[32];	/* the hooks missing, for the JSON lines */
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
	{ "by", OPT_BY, "GROUP", 0, "Group by op, pid, dev, ctx, qd or stage (default: one group)", 0 },
	{ "interval", 'i', "SEC", 0, "Print every SEC seconds (default: once, at the end)", 0 },
	{ "count", 'n', "COUNT", 0, "Stop after COUNT intervals (of 1 s unless -i)", 0 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS", 0 },
	{ "reap", OPT_REAP, NULL, 0, "Also the reap latency (complete -> io_getevents, or for io_uring the CQ head at io_uring_enter)", 0 },
	{ "syscalls", OPT_SYSCALLS, NULL, 0, "Also requests per io_submit and events per "
	  "io_getevents (syscall batching)", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per group per interval", 0 },
	{ "pid", 'p', "PID", 0, "Only requests submitted by this process", 0 },
	{ "dev", OPT_FILTER_DEV, "PATH", 0, "Only this device node, file, or filesystem", 0 },
	{ "comm", OPT_FILTER_COMM, "NAME", 0, "Only requests submitted by tasks named NAME", 0 },
	{ "cgroup", OPT_FILTER_CGROUP, "PATH", 0, "Only tasks in this cgroup v2 (and below)", 0 },
	{ "min-lat-us", OPT_FILTER_MINLAT, "N", 0, "Only requests with lat >= N microseconds", 0 },
	{ "mode", OPT_FILTER_MODE, "MODE", 0, "Force the attach mode: fentry, kprobe or syscalls", 0 },
	{ "sample", OPT_FILTER_SAMPLE, "N", 0, "Count 1 request in N, chosen at random in the "
	  "kernel (the closing line gives the coverage)", 0 },
	{ "verbose", 'v', NULL, 0, "Print the attach mode and libbpf debug output", 0 },
	{ 0 },
};

static const char hist_doc[] =
	"Histograms of request latency (submit -> complete) of libaio and io_uring\n"
	"requests, aggregated in the kernel, with count, p50, p90, p99, p99.9 and max.\n"
	"Buckets are 1/64 of a power of two wide, so each percentile is within 1.6%\n"
	"above the exact value. --reap: io_uring's reaps are seen at the next\n"
	"io_uring_enter on the ring (an upper bound).\n"
	"\v"
	"Examples:\n"
	"  aioscope hist                        # until Ctrl-C, then print\n"
	"  aioscope hist -i 1 -n 10 --by op     # every second, reads and writes apart\n"
	"  aioscope hist --by qd -d 30          # latency by the queue depth at submit\n"
	"  aioscope hist --by stage             # submit, queue, device, completion, reap\n"
	"  aioscope hist --reap --syscalls      # also reap latency, syscall batches\n"
	"  aioscope hist --json -i 5            # a JSON line per group per interval\n";

static error_t hist_parse(int key, char *arg, struct argp_state *state)
{
	struct hist_env *env = state->input;

	switch (key) {
	case OPT_BY:
		env->o.hist_by = opt_group(state, arg);
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

static void print_interval(struct hist_env *env, struct tracer *t, uint64_t idx)
{
	struct hist_view_group *vg = NULL;
	struct aio_hist *d = NULL;
	struct timespec rt;

	clock_gettime(CLOCK_REALTIME, &rt);
	if (env->ng) {
		vg = calloc(env->ng, sizeof(*vg));
		d = calloc(env->ng, sizeof(*d));
		if (!vg || !d) {
			p_err("out of memory printing %zu groups", env->ng);
			free(vg);
			free(d);
			return;
		}
	}
	for (size_t i = 0; i < env->ng; i++) {
		struct hgroup *g = &env->g[i];

		aio_hist_diff(&d[i], &g->cum, &g->prev);
		g->prev = g->cum;
		vg[i] = (struct hist_view_group){ .kind = g->kind, .group = g->group, .h = &d[i] };
	}
	if (env->ng)
		qsort(vg, env->ng, sizeof(*vg), hist_view_group_cmp);
	if (env->o.sample > 1) {
		struct tracer_drops dr;

		tracer_drops(t, &dr);
		env->v.sample = env->o.sample;
		env->v.coverage = sample_coverage(&dr);
	}
	hist_view_interval(&env->v, idx, &rt, vg, env->ng);
	free(vg);
	free(d);
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
	if (env.o.hist_by == AIOS_BY_STAGE) {
		/* the block layer's times, and the reap's in the kernel (its stage) */
		env.o.stages = true;
		env.o.hist_reap = true;
	}
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
	hist_view_init(&env.v, env.json, env.o.hist_by, tracer_mode_name(t));
	for (const char *mh; env.v.nmissing < sizeof(env.missing) / sizeof(env.missing[0]) &&
	     (mh = tracer_missing_hook(t, (int)env.v.nmissing, NULL, NULL));)
		env.missing[env.v.nmissing++] = mh;
	env.v.missing = env.missing;
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
		(unsigned long long)dr.reap_unread, (unsigned long long)dr.unmatched_complete,
		(unsigned long long)dr.reconciled);
	sample_report(stderr, env.o.sample, &dr);
	tracer_close(t);
	free(env.g);
	return rc;
}
