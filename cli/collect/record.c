// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - ring-buffer records: decoding and the completion/reap join (record.h).
 * Also the names of what an event holds (op, api, state, device), declared in
 * tracer.h. Plain C, no libbpf: the fuzz target tests/fuzz/fuzz_record.c runs it as is.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "aioscope.h"
#include "core/format.h"
#include "record.h"


/* A finished request waiting for its reap record (snoop: opts.event_reap). */
struct join_key {
	uint64_t id, aux;		/* obj, aios_aux(ctx, pid) */
};

struct tracer_join_ent {
	struct join_key k;
	bool used;
	struct tracer_event ev;
};

static inline __u64 join_hash(const void *key)
{
	const struct join_key *k = key;

	return (k->id ^ (k->aux * 0x9E3779B97F4A7C15ULL)) * 0xff51afd7ed558ccdULL;
}

static inline bool join_eq(const void *entry, const void *key)
{
	const struct join_key *a = entry, *b = key;

	return a->id == b->id && a->aux == b->aux;
}

/* open addressing (core/oatable.h), at most half full */
static const struct oat_type join_type =
	OAT_TYPE(struct tracer_join_ent, join_hash, join_eq, used, 256, 50);

static void req_to_event(const struct aios_req *r, struct tracer_event *e)
{
	memset(e, 0, sizeof(*e));
	e->submit_ns = r->ts;
	e->id = r->id;
	e->ctx = r->ctx;
	e->obj = r->obj;
	e->data = r->data;
	e->ino = r->ino;
	e->offset = r->offset;
	e->bytes = r->len;
	e->dev = r->dev;
	e->qd = r->qd;
	e->pid = (int32_t)r->pid;
	e->tid = (int32_t)r->tid;
	e->api = (enum aios_api)r->api;
	e->op = (enum aios_op)r->op;
	e->driver_ns = (r->flags & AIOS_F_DRIVER) ? r->driver_ns : TRACER_DRIVER_NONE;
	e->queue_ts = r->queue_ts;
	e->issue_ts = r->issue_ts;
	e->device_ts = r->devdone_ts;
	e->bios = r->bios;
	e->punt_ts = r->punt_ts;
	e->worker_ts = r->worker_ts;
	/* aiodev: its own time ends where the driver completed it */
	if (!e->device_ts && (r->flags & AIOS_F_DRIVER) && r->done_ts >= r->ts &&
	    r->done_ts - r->ts >= r->driver_ns) {
		e->device_ts = r->done_ts;
		e->issue_ts = r->done_ts - r->driver_ns;
	}
	memcpy(e->comm, r->comm, TRACER_COMM_LEN);
	e->comm[TRACER_COMM_LEN - 1] = 0;
}

static int deliver(struct tracer_rx *t, const struct tracer_event *e)
{
	int r;

	if (t->cb_ret)
		return t->cb_ret;
	r = t->cb ? t->cb(t->cb_ctx, e) : 0;
	t->delivered++;
	if (r)
		t->cb_ret = r;
	return r;
}

static void join_put(struct tracer_rx *t, uint64_t id, uint64_t aux, const struct tracer_event *e)
{
	struct join_key key = { .id = id, .aux = aux };
	struct tracer_join_ent *j;
	bool found;

	j = oat_get(&t->join, &join_type, &key, &found);
	if (!j) {
		t->join_lost++;
		return;
	}
	if (found) {
		/* the same iocb completed twice without a reap: flush the old one */
		deliver(t, &j->ev);
	} else {
		j->k = key;
		j->used = true;
	}
	j->ev = *e;
}

struct sweep_arg {
	struct tracer_rx *rx;
	uint64_t now, min_age_ns;
};

/* oat_sweep's drop: deliver a held completion old enough, with reap "none" */
static bool join_expire(void *entry, void *ctx)
{
	struct tracer_join_ent *j = entry;
	const struct sweep_arg *a = ctx;

	/* an event newer than now (read after the caller took it) is young */
	if (a->min_age_ns && (a->now < j->ev.ts_ns || a->now - j->ev.ts_ns < a->min_age_ns))
		return false;
	deliver(a->rx, &j->ev);
	return true;
}

