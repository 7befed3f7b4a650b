// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope snoop: one line per finished asynchronous request.
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
#include "core/json.h"
#include "snoop_line.h"
#include "collect/tracer.h"

struct snoop_env {
	struct snoop_trace t;
	bool json;
	bool stages;
	uint64_t start_mono;
	int64_t mono_to_real;
	uint64_t events;
	struct aio_json j;
};

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

enum { OPT_JSON = OPT_CMD_BASE, OPT_STAGES };

/* what snoop and record share: the filters, the mode, the ring buffer, the reap join,
 * the duration (snoop_trace_argp, an argp child of both) */
static const struct argp_option trace_options[] = {
	{ "pid", 'p', "PID", 0, "Only requests submitted by this process (tgid)", 0 },
	{ "dev", OPT_FILTER_DEV, "PATH", 0, "Only this device node, this file, or (a directory) "
	  "this filesystem", 0 },
	{ "comm", OPT_FILTER_COMM, "NAME", 0, "Only requests submitted by tasks named NAME", 0 },
	{ "cgroup", OPT_FILTER_CGROUP, "PATH", 0, "Only tasks in this cgroup v2 (and below)", 0 },
	{ "min-lat-us", OPT_FILTER_MINLAT, "N", 0, "Only requests with lat >= N microseconds", 0 },
	{ "no-reap", OPT_TRACE_NOREAP, NULL, 0, "Take each request at completion, without waiting "
	  "for the reap", 0 },
	{ "mode", OPT_FILTER_MODE, "MODE", 0, "Force the attach mode: fentry, kprobe or syscalls", 0 },
	{ "ringbuf-mb", OPT_TRACE_RINGBUF, "MB", 0, "Ring buffer size (default 16)", 0 },
	{ "verbose", 'v', NULL, 0, "Print the attach mode and libbpf debug output", 0 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS (default: until Ctrl-C)", 0 },
	{ 0 },
};

static error_t trace_parse(int key, char *arg, struct argp_state *state)
{
	struct snoop_trace *t = state->input;
	uint64_t v;

	switch (key) {
	case OPT_TRACE_NOREAP:
		t->no_reap = true;
		break;
	case OPT_TRACE_RINGBUF:
		v = opt_u64(state, "--ringbuf-mb", arg, 1, 1024, "MiB, a power of two");
		if (v & (v - 1))
			opt_invalid(state, "--ringbuf-mb", arg, "1 to 1024 MiB, a power of two");
		t->o.ringbuf_mb = (unsigned int)v;
		break;
	case 'd':
		t->duration = opt_seconds(state, "duration", arg, 0.001, 1e6);
		break;
	default:
		return filter_opt_parse(key, arg, state, &t->o);
	}
	return 0;
}

const struct argp snoop_trace_argp = { trace_options, trace_parse, NULL, NULL, NULL, NULL, NULL };

static const struct argp_option snoop_options[] = {
	{ "json", OPT_JSON, NULL, 0, "One JSON object per line", 0 },
	{ "sample", OPT_FILTER_SAMPLE, "N", 0, "Follow 1 request in N, chosen at random in the "
	  "kernel (the summary gives the coverage)", 0 },
	{ "stages", OPT_STAGES, NULL, 0, "Split each request's latency into stages: submit, "
	  "io-wq, block queue, device, completion, reap", 0 },
	{ 0 },
};

static const char snoop_doc[] =
	"Print one line per finished libaio or io_uring request: time, comm, pid, api\n"
	"(aio, uring), op, device (major:minor) and inode, offset, bytes, result, lat\n"
	"(submit -> complete), reap (complete -> the io_getevents that returned it; for\n"
	"io_uring, -> the first io_uring_enter on the ring that found the CQ head past\n"
	"it; '-' when none did), state.\n"
	"A summary (events, lost events) ends the output on stderr.\n"
	"\v"
	"Examples:\n"
	"  aioscope snoop                       # every request, until Ctrl-C\n"
	"  aioscope snoop -p 1234 -d 10         # process 1234, for 10 seconds\n"
	"  aioscope snoop --dev /dev/aiodev0    # requests to one device\n"
	"  aioscope snoop --min-lat-us 1000     # requests slower than 1 ms\n"
	"  aioscope snoop --sample 100          # 1 request in 100, at high rates\n"
	"  aioscope snoop --stages --dev /dev/nvme0n1  # where each request's time went\n"
	"  aioscope snoop --json | jq .lat_ns   # JSON lines\n";

static error_t snoop_parse(int key, char *arg, struct argp_state *state)
{
	struct snoop_env *env = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &env->t;
		break;
	case OPT_JSON:
		env->json = true;
		break;
	case OPT_STAGES:
		env->stages = true;
		env->t.o.stages = true;
		break;
	case OPT_FILTER_SAMPLE:
		return filter_opt_parse(key, arg, state, &env->t.o);
	case ARGP_KEY_ARG:
		opt_unexpected(state, arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Which paths --stages can see into (stderr, once at start). */
static void stages_report(struct tracer *t, FILE *f)
{
	unsigned int m = tracer_stage_joins(t);
	const char *sep = "";

	if (!m) {
		fprintf(f, "stages: no join on this kernel (see -v): device stages of aiodev "
			"requests only\n");
		return;
	}
	fprintf(f, "stages: joins ");
	for (int j = 0; j < TRACER_JOIN_NR; j++) {
		if (m & (1U << j)) {
			fprintf(f, "%s%s", sep, tracer_join_name((enum tracer_join)j));
			sep = ", ";
		}
	}
	fprintf(f, "\n");
}

/* "stage_joins": ["blkdev-async", ...] */
static void stages_json(struct tracer *t, struct aio_json *j)
{
	unsigned int m = tracer_stage_joins(t);

	aio_json_name(j, "stage_joins");
	aio_json_start_array(j);
	for (int k = 0; k < TRACER_JOIN_NR; k++)
		if (m & (1U << k))
			aio_json_string(j, tracer_join_name((enum tracer_join)k));
	aio_json_end_array(j);
}

static int print_event(void *ctx, const struct tracer_event *e)
{
	struct snoop_env *env = ctx;
	char line[SNOOP_LINE_MAX];
	size_t n;

	env->events++;
	n = (env->stages ? snoop_stage_line : snoop_line)(line, sizeof(line), e, env->json,
							  (uint64_t)env->mono_to_real,
							  env->start_mono);
	fwrite(line, 1, n, stdout);
	return 0;
}

static uint64_t lost_total(const struct tracer_drops *d)
{
	return d->ringbuf_lost + d->inflight_full + d->join_lost + d->prog_misses +
	       d->reap_unread;
}

static void summary(struct snoop_env *env, struct tracer *t)
{
	struct tracer_drops d;

	tracer_drops(t, &d);
	fprintf(stderr,
		"%llu events, %llu lost events (ring buffer %llu, in-flight map full %llu, "
		"join %llu, program misses %llu, reaps unread %llu); completions not seen, "
		"reconciled %llu; mode %s\n",
		(unsigned long long)env->events, (unsigned long long)lost_total(&d),
		(unsigned long long)d.ringbuf_lost, (unsigned long long)d.inflight_full,
		(unsigned long long)d.join_lost, (unsigned long long)d.prog_misses,
		(unsigned long long)d.reap_unread, (unsigned long long)d.reconciled,
		tracer_mode_name(t));
	sample_report(stderr, env->t.o.sample, &d);
	if (env->json) {
		struct aio_json *j = &env->j;

		aio_json_start_object(j);
		aio_json_name(j, "summary");
		aio_json_start_object(j);
		aio_json_string_field(j, "mode", tracer_mode_name(t));
		aio_json_bool_field(j, "io_uring", tracer_has_uring(t));
		tracer_hooks_json(t, j);
		aio_json_u64_field(j, "events", env->events);
		aio_json_u64_field(j, "lost", lost_total(&d));
		aio_json_u64_field(j, "ringbuf_lost", d.ringbuf_lost);
		aio_json_u64_field(j, "inflight_full", d.inflight_full);
		aio_json_u64_field(j, "join_lost", d.join_lost);
		aio_json_u64_field(j, "prog_misses", d.prog_misses);
		aio_json_u64_field(j, "unmatched_complete", d.unmatched_complete);
		aio_json_u64_field(j, "unmatched_reap", d.unmatched_reap);
		aio_json_u64_field(j, "reap_unread", d.reap_unread);
		aio_json_u64_field(j, "reconciled", d.reconciled);
		aio_json_u64_field(j, "rescued", d.rescued);
		aio_json_u64_field(j, "twin_skips", d.twin_skips);
		sample_json(j, env->t.o.sample, &d);
		if (env->stages)
			stages_json(t, j);
		aio_json_end_object(j);
		aio_json_end_object(j);
	}
}

int cmd_snoop(int argc, char **argv)
{
	static const struct argp_child children[] = { { &snoop_trace_argp, 0, NULL, 0 }, { 0 } };
	static const struct argp argp = { snoop_options, snoop_parse, NULL, snoop_doc,
					  children, NULL, NULL };
	struct snoop_env env = { 0 };
	struct tracer *t = NULL;
	struct timespec rt;
	char err[256];
	uint64_t end = 0;
	int rc;

	env.t.o.events = true;
	rc = argp_parse(&argp, argc, argv, 0, NULL, &env);
	if (rc)
		return EXIT_USAGE;
	env.t.o.event_reap = !env.t.no_reap;

	rc = tracer_open(&t, &env.t.o, err, sizeof(err));
	if (rc) {
		p_err("%s", err);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	out_stream();	/* flushed after each poll (every 100 ms at most) */
	aio_json_init(&env.j, stdout, false);
	env.start_mono = tracer_now_ns();
	clock_gettime(CLOCK_REALTIME, &rt);
	env.mono_to_real = (int64_t)((uint64_t)rt.tv_sec * 1000000000ULL + rt.tv_nsec) -
			   (int64_t)env.start_mono;
	if (env.t.o.verbose)
		tracer_describe(t, stderr);
	fprintf(stderr, "Tracing asynchronous I/O (mode %s)... Hit Ctrl-C to end.\n",
		tracer_mode_name(t));
	if (env.stages)
		stages_report(t, stderr);
	if (!env.json)
		(env.stages ? snoop_stage_header : snoop_header)(stdout);
	if (env.t.duration > 0)
		end = env.start_mono + (uint64_t)(env.t.duration * 1e9);

	rc = 0;
	while (!exiting) {
		int timeout = 100;

		if (end) {
			uint64_t now = tracer_now_ns();

			if (now >= end)
				break;
			if ((end - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((end - now) / 1000000) + 1;
		}
		rc = tracer_poll(t, timeout, print_event, &env);
		fflush(stdout);
		if (rc < 0) {
			p_err("reading events: %s", strerror(-rc));
			break;
		}
		rc = 0;
	}
	/* requests finished but not reaped yet are printed with reap "-" */
	tracer_poll(t, 0, print_event, &env);
	tracer_flush(t, print_event, &env);
	summary(&env, t);
	tracer_close(t);
	return rc ? EXIT_RUNTIME : EXIT_OK;
}
