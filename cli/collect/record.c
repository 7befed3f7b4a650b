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
struct tracer_join_ent {
	uint64_t id, aux;		/* obj, aios_aux(ctx, pid) */
	bool used;
	struct tracer_event ev;
};

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
	e->api = (enum tracer_api)r->api;
	e->op = (enum tracer_op)r->op;
	e->driver_ns = (r->flags & AIOS_F_DRIVER) ? r->driver_ns : TRACER_DRIVER_NONE;
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

static size_t join_hash(uint64_t id, uint64_t aux, size_t cap)
{
	uint64_t h = (id ^ (aux * 0x9E3779B97F4A7C15ULL)) * 0xff51afd7ed558ccdULL;

	return (size_t)(h >> 17) & (cap - 1);
}

static int join_grow(struct tracer_rx *t)
{
	size_t ncap = t->join_cap ? t->join_cap * 2 : 256;
	struct tracer_join_ent *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < t->join_cap; i++) {
		struct tracer_join_ent *o = &t->join[i];
		size_t j;

		if (!o->used)
			continue;
		for (j = join_hash(o->id, o->aux, ncap); n[j].used; j = (j + 1) & (ncap - 1))
			;
		n[j] = *o;
	}
	free(t->join);
	t->join = n;
	t->join_cap = ncap;
	return 0;
}

static void join_put(struct tracer_rx *t, uint64_t id, uint64_t aux, const struct tracer_event *e)
{
	size_t j;

	if ((t->join_n + 1) * 2 > t->join_cap && join_grow(t)) {
		t->join_lost++;
		return;
	}
	for (j = join_hash(id, aux, t->join_cap); t->join[j].used;
	     j = (j + 1) & (t->join_cap - 1)) {
		if (t->join[j].id == id && t->join[j].aux == aux) {
			/* the same iocb completed twice without a reap: flush the old one */
			deliver(t, &t->join[j].ev);
			t->join[j].ev = *e;
			return;
		}
	}
	t->join[j].used = true;
	t->join[j].id = id;
	t->join[j].aux = aux;
	t->join[j].ev = *e;
	t->join_n++;
}

/* Remove slot j (backward-shift deletion keeps probe chains intact). */
static void join_del(struct tracer_rx *t, size_t j)
{
	size_t mask = t->join_cap - 1, i = j, k;

	t->join[j].used = false;
	t->join_n--;
	for (;;) {
		i = (i + 1) & mask;
		if (!t->join[i].used)
			return;
		k = join_hash(t->join[i].id, t->join[i].aux, t->join_cap);
		/* move i back into j when its home k is not in (j, i] */
		if ((j < i) ? (k <= j || k > i) : (k <= j && k > i)) {
			t->join[j] = t->join[i];
			t->join[i].used = false;
			j = i;
		}
	}
}

static struct tracer_join_ent *join_find(struct tracer_rx *t, uint64_t id, uint64_t aux,
					 size_t *slot)
{
	size_t j;

	if (!t->join_cap)
		return NULL;
	for (j = join_hash(id, aux, t->join_cap); t->join[j].used;
	     j = (j + 1) & (t->join_cap - 1)) {
		if (t->join[j].id == id && t->join[j].aux == aux) {
			*slot = j;
			return &t->join[j];
		}
	}
	return NULL;
}

void tracer_rx_sweep(struct tracer_rx *t, uint64_t now, uint64_t min_age_ns)
{
	size_t j = 0;

	while (j < t->join_cap) {
		struct tracer_join_ent *e = &t->join[j];

		/* an event newer than @now (read after the caller took it) is young */
		if (e->used && (min_age_ns == 0 ||
				(now >= e->ev.ts_ns && now - e->ev.ts_ns >= min_age_ns))) {
			struct tracer_event ev = e->ev;

			join_del(t, j);
			deliver(t, &ev);
			continue;	/* slot j may hold a shifted entry now */
		}
		j++;
	}
}

void tracer_rx_free(struct tracer_rx *t)
{
	free(t->join);
	t->join = NULL;
	t->join_cap = t->join_n = 0;
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
		e.state = (enum tracer_state)d.state;
		e.reap_ns = TRACER_REAP_NONE;
		if (d.cancel_ts) {
			e.cancel_pid = (int32_t)d.cancel_pid;
			e.cancel_tid = (int32_t)d.cancel_tid;
			e.cancel_ret = d.cancel_ret;
			e.cancel_ns = d.cancel_ts - d.req.ts;
		}
		/* io_uring CQEs are reaped from the ring, without a syscall to see */
		if (t->join_reap && d.req.api == AIOS_API_AIO)
			join_put(t, d.req.obj, aios_aux(d.req.ctx, d.req.pid), &e);
		else
			deliver(t, &e);
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
			struct tracer_event out;
			size_t slot;

			memcpy(&ev, p + offsetof(struct aios_reap, ev) + i * sizeof(ev), sizeof(ev));
			je = join_find(t, ev.obj, aux, &slot);
			if (!je) {
				t->unmatched_reap++;
				continue;
			}
			out = je->ev;
			out.reap_ns = r.ts >= out.ts_ns ? r.ts - out.ts_ns : 0;
			join_del(t, slot);
			deliver(t, &out);
		}
	}
	return t->cb_ret;
}