void tracer_rx_sweep(struct tracer_rx *t, uint64_t now, uint64_t min_age_ns)
{
	struct sweep_arg a = { .rx = t, .now = now, .min_age_ns = min_age_ns };

	oat_sweep(&t->join, &join_type, join_expire, &a);
}

void tracer_rx_free(struct tracer_rx *t)
{
	oat_free(&t->join);
}

/* a held completion reaped at @ts */
static void join_reaped(struct tracer_rx *t, struct tracer_join_ent *je, uint64_t ts)
{
	struct tracer_event out = je->ev;

	out.reap_ns = ts >= out.ts_ns ? ts - out.ts_ns : 0;
	oat_del(&t->join, &join_type, je);
	deliver(t, &out);
}

/*
 * An io_uring ring's CQ head moved from @h->from to @h->to: the CQEs whose tail mark
 * is in between were reaped. Marks of CQEs not traced find nothing, and are not
 * counted (other opcodes, filtered requests). At most a full ring's worth.
 */
static void cq_head_reaped(struct tracer_rx *t, const struct aios_cq_head *h)
{
	uint32_t n = h->to - h->from;

	if (n > AIOS_URING_CQ_MAX)
		n = AIOS_URING_CQ_MAX;
	for (uint32_t i = 1; i <= n && !t->cb_ret; i++) {
		struct join_key k = { (uint32_t)(h->from + i), h->ctx };
		struct tracer_join_ent *je = oat_find(&t->join, &join_type, &k);

		if (je)
			join_reaped(t, je, h->ts);
	}
}

/*
 * Records are copied out before use: libbpf hands out 8-byte aligned records, but
 * nothing here relies on it.
 */
int tracer_rx_record(struct tracer_rx *t, const void *data, size_t size)
{
	uint32_t type;

	if (size < sizeof(uint32_t))
		return 0;
	memcpy(&type, data, sizeof(type));
	if (type == AIOS_REC_DONE && size >= sizeof(struct aios_done)) {
		struct aios_done d;
		struct tracer_event e;

		memcpy(&d, data, sizeof(d));
		req_to_event(&d.req, &e);
		e.ts_ns = d.ts;
		e.lat_ns = d.ts - d.req.ts;
		e.res = d.res;
		e.state = (enum aios_state)d.state;
		e.reap_ns = TRACER_REAP_NONE;
		if (d.cancel_ts) {
			e.cancel_pid = (int32_t)d.cancel_pid;
			e.cancel_tid = (int32_t)d.cancel_tid;
			e.cancel_ret = d.cancel_ret;
			e.cancel_ns = d.cancel_ts - d.req.ts;
		}
		/* io_uring: where the CQ head is sampled, under its CQE's tail mark */
		if (t->join_reap && d.req.api == AIOS_API_AIO)
			join_put(t, d.req.obj, aios_aux(d.req.ctx, d.req.pid), &e);
		else if (t->join_reap && t->join_uring && d.req.api == AIOS_API_URING)
			join_put(t, (uint32_t)d.req.obj, d.req.ctx, &e);
		else
			deliver(t, &e);
	} else if (type == AIOS_REC_CQ_HEAD && size >= sizeof(struct aios_cq_head)) {
		struct aios_cq_head h;

		memcpy(&h, data, sizeof(h));
		cq_head_reaped(t, &h);
	} else if (type == AIOS_REC_REAP && size >= offsetof(struct aios_reap, ev)) {
		const unsigned char *p = data;
		struct aios_reap r;
		uint64_t aux;
		uint32_t n = (size - offsetof(struct aios_reap, ev)) / sizeof(r.ev[0]);

		memcpy(&r, data, offsetof(struct aios_reap, ev));
		aux = aios_aux(r.ctx, r.pid);
		if (r.n < n)
			n = r.n;
		for (uint32_t i = 0; i < n; i++) {
			struct aios_io_event ev;
			struct tracer_join_ent *je;

			memcpy(&ev, p + offsetof(struct aios_reap, ev) + i * sizeof(ev), sizeof(ev));
			je = oat_find(&t->join, &join_type, &(struct join_key){ ev.obj, aux });
			if (!je) {
				t->unmatched_reap += !t->sampling;
				continue;
			}
			join_reaped(t, je, r.ts);
		}
	}
	return t->cb_ret;
}
