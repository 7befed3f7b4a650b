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
#include "format.h"
#include "json.h"
#include "tracer.h"

struct snoop_env {
	struct tracer_opts o;
	bool json;
	double duration;
	bool no_reap;
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

enum { OPT_JSON = OPT_CMD_BASE, OPT_NOREAP, OPT_RINGBUF };

static const struct argp_option snoop_options[] = {
	{ "pid", 'p', "PID", 0, "Only requests submitted by this process (tgid)", 0 },
	{ "dev", OPT_FILTER_DEV, "PATH", 0, "Only this device node, this file, or (a directory) "
	  "this filesystem", 0 },
	{ "comm", OPT_FILTER_COMM, "NAME", 0, "Only requests submitted by tasks named NAME", 0 },
	{ "cgroup", OPT_FILTER_CGROUP, "PATH", 0, "Only tasks in this cgroup v2 (and below)", 0 },
	{ "min-lat-us", OPT_FILTER_MINLAT, "N", 0, "Only requests with lat >= N microseconds", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per line", 0 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS (default: until Ctrl-C)", 0 },
	{ "no-reap", OPT_NOREAP, NULL, 0, "Print at completion, without waiting for the reap", 0 },
	{ "mode", OPT_FILTER_MODE, "MODE", 0, "Force the attach mode: fentry, kprobe or syscalls", 0 },
	{ "ringbuf-mb", OPT_RINGBUF, "MB", 0, "Ring buffer size (default 16)", 0 },
	{ "verbose", 'v', NULL, 0, "Print the attach mode and libbpf debug output", 0 },
	{ 0 },
};

static const char snoop_doc[] =
	"Print one line per finished libaio or io_uring request: time, comm, pid, api\n"
	"(aio, uring), op, device (major:minor) and inode, offset, bytes, result, lat\n"
	"(submit -> complete), reap (complete -> the io_getevents that returned it; '-'\n"
	"when none did, always for io_uring, whose completions are read from the ring\n"
	"without a syscall), state.\n"
	"A summary (events, lost events) ends the output on stderr.\n"
	"\v"
	"Examples:\n"
	"  aioscope snoop                       # every request, until Ctrl-C\n"
	"  aioscope snoop -p 1234 -d 10         # process 1234, for 10 seconds\n"
	"  aioscope snoop --dev /dev/aiodev0    # requests to one device\n"
	"  aioscope snoop --min-lat-us 1000     # requests slower than 1 ms\n"
	"  aioscope snoop --json | jq .lat_ns   # JSON lines\n";

int filter_opt_parse(int key, char *arg, struct argp_state *state, struct tracer_opts *o)
{
	uint64_t v;
	int i;

	switch (key) {
	case 'p':
		if (parse_int(arg, 1, INT32_MAX, &i))
			argp_error(state, "invalid PID '%s'", arg);
		o->pid = i;
		break;
	case OPT_FILTER_DEV:
		o->dev = arg;
		break;
	case OPT_FILTER_COMM:
		if (!*arg || strlen(arg) >= TRACER_COMM_LEN)
			argp_error(state, "--comm must be 1..%d characters", TRACER_COMM_LEN - 1);
		o->comm = arg;
		break;
	case OPT_FILTER_CGROUP:
		o->cgroup = arg;
		break;
	case OPT_FILTER_MINLAT:
		if (parse_u64(arg, 0, UINT64_MAX / 1000, &v))
			argp_error(state, "invalid --min-lat-us '%s'", arg);
		o->min_lat_ns = v * 1000;
		break;
	case OPT_FILTER_MODE:
		if (parse_mode(arg, &o->mode))
			argp_error(state, "invalid mode '%s' (fentry, kprobe, syscalls)", arg);
		break;
	case 'v':
		o->verbose = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static error_t snoop_parse(int key, char *arg, struct argp_state *state)
{
	struct snoop_env *env = state->input;
	uint64_t v;

	switch (key) {
	case OPT_JSON:
		env->json = true;
		break;
	case 'd':
		if (parse_seconds(arg, false, &env->duration))
			argp_error(state, "invalid duration '%s'", arg);
		break;
	case OPT_NOREAP:
		env->no_reap = true;
		break;
	case OPT_RINGBUF:
		if (parse_u64(arg, 1, 1024, &v) || (v & (v - 1)))
			argp_error(state, "--ringbuf-mb must be a power of two in 1..1024");
		env->o.ringbuf_mb = (unsigned int)v;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return filter_opt_parse(key, arg, state, &env->o);
	}
	return 0;
}

/*
 * One JSON line per event, formatted by hand into a buffer: the consumer must keep
 * up with hundreds of thousands of events per second, and a printf per field
 * does not. Field names are constants; only comm needs escaping.
 */
struct jline {
	char *buf;
	size_t len, cap;
};

static void jl_raw(struct jline *l, const char *s)
{
	size_t n = strlen(s);

	if (l->len + n < l->cap) {
		memcpy(l->buf + l->len, s, n);
		l->len += n;
	}
}

static void jl_u64(struct jline *l, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (l->len + (sizeof(tmp) - i) < l->cap) {
		memcpy(l->buf + l->len, tmp + i, sizeof(tmp) - i);
		l->len += sizeof(tmp) - i;
	}
}

static void jl_s64(struct jline *l, int64_t v)
{
	if (v < 0) {
		jl_raw(l, "-");
		jl_u64(l, -(uint64_t)v);
	} else {
		jl_u64(l, (uint64_t)v);
	}
}

static void jl_hex(struct jline *l, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	if (l->len + (sizeof(tmp) - i) < l->cap) {
		memcpy(l->buf + l->len, tmp + i, sizeof(tmp) - i);
		l->len += sizeof(tmp) - i;
	}
}

/* a JSON string, escaped by the core's writer (valid UTF-8 whatever the bytes) */
static void jl_str(struct jline *l, const char *s)
{
	char esc[TRACER_COMM_LEN * 6 + 3];	/* every byte a \uXXXX escape, quotes */

	aio_json_escape(esc, sizeof(esc), s);
	jl_raw(l, esc);
}

/* @s in a column of @width characters (negative: left-aligned), then a space */
static void jl_col(struct jline *l, const char *s, int width)
{
	int n = (int)strlen(s), w = width < 0 ? -width : width;

	if (width > 0)
		for (; n < w && l->len + 1 < l->cap; n++)
			l->buf[l->len++] = ' ';
	jl_raw(l, s);
	if (width < 0)
		for (; n < w && l->len + 1 < l->cap; n++)
			l->buf[l->len++] = ' ';
	jl_raw(l, " ");
}

/* a number as a string, for jl_col */
static const char *s64_str(char *buf, size_t len, int64_t v)
{
	struct jline t = { buf, 0, len };

	jl_s64(&t, v);
	buf[t.len] = '\0';
	return buf;
}

static const char *u64_str(char *buf, size_t len, uint64_t v)
{
	struct jline t = { buf, 0, len };

	jl_u64(&t, v);
	buf[t.len] = '\0';
	return buf;
}

static void print_header(void)
{
	printf("%-12s %-16s %7s %-5s %-6s %-9s %10s %12s %8s %8s %10s %10s %s\n",
	       "TIME(s)", "COMM", "PID", "API", "OP", "DEV", "INO", "OFFSET", "BYTES", "RES",
	       "LAT(us)", "REAP(us)", "STATE");
}

static int print_event(void *ctx, const struct tracer_event *e)
{
	struct snoop_env *env = ctx;
	char dev[24];

	env->events++;
	if (env->json) {
		char line[640];
		struct jline l = { line, 0, sizeof(line) };

		jl_raw(&l, "{\"ts_ns\":");
		jl_u64(&l, e->ts_ns + env->mono_to_real);
		jl_raw(&l, ",\"pid\":");
		jl_s64(&l, e->pid);
		jl_raw(&l, ",\"tid\":");
		jl_s64(&l, e->tid);
		jl_raw(&l, ",\"comm\":");
		jl_str(&l, e->comm);
		jl_raw(&l, ",\"api\":\"");
		jl_raw(&l, tracer_api_name(e->api));
		jl_raw(&l, "\",\"op\":\"");
		jl_raw(&l, tracer_op_name(e->op));
		jl_raw(&l, "\",\"dev\":\"");
		jl_raw(&l, tracer_dev_str(e->dev, dev, sizeof(dev)));
		jl_raw(&l, "\",\"ino\":");
		jl_u64(&l, e->ino);
		jl_raw(&l, ",\"offset\":");
		jl_s64(&l, e->offset);
		jl_raw(&l, ",\"bytes\":");
		jl_u64(&l, e->bytes);
		jl_raw(&l, ",\"res\":");
		jl_s64(&l, e->res);
		jl_raw(&l, ",\"lat_ns\":");
		jl_u64(&l, e->lat_ns);
		jl_raw(&l, ",\"reap_ns\":");
		if (e->reap_ns == TRACER_REAP_NONE)
			jl_raw(&l, "null");
		else
			jl_u64(&l, e->reap_ns);
		jl_raw(&l, ",\"driver_ns\":");
		if (e->driver_ns == TRACER_DRIVER_NONE)
			jl_raw(&l, "null");
		else
			jl_u64(&l, e->driver_ns);
		jl_raw(&l, ",\"state\":\"");
		jl_raw(&l, tracer_state_name(e->state));
		jl_raw(&l, "\",\"id\":\"");
		jl_hex(&l, e->id);
		jl_raw(&l, "\",\"ctx\":\"");
		jl_hex(&l, e->ctx);
		jl_raw(&l, "\",\"data\":");
		jl_u64(&l, e->data);
		jl_raw(&l, ",\"cancel\":");
		if (e->cancel_pid) {
			jl_raw(&l, "{\"pid\":");
			jl_s64(&l, e->cancel_pid);
			jl_raw(&l, ",\"tid\":");
			jl_s64(&l, e->cancel_tid);
			jl_raw(&l, ",\"ret\":");
			if (e->cancel_ret == TRACER_CANCEL_RET_PENDING)
				jl_raw(&l, "null");	/* completed before io_cancel returned */
			else
				jl_s64(&l, e->cancel_ret);
			jl_raw(&l, ",\"after_ns\":");
			jl_u64(&l, e->cancel_ns);
			jl_raw(&l, "}");
		} else {
			jl_raw(&l, "null");
		}
		jl_raw(&l, "}\n");
		fwrite(line, 1, l.len, stdout);
	} else {
		/*
		 * Built by hand like the JSON line: printf with a dozen conversions cost
		 * about 10 us per line in the VM, where the consumer must keep up with
		 * 100,000 requests per second.
		 */
		char line[512], ts[32], lat[32], reap[32], num[24];
		char comm[TRACER_COMM_LEN * 4];
		struct jline l = { line, 0, sizeof(line) };
		uint64_t rel = e->ts_ns > env->start_mono ? e->ts_ns - env->start_mono : 0;

		if (e->reap_ns == TRACER_REAP_NONE)
			snprintf(reap, sizeof(reap), "-");
		else
			aio_fmt_fixed(reap, sizeof(reap), e->reap_ns, 1000, 1);
		aio_fmt_fixed(ts, sizeof(ts), rel, 1000000000, 6);
		aio_fmt_fixed(lat, sizeof(lat), e->lat_ns, 1000, 1);
		jl_col(&l, ts, -12);
		aio_fmt_term(comm, sizeof(comm), e->comm);	/* no raw control bytes */
		jl_col(&l, comm, -16);
		jl_col(&l, s64_str(num, sizeof(num), e->pid), 7);
		jl_col(&l, tracer_api_name(e->api), -5);
		jl_col(&l, tracer_op_name(e->op), -6);
		jl_col(&l, tracer_dev_str(e->dev, dev, sizeof(dev)), -9);
		jl_col(&l, u64_str(num, sizeof(num), e->ino), 10);
		jl_col(&l, s64_str(num, sizeof(num), e->offset), 12);
		jl_col(&l, u64_str(num, sizeof(num), e->bytes), 8);
		jl_col(&l, s64_str(num, sizeof(num), e->res), 8);
		jl_col(&l, lat, 10);
		jl_col(&l, reap, 10);
		jl_raw(&l, tracer_state_name(e->state));
		jl_raw(&l, "\n");
		fwrite(line, 1, l.len, stdout);
	}
	return 0;
}

static uint64_t lost_total(const struct tracer_drops *d)
{
	return d->ringbuf_lost + d->inflight_full + d->join_lost + d->prog_misses;
}

static void summary(struct snoop_env *env, struct tracer *t)
{
	struct tracer_drops d;

	tracer_drops(t, &d);
	fprintf(stderr,
		"%llu events, %llu lost events (ring buffer %llu, in-flight map full %llu, "
		"join %llu, program misses %llu); mode %s\n",
		(unsigned long long)env->events, (unsigned long long)lost_total(&d),
		(unsigned long long)d.ringbuf_lost, (unsigned long long)d.inflight_full,
		(unsigned long long)d.join_lost, (unsigned long long)d.prog_misses,
		tracer_mode_name(t));
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
		aio_json_u64_field(j, "rescued", d.rescued);
		aio_json_u64_field(j, "twin_skips", d.twin_skips);
		aio_json_end_object(j);
		aio_json_end_object(j);
	}
}

int cmd_snoop(int argc, char **argv)
{
	static const struct argp argp = { snoop_options, snoop_parse, NULL, snoop_doc,
					  NULL, NULL, NULL };
	struct snoop_env env = { 0 };
	struct tracer *t = NULL;
	struct timespec rt;
	char err[256];
	uint64_t end = 0;
	int rc;

	env.o.events = true;
	rc = argp_parse(&argp, argc, argv, 0, NULL, &env);
	if (rc)
		return EXIT_USAGE;
	env.o.event_reap = !env.no_reap;

	rc = tracer_open(&t, &env.o, err, sizeof(err));
	if (rc) {
		p_err("%s", err);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* a terminal gets each line at once; a pipe or file gets full buffers,
	 * flushed after each poll (every 100 ms at most) */
	setvbuf(stdout, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, 1 << 16);
	aio_json_init(&env.j, stdout, false);
	env.start_mono = tracer_now_ns();
	clock_gettime(CLOCK_REALTIME, &rt);
	env.mono_to_real = (int64_t)((uint64_t)rt.tv_sec * 1000000000ULL + rt.tv_nsec) -
			   (int64_t)env.start_mono;
	if (env.o.verbose)
		tracer_describe(t, stderr);
	fprintf(stderr, "Tracing asynchronous I/O (mode %s)... Hit Ctrl-C to end.\n",
		tracer_mode_name(t));
	if (!env.json)
		print_header();
	if (env.duration > 0)
		end = env.start_mono + (uint64_t)(env.duration * 1e9);

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
