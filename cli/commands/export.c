// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope export FILE --perfetto OUT.json: a recording in the Chrome / Perfetto
 * JSON trace format (the "Trace Event Format"), which ui.perfetto.dev and
 * chrome://tracing open.
 *
 * Asynchronous requests overlap, and a track of complete ("X") events must nest, so
 * each submitting thread and each device gets as many lanes (tracks) as it had
 * requests in flight at once: a request goes to the first lane free at its submit
 * time. A request is a slice from submit to completion, with aiodev's own time as a
 * slice inside it; its reap is an instant on the thread's "reaps" track; queue-depth
 * samples are counters of each device and aio context. Events are written track by
 * track in time order, so every track's timestamps increase.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "core/json.h"
#include "recording.h"

#define PID_DEVICES	0x40000000	/* the synthetic process of a device: | its index */
#define PID_CONTEXTS	0x3fffffff	/* the synthetic process of the aio contexts */
#define TID_REAPS	0x20000000	/* a thread's reaps track: | its tid */
#define LANE_SHIFT	22		/* a lane's tid: lane << 22 | tid (tids < 2^22) */

struct export_env {
	const char *file;
	const char *out;
};

enum { OPT_PERFETTO = OPT_CMD_BASE };

static const struct argp_option export_options[] = {
	{ "perfetto", OPT_PERFETTO, "OUT.json", 0,
	  "Write a Chrome/Perfetto JSON trace to OUT.json ('-': stdout; required)", 0 },
	{ 0 },
};

static const char export_doc[] =
	"Write a recording (aioscope record) as a trace for ui.perfetto.dev and\n"
	"chrome://tracing: a track per submitting thread (a lane per request it had in\n"
	"flight at once) and per device, a slice per request from submit to completion\n"
	"with aiodev's own time inside it, each reap as an instant, and the queue depth\n"
	"of each device and aio context as counters. Times are microseconds from the\n"
	"start of the recording.\n"
	"\v"
	"Exit status: 0 ok, 1 the recording cannot be read or the trace not written,\n"
	"2 usage error.\n\n"
	"Examples:\n"
	"  aioscope export io.rec --perfetto io.json    # then open it in ui.perfetto.dev\n";

static error_t export_parse(int key, char *arg, struct argp_state *state)
{
	struct export_env *env = state->input;

	switch (key) {
	case OPT_PERFETTO:
		env->out = arg;
		break;
	default:
		return opt_file_out(key, arg, state, &env->file, &env->out, "--perfetto OUT.json");
	}
	return 0;
}

/* A request on a lane: the index of its event, and the lane's track id. */
struct placed {
	size_t i;
	uint32_t track;		/* pid's lane tid, or the device's lane */
	uint32_t pid;		/* the track's process */
};

