/* SPDX-License-Identifier: GPL-2.0 */
/* records.bpf.h - the ring buffer's records: finished requests and reaped events (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_RECORDS_BPF_H
#define AIOSCOPE_RECORDS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/* io_cancel calls (LRU: calls that found nothing to cancel age out) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct aios_key);
	__type(value, struct aios_cancel);
} cancels SEC(".maps");

/* A DONE record with its header filled in and no cancel details; NULL (counted) if full. */
static __always_inline struct aios_done *reserve_done(__u64 now, __s64 res, __u32 state,
						      __u64 reap_ns)
{
	struct aios_done *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		drop(AIOS_DROP_RINGBUF);
		return NULL;
	}
	e->type = AIOS_REC_DONE;
	e->state = state;
	e->ts = now;
	e->res = res;
	e->reap_ns = reap_ns;
	e->cancel_ts = 0;
	e->cancel_ret = 0;
	e->cancel_pid = 0;
	e->cancel_tid = 0;
	return e;
}

static __always_inline void emit_done(struct aios_req *r, __u64 now, __s64 res, __u32 state,
				      __u64 reap_ns)
{
	struct aios_done *e = reserve_done(now, res, state, reap_ns);

	if (!e)
		return;
	if (state == AIOS_CANCELLED && want_cancel) {
		/* only cancelled requests pay for this lookup */
		struct aios_key k = { .id = r->obj, .aux = aios_aux(r->ctx, r->pid) };
		struct aios_cancel *c = bpf_map_lookup_elem(&cancels, &k);

		if (c && c->ts >= r->ts) {
			e->cancel_ts = c->ts;
			e->cancel_ret = c->ret;
			e->cancel_pid = c->pid;
			e->cancel_tid = c->tid;
		}
		if (c)
			bpf_map_delete_elem(&cancels, &k);
	}
	__builtin_memcpy(&e->req, r, sizeof(*r));
	bpf_ringbuf_submit(e, rb_flags());
}

struct reap_ctx {
	__u64 now;
	__u64 ctx;
	__u64 events;
	__u32 tgid;
	__u32 n;
};

/*
 * REAP records: the events as the application got them, up to 32 per record,
 * reserved in the ring buffer and filled in place. A per-CPU scratch buffer would
 * not do: a preempted reaper's half-built record can be overwritten by another
 * reaper on the same CPU. The reserved size must be a constant, so it is the
 * smallest of 4, 8, 16 or 32 events that holds them; user space reads n.
 */
#define REAP_REC_SIZE(n) (offsetof(struct aios_reap, ev) + (n) * sizeof(struct aios_io_event))

static __always_inline struct aios_reap *reap_reserve(__u32 cnt)
{
	if (cnt <= 4)
		return bpf_ringbuf_reserve(&events, REAP_REC_SIZE(4), 0);
	if (cnt <= 8)
		return bpf_ringbuf_reserve(&events, REAP_REC_SIZE(8), 0);
	if (cnt <= 16)
		return bpf_ringbuf_reserve(&events, REAP_REC_SIZE(16), 0);
	return bpf_ringbuf_reserve(&events, REAP_REC_SIZE(AIOS_REAP_BATCH), 0);
}

static long reap_rec_cb(__u32 i, void *data)
{
	struct reap_ctx *c = data;
	struct aios_reap *rec;
	__u32 cnt;

	if (i * AIOS_REAP_BATCH >= c->n)
		return 1;
	cnt = c->n - i * AIOS_REAP_BATCH;
	if (cnt > AIOS_REAP_BATCH)
		cnt = AIOS_REAP_BATCH;
	rec = reap_reserve(cnt);
	if (!rec) {
		drop(AIOS_DROP_RINGBUF);
		return 0;
	}
	rec->type = AIOS_REC_REAP;
	rec->ts = c->now;
	rec->ctx = c->ctx;
	rec->pid = c->tgid;
	if (bpf_probe_read_user(rec->ev, cnt * sizeof(struct aios_io_event),
				(void *)(c->events + (__u64)i * AIOS_REAP_BATCH *
					 sizeof(struct aios_io_event)))) {
		drop_n(AIOS_DROP_REAP_READ, cnt);
		cnt = 0;
	}
	rec->n = cnt;
	bpf_ringbuf_submit(rec, rb_flags());
	return 0;
}

/* The common case, one event: a small record written in place. */
struct aios_reap1 {
	__u32 type;
	__u32 n;
	__u64 ts;
	__u64 ctx;
	__u32 pid;
	__u32 pad;
	struct aios_io_event ev[1];
};

static __always_inline void reap_one(struct reap_ctx *c)
{
	struct aios_reap1 *rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);

	if (!rec) {
		drop(AIOS_DROP_RINGBUF);
		return;
	}
	rec->type = AIOS_REC_REAP;
	rec->n = 1;
	rec->ts = c->now;
	rec->ctx = c->ctx;
	rec->pid = c->tgid;
	if (bpf_probe_read_user(rec->ev, sizeof(rec->ev), (void *)c->events)) {
		drop(AIOS_DROP_REAP_READ);
		rec->n = 0;
	}
	bpf_ringbuf_submit(rec, rb_flags());
}

#endif /* AIOSCOPE_RECORDS_BPF_H */