static int cmp_submit(const void *a, const void *b, void *ctx)
{
	const struct tracer_event *ev = ctx;
	const struct tracer_event *x = &ev[*(const size_t *)a], *y = &ev[*(const size_t *)b];

	if (x->submit_ns != y->submit_ns)
		return x->submit_ns < y->submit_ns ? -1 : 1;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/*
 * The lanes of one owner (a thread or a device): a min-heap of when each is free
 * again. A request takes the lane that frees first if it is free at its submit,
 * else a new one: no two requests of a lane overlap, in O(log lanes) each.
 */
struct lane_heap {
	uint64_t *free_at;
	uint32_t *lane;
	size_t n, cap;
	uint32_t nlanes;
};

static void heap_swap(struct lane_heap *h, size_t a, size_t b)
{
	uint64_t f = h->free_at[a];
	uint32_t l = h->lane[a];

	h->free_at[a] = h->free_at[b];
	h->lane[a] = h->lane[b];
	h->free_at[b] = f;
	h->lane[b] = l;
}

static void heap_down(struct lane_heap *h, size_t i)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1, r = l + 1;

		if (l < h->n && h->free_at[l] < h->free_at[m])
			m = l;
		if (r < h->n && h->free_at[r] < h->free_at[m])
			m = r;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

static int lane_take(struct lane_heap *h, uint64_t start, uint64_t end, uint32_t *lane)
{
	size_t i;

	if (h->n && h->free_at[0] <= start) {
		*lane = h->lane[0];
		h->free_at[0] = end;
		heap_down(h, 0);
		return 0;
	}
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 16;
		uint64_t *f = realloc(h->free_at, nc * sizeof(*f));
		uint32_t *l;

		if (!f)
			return -ENOMEM;
		h->free_at = f;
		l = realloc(h->lane, nc * sizeof(*l));
		if (!l)
			return -ENOMEM;
		h->lane = l;
		h->cap = nc;
	}
	i = h->n++;
	h->free_at[i] = end;
	h->lane[i] = *lane = h->nlanes++;
	while (i && h->free_at[(i - 1) / 2] > h->free_at[i]) {	/* up */
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

/* A request's owner on either side: its thread (pid, tid) or its device. */
static uint64_t thread_of(const struct tracer_event *e)
{
	return (uint64_t)(uint32_t)e->pid << 32 | ((uint32_t)e->tid & ((1U << LANE_SHIFT) - 1));
}

struct by_owner {
	const struct tracer_event *ev;
	bool dev;
};

static uint64_t owner_of(const struct by_owner *b, const struct tracer_event *e)
{
	return b->dev ? e->dev : thread_of(e);
}

/* By owner, then by submit time. */
static int cmp_owner(const void *a, const void *b, void *ctx)
{
	const struct by_owner *bo = ctx;
	const struct tracer_event *x = &bo->ev[*(const size_t *)a], *y = &bo->ev[*(const size_t *)b];
	uint64_t ox = owner_of(bo, x), oy = owner_of(bo, y);

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return cmp_submit(a, b, (void *)bo->ev);
}

/* By track (process, then lane), then by submit time: each track in time order. */
static int cmp_placed(const void *a, const void *b, void *ctx)
{
	const struct placed *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	return cmp_submit(&x->i, &y->i, ctx);
}

/* The index of @dev in the sorted distinct devices @devs, for its synthetic pid. */
static uint32_t dev_index(const uint32_t *devs, size_t ndev, uint32_t dev)
{
	size_t lo = 0, hi = ndev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (devs[mid] < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;	/* every device is in @devs (all_devices()) */
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Every device the requests and the queue-depth samples name, sorted, once each. */
static size_t all_devices(const struct recording *in, uint32_t *devs)
{
	size_t n = 0, u = 0;

	for (size_t i = 0; i < in->nev; i++)
		devs[n++] = in->ev[i].dev;
	for (size_t k = 0; k < in->nqd; k++)
		if (in->qd[k].kind == AIOS_QD_DEV)
			devs[n++] = (uint32_t)in->qd[k].key;
	qsort(devs, n, sizeof(*devs), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (!u || devs[u - 1] != devs[i])
			devs[u++] = devs[i];
	return u;
}

static void meta(struct aio_json *j, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
	aio_json_start_object(j);
	aio_json_string_field(j, "ph", "M");
	aio_json_string_field(j, "name", what);
	aio_json_u64_field(j, "pid", pid);
	aio_json_u64_field(j, "tid", tid);
	aio_json_name(j, "args");
	aio_json_start_object(j);
	aio_json_string_field(j, "name", name);
	aio_json_end_object(j);
	aio_json_end_object(j);
}

static void slice(struct aio_json *j, const struct recording *in, const char *name, const char *cat,
		  uint32_t pid, uint32_t tid, uint64_t start, uint64_t end,
		  const struct tracer_event *e)
{
	char dev[32];

	aio_json_start_object(j);
	aio_json_string_field(j, "ph", "X");
	aio_json_string_field(j, "name", name);
	aio_json_string_field(j, "cat", cat);
	aio_json_u64_field(j, "pid", pid);
	aio_json_u64_field(j, "tid", tid);
	aio_json_double_field(j, "ts", recording_us(in, start));
	aio_json_double_field(j, "dur", (double)(end > start ? end - start : 0) / 1000.0);
	if (e) {
		aio_json_name(j, "args");
		aio_json_start_object(j);
		aio_json_hex_field(j, "id", e->id);
		aio_json_string_field(j, "api", tracer_api_name(e->api));
		aio_json_string_field(j, "state", tracer_state_name(e->state));
		aio_json_string_field(j, "dev", tracer_dev_str(e->dev, dev, sizeof(dev)));
		aio_json_s64_field(j, "offset", e->offset);
		aio_json_u64_field(j, "bytes", e->bytes);
		aio_json_s64_field(j, "res", e->res);
		aio_json_u64_field(j, "pid", (uint32_t)e->pid);
		aio_json_u64_field(j, "tid", (uint32_t)e->tid);
		aio_json_string_field(j, "comm", e->comm);
		if (e->ctx)
			aio_json_hex_field(j, "ctx", e->ctx);
		aio_json_end_object(j);
	}
	aio_json_end_object(j);
}

/* One request's slice and, inside it, aiodev's own time (which ends at completion). */
static void request(struct aio_json *j, const struct recording *in, const struct tracer_event *e,
		    uint32_t pid, uint32_t tid)
{
	char name[64];

	snprintf(name, sizeof(name), "%s %llu", tracer_op_name(e->op),
		 (unsigned long long)e->bytes);
	slice(j, in, name, "request", pid, tid, e->submit_ns, e->ts_ns, e);
	if (e->driver_ns != TRACER_DRIVER_NONE && e->driver_ns <= e->ts_ns - e->submit_ns)
		slice(j, in, "driver", "driver", pid, tid, e->ts_ns - e->driver_ns, e->ts_ns, NULL);
}

struct reap {
	uint64_t ts;
	uint32_t pid, tid;
	size_t i;
};

static int cmp_reap(const void *a, const void *b)
{
	const struct reap *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The reaps: an instant per request on its thread's reaps track, in time order. */
static int write_reaps(struct aio_json *j, const struct recording *in)
{
	struct reap *r = calloc(in->nev ? in->nev : 1, sizeof(*r));
	size_t n = 0;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < in->nev; i++) {
		const struct tracer_event *e = &in->ev[i];

		if (e->reap_ns == TRACER_REAP_NONE)
			continue;
		r[n++] = (struct reap){ .ts = e->ts_ns + e->reap_ns, .pid = (uint32_t)e->pid,
					.tid = (uint32_t)e->tid, .i = i };
	}
	qsort(r, n, sizeof(*r), cmp_reap);
	for (size_t k = 0; k < n; k++) {
		const struct tracer_event *e = &in->ev[r[k].i];
		char name[48];

		if (!k || r[k].pid != r[k - 1].pid || r[k].tid != r[k - 1].tid) {
			snprintf(name, sizeof(name), "%s %u reaps", e->comm, r[k].tid);
			meta(j, "thread_name", r[k].pid, TID_REAPS | r[k].tid, name);
		}
		aio_json_start_object(j);
		aio_json_string_field(j, "ph", "i");
		aio_json_string_field(j, "s", "t");
		aio_json_string_field(j, "name", "reap");
		aio_json_string_field(j, "cat", "reap");
		aio_json_u64_field(j, "pid", r[k].pid);
		aio_json_u64_field(j, "tid", TID_REAPS | r[k].tid);
		aio_json_double_field(j, "ts", recording_us(in, r[k].ts));
		aio_json_name(j, "args");
		aio_json_start_object(j);
		aio_json_hex_field(j, "id", e->id);
		aio_json_double_field(j, "reap_us", (double)e->reap_ns / 1000.0);
		aio_json_end_object(j);
		aio_json_end_object(j);
	}
	free(r);
	return 0;
}

/* Queue-depth counters: per device under its process, per context under one process. */
static void write_qd(struct aio_json *j, const struct recording *in, const uint32_t *devs,
		     size_t ndev)
{
	bool ctx_named = false;
	char name[64];

	for (size_t k = 0; k < in->nqd; k++) {
		const struct recfile_qd *q = &in->qd[k];
		uint32_t pid;

		if (q->kind == AIOS_QD_DEV) {
			pid = PID_DEVICES | dev_index(devs, ndev, (uint32_t)q->key);
			snprintf(name, sizeof(name), "queue depth");
		} else if (q->kind == AIOS_QD_CTX) {
			if (!ctx_named) {
				meta(j, "process_name", PID_CONTEXTS, 0, "aio contexts");
				ctx_named = true;
			}
			pid = PID_CONTEXTS;
			snprintf(name, sizeof(name), "ctx 0x%llx in flight", (unsigned long long)q->key);
		} else {
			continue;
		}
		aio_json_start_object(j);
		aio_json_string_field(j, "ph", "C");
		aio_json_string_field(j, "name", name);
		aio_json_u64_field(j, "pid", pid);
		aio_json_u64_field(j, "tid", 0);
		aio_json_double_field(j, "ts", recording_us(in, q->ts_ns));
		aio_json_name(j, "args");
		aio_json_start_object(j);
		aio_json_s64_field(j, "inflight", q->now);
		aio_json_u64_field(j, "max", q->max);
		aio_json_end_object(j);
		aio_json_end_object(j);
	}
}

/*
 * The requests twice, on their threads' lanes and on their devices' lanes; each
 * group of tracks named once, before its first event.
 */
static int write_requests(struct aio_json *j, const struct recording *in, const uint32_t *devs,
			  size_t ndev)
{
	size_t n = in->nev, *order = malloc((n ? n : 1) * sizeof(*order));
	struct placed *p = malloc((n ? 2 * n : 1) * sizeof(*p));
	struct lane_heap h = { 0 };
	size_t np = 0;
	int ret = -ENOMEM;

	if (!order || !p)
		goto out;
	for (int side = 0; side < 2; side++) {
		struct by_owner bo = { .ev = in->ev, .dev = side };

		for (size_t i = 0; i < n; i++)
			order[i] = i;
		qsort_r(order, n, sizeof(*order), cmp_owner, &bo);
		for (size_t k = 0; k < n; k++) {
			const struct tracer_event *e = &in->ev[order[k]];
			uint64_t end = e->ts_ns > e->submit_ns ? e->ts_ns : e->submit_ns;
			uint32_t lane;

			if (k && owner_of(&bo, e) != owner_of(&bo, &in->ev[order[k - 1]])) {
				h.n = 0;	/* a new owner: its own lanes */
				h.nlanes = 0;
			}
			if (lane_take(&h, e->submit_ns, end, &lane))
				goto out;
			p[np++] = side ? (struct placed){ .i = order[k], .track = lane,
							  .pid = PID_DEVICES |
								 dev_index(devs, ndev, e->dev) } :
					 (struct placed){ .i = order[k], .pid = (uint32_t)e->pid,
							  .track = lane << LANE_SHIFT |
								   (uint32_t)thread_of(e) };
		}
	}
	qsort_r(p, np, sizeof(*p), cmp_placed, in->ev);
	for (size_t k = 0; k < np; k++) {
		const struct tracer_event *e = &in->ev[p[k].i];
		bool dev = p[k].pid & PID_DEVICES;
		char name[64], d[32];

		if (!k || p[k].pid != p[k - 1].pid) {
			if (dev)
				snprintf(name, sizeof(name), "device %s",
					 tracer_dev_str(e->dev, d, sizeof(d)));
			else
				snprintf(name, sizeof(name), "%s (%u)", e->comm, p[k].pid);
			meta(j, "process_name", p[k].pid, 0, name);
		}
		if (!k || p[k].pid != p[k - 1].pid || p[k].track != p[k - 1].track) {
			if (dev)
				snprintf(name, sizeof(name), "requests #%u", p[k].track);
			else
				snprintf(name, sizeof(name), "%s %u #%u", e->comm,
					 p[k].track & ((1U << LANE_SHIFT) - 1), p[k].track >> LANE_SHIFT);
			meta(j, "thread_name", p[k].pid, p[k].track, name);
		}
		request(j, in, e, p[k].pid, p[k].track);
	}
	ret = 0;
out:
	free(h.free_at);
	free(h.lane);
	free(order);
	free(p);
	return ret;
}

static int write_trace(FILE *f, const struct recording *in)
{
	uint32_t *devs = malloc((in->nev + in->nqd + 1) * sizeof(*devs));
	size_t ndev = 0;
	struct aio_json j;
	int ret;

	if (!devs)
		return -ENOMEM;
	aio_json_init(&j, f, false);
	aio_json_start_object(&j);
	aio_json_string_field(&j, "displayTimeUnit", "ns");
	aio_json_name(&j, "otherData");
	aio_json_start_object(&j);
	aio_json_string_field(&j, "source", "aioscope record");
	aio_json_string_field(&j, "host", in->hdr.host);
	aio_json_string_field(&j, "kernel", in->hdr.kernel);
	aio_json_string_field(&j, "mode", in->hdr.mode);
	aio_json_u64_field(&j, "start_wall_ns", in->hdr.start_real_ns);
	aio_json_u64_field(&j, "requests", in->nev);
	aio_json_end_object(&j);
	aio_json_name(&j, "traceEvents");
	aio_json_start_array(&j);
	ndev = all_devices(in, devs);
	ret = write_requests(&j, in, devs, ndev);
	if (!ret)
		ret = write_reaps(&j, in);
	if (!ret)
		write_qd(&j, in, devs, ndev);
	aio_json_end_array(&j);
	aio_json_end_object(&j);
	free(devs);
	if (!ret)
		ret = aio_json_error(&j);
	return ret;
}

int cmd_export(int argc, char **argv)
{
	static const struct argp argp = { export_options, export_parse, "FILE", export_doc,
					  NULL, NULL, NULL };
	struct export_env env = { 0 };
	struct recording in;
	FILE *f;
	int ret;

	if (argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	ret = recording_load(env.file, &in);
	if (ret)
		return ret;
	f = out_open(env.out);
	if (!f) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	ret = out_close(f, env.out, write_trace(f, &in));
	if (!ret)
		fprintf(stderr, "%zu requests and %zu queue-depth samples from %s to %s\n", in.nev, in.nqd,
		env.file, env.out);
out:
	recording_free(&in);
	return ret;
}
