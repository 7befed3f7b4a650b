// SPDX-License-Identifier: GPL-2.0
/*
 * tracer_maps.c - the readers of the attached object's maps: the in-flight table,
 * submit stacks, queue depths, histograms, per-process counts, the programs' run
 * statistics and the drop counters (see tracer.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aioscope.h"
#include "buckets.h"
#include "tracer_int.h"

/* the in-flight table's values, handed out as they are */
_Static_assert(TRACER_COMM_LEN == AIOS_COMM_LEN, "comm lengths differ");
_Static_assert(sizeof(((struct aios_req *)0)->kstack) ==
	       sizeof(((struct pending_req *)0)->kstack_id), "stack id sizes differ");

/* Where @r is now, and since when (the stage hooks' times, latest first). */
static void inflight_stage(const struct aios_req *r, bool stages, struct pending_req *f)
{
	const struct { __u64 ts; enum pending_stage s; } at[] = {
		{ r->devdone_ts, PEND_STAGE_COMPLETING }, { r->issue_ts, PEND_STAGE_DEVICE },
		{ r->queue_ts, PEND_STAGE_QUEUED }, { r->worker_ts, PEND_STAGE_IOWQ },
		{ r->punt_ts, PEND_STAGE_IOWQ_WAIT }, { r->ts, PEND_STAGE_SUBMITTED },
	};

	f->stage = PEND_STAGE_UNKNOWN;
	f->stage_ns = 0;
	for (size_t i = 0; stages && i < sizeof(at) / sizeof(at[0]); i++) {
		if (at[i].ts) {
			f->stage = at[i].s;
			f->stage_ns = at[i].ts;
			return;
		}
	}
}

static int inflight_one(const struct aios_req *r, bool stages, tracer_inflight_fn cb,
			void *ctx)
{
	struct pending_req f = {
		.id = r->id, .submit_ns = r->ts, .ctx = r->ctx, .obj = r->obj,
		.ino = r->ino, .offset = r->offset, .bytes = r->len,
		.dev = r->dev, .pid = (int32_t)r->pid, .tid = (int32_t)r->tid,
		.op = (enum aios_op)r->op,	/* __u8 field of enum aios_op */
		.api = r->api == AIOS_API_URING ? AIOS_API_URING : AIOS_API_AIO,
		.kstack_id = r->kstack, .ustack_id = r->ustack,
	};

	memcpy(f.comm, r->comm, TRACER_COMM_LEN);
	f.comm[TRACER_COMM_LEN - 1] = 0;
	inflight_stage(r, stages, &f);
	return cb(ctx, &f);
}

/* an unreaped request: a pending one in the stage after the last */
struct unreaped_cb {
	tracer_inflight_fn cb;
	void *ctx;
	uint64_t done_ts;
};

static int unreaped_one(void *ctx, const struct pending_req *q)
{
	const struct unreaped_cb *u = ctx;
	struct pending_req f = *q;

	f.stage = PEND_STAGE_UNREAPED;
	f.stage_ns = u->done_ts;
	return u->cb(u->ctx, &f);
}

/* one batch of a hash map keyed by struct aios_key (in-flight, unreaped) */
struct hash_lookup {
	int fd;
	struct aios_key out_batch;	/* the kernel's cursor: a bucket number */
};

static int hash_batch(void *ctx, bool first, void *keys, void *vals, uint32_t *count)
{
	struct hash_lookup *lk = ctx;

	if (bpf_map_lookup_batch(lk->fd, first ? NULL : &lk->out_batch, &lk->out_batch,
				 keys, vals, count, NULL))
		return -errno;
	return 0;
}

struct inflight_cb {
	tracer_inflight_fn cb;
	void *ctx;
	bool stages;
};

static int inflight_each(void *ctx, const void *val)
{
	const struct inflight_cb *e = ctx;

	return inflight_one(val, e->stages, e->cb, e->ctx);
}

/* A slot as the first pass of a scan found it: which, at which write, holding what. */
struct slot_seen {
	uint32_t i;
	uint64_t seq;
	struct aios_req r;
};

/* The first pass: a consistent copy of each occupied slot into t->seen; their count. */
static int slots_first_pass(struct tracer *t, size_t *out)
{
	size_t n = 0;

	for (uint32_t i = 0; i < TRACER_SLOTS; i++) {
		const struct aios_slot *s = &t->slots[i];
		struct slot_seen *e;
		uint64_t k, seq;

		seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		k = __atomic_load_n(&s->kiocb, __ATOMIC_ACQUIRE);
		if (!k || (seq & 1))
			continue;
		if (n == t->seen_cap) {
			size_t cap = t->seen_cap ? 2 * t->seen_cap : 256;
			struct slot_seen *v = realloc(t->seen, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			t->seen = v;
			t->seen_cap = cap;
		}
		e = &t->seen[n];
		memcpy(&e->r, &s->req, sizeof(e->r));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != seq ||
		    __atomic_load_n(&s->kiocb, __ATOMIC_RELAXED) != k || e->r.id != k || !e->r.ts)
			continue;
		e->i = i;
		e->seq = seq;
		n++;
	}
	*out = n;
	return 0;
}

int tracer_inflight_foreach(struct tracer *t, tracer_inflight_fn cb, void *ctx)
{
	int fd = bpf_map__fd(t->skel->maps.inflight);
	uint32_t cap = bpf_map__max_entries(t->skel->maps.inflight);
	struct hash_lookup lk = { .fd = fd };
	struct inflight_cb each = { .cb = cb, .ctx = ctx,
				    .stages = t->skel->rodata->want_stages };
	size_t nseen;
	int n, rc;

	/*
	 * The slots, in two passes. The first copies each slot between two reads of its
	 * sequence count and keeps the copy only if no write began or ended meanwhile
	 * and it still names the request that holds the slot (the contract at struct
	 * aios_slot). Walking 16,384 slots takes long enough to be preempted while one
	 * request completes and the next takes a slot further on: one pass would count
	 * both (3 in flight at iodepth 2). So a copy is handed out only if, after the
	 * hash map's walk, its slot's count has not moved and the slot is still held by
	 * the same kiocb (a free does not move the count; a new claim, even by the same
	 * kiocb, does): that request was pending from the end of the first pass to the
	 * start of the second, and so were all the others handed out: one instant's
	 * requests, never more than were in flight. The hash map's entries (slot
	 * collisions: rare) are each read once, between the passes.
	 */
	rc = slots_first_pass(t, &nseen);
	if (rc)
		return rc;
	/* the hash map: in batches (an allocation failure leaves no half state) */
	rc = map_batch_alloc(&t->ib, cap, sizeof(struct aios_key), sizeof(struct aios_req));
	if (rc)
		return rc;
	rc = map_batch_walk(&t->ib, hash_batch, &lk, inflight_each, &each);
	if (rc < 0)
		return rc;
	n = rc;
	for (size_t j = 0; j < nseen; j++) {
		const struct slot_seen *e = &t->seen[j];

		const struct aios_slot *s = &t->slots[e->i];

		/* freeing does not bump seq: the slot must still be its request's */
		if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != e->seq ||
		    __atomic_load_n(&s->kiocb, __ATOMIC_RELAXED) != e->r.id)
			continue;	/* completed (or replaced) during the scan */
		n++;
		rc = inflight_one(&e->r, each.stages, cb, ctx);
		if (rc)
			return rc;
	}
	return n;
}

static int unreaped_each(void *ctx, const void *val)
{
	const struct unreaped_cb *u = ctx;
	const struct aios_unreaped *v = val;
	struct unreaped_cb one = { u->cb, u->ctx, v->done_ts };

	return inflight_one(&v->req, false, unreaped_one, &one);
}

/* entries per batch: a few syscalls for a full map, 300 KB of buffers */
#define UNREAPED_BATCH 1024

int tracer_unreaped_foreach(struct tracer *t, tracer_inflight_fn cb, void *ctx)
{
	struct hash_lookup lk = { .fd = bpf_map__fd(t->skel->maps.unreaped) };
	struct unreaped_cb u = { .cb = cb, .ctx = ctx };
	int rc;

	if (!t->skel->rodata->want_unreaped)
		return -EOPNOTSUPP;
	rc = map_batch_alloc(&t->ub, UNREAPED_BATCH, sizeof(struct aios_key),
			     sizeof(struct aios_unreaped));
	if (rc)
		return rc;
	return map_batch_walk(&t->ub, hash_batch, &lk, unreaped_each, &u);
}

_Static_assert(TRACER_STACK_DEPTH == AIOS_STACK_DEPTH, "stack depths differ");

int tracer_stack_read(struct tracer *t, int32_t id, uint64_t *ips, int max)
{
	__u64 v[AIOS_STACK_DEPTH];
	uint32_t key = (uint32_t)id;
	int n = 0;

	if (!t->skel->rodata->targ_stacks)
		return -EOPNOTSUPP;
	if (id < 0)
		return -ENOENT;
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.stacks), &key, v))
		return -errno;
	while (n < max && n < AIOS_STACK_DEPTH && v[n]) {
		ips[n] = v[n];
		n++;
	}
	return n;
}

int tracer_qd_foreach(struct tracer *t, tracer_qd_fn cb, void *ctx)
{
	int fd = bpf_map__fd(t->skel->maps.qd);
	struct aios_qkey k, next;
	struct aios_qd v;
	void *prev = NULL;
	int n = 0;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;
		/* max counts only if raised since the last tracer_qd_reset_max() */
		uint64_t max = v.gen == t->skel->bss->qd_gen ? v.max : 0;
		struct tracer_qd q = { .kind = (enum aios_qd_kind)k.kind, .key = k.key,
				       .now = v.cur, .max = max };
		int rc = cb(ctx, &q);

		n++;
		if (rc)
			return rc;
	}
	return n;
}

/*
 * Starts a new interval for the maxima. Writing the entries back (max = cur) lost
 * decrements that came between the read and the write, and left a device's depth
 * above zero for good; the kernel restarts max itself when it sees a new generation.
 */
int tracer_qd_reset_max(struct tracer *t)
{
	__atomic_add_fetch(&t->skel->bss->qd_gen, 1, __ATOMIC_RELAXED);
	return 0;
}

/* Sum one per-CPU histogram (in t->pcpu_buf) into @sum and hand it to @cb. */
static int hist_emit(struct tracer *t, struct aios_hist *sum, uint32_t kind, uint64_t group,
		     tracer_hist_fn cb, void *ctx, int *n)
{
	const struct aios_hist *pc = t->pcpu_buf;

	memset(sum, 0, sizeof(*sum));
	for (int c = 0; c < t->ncpus; c++) {
		sum->count += pc[c].count;
		sum->sum += pc[c].sum;
		if (pc[c].max > sum->max)
			sum->max = pc[c].max;
		for (int i = 0; i < AIOS_HIST_SLOTS; i++)
			sum->slots[i] += pc[c].slots[i];
	}
	if (!sum->count)
		return 0;	/* never used: not reported */
	(*n)++;
	struct tracer_hist h = {
		.kind = (enum aios_hist_kind)kind, .group = group,
		.count = sum->count, .sum = sum->sum, .max = sum->max,
		.buckets = sum->slots, .nbuckets = AIOS_HIST_SLOTS,
	};
	return cb(ctx, &h);
}

int tracer_hist_foreach(struct tracer *t, tracer_hist_fn cb, void *ctx)
{
	int fd = bpf_map__fd(t->skel->maps.hists);
	struct aios_hkey k, next;
	void *prev = NULL;
	struct aios_hist *sum;
	int n = 0, rc = 0;

	sum = malloc(sizeof(*sum));
	if (!sum)
		return -ENOMEM;
	if (t->hist_ngroups) {
		int afd = bpf_map__fd(t->skel->maps.hist_arr);

		for (uint32_t i = 0; i < t->hist_ngroups * AIOS_H_NR; i++) {
			if (bpf_map_lookup_elem(afd, &i, t->pcpu_buf))
				continue;
			rc = hist_emit(t, sum, i / t->hist_ngroups, i % t->hist_ngroups, cb, ctx,
				       &n);
			if (rc)
				goto out;
		}
	}
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, t->pcpu_buf))
			continue;
		rc = hist_emit(t, sum, k.kind, k.group, cb, ctx, &n);
		if (rc)
			break;
	}
out:
	free(sum);
	return rc ? rc : n;
}

static uint64_t prog_misses(struct bpf_program *p)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);
	int fd = bpf_program__fd(p);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

int tracer_pid_foreach(struct tracer *t, tracer_pid_fn cb, void *ctx)
{
	int fd = bpf_map__fd(t->skel->maps.pidc);
	__u32 k, next, *prev = NULL;
	struct aios_pidc v;
	int n = 0, rc;

	if (!t->opts.pid_counts)
		return -EOPNOTSUPP;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct tracer_pid_count c;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;	/* deleted meanwhile */
		c.pid = (int32_t)k;
		c.requests = v.count;
		c.bytes = v.bytes;
		n++;
		rc = cb(ctx, &c);
		if (rc)
			return rc;
	}
	return n;
}

int tracer_pid_forget(struct tracer *t, int32_t pid)
{
	__u32 k = (__u32)pid;

	if (!t->opts.pid_counts)
		return -EOPNOTSUPP;
	return bpf_map_delete_elem(bpf_map__fd(t->skel->maps.pidc), &k) ? -errno : 0;
}

int tracer_prog_stats_foreach(struct tracer *t, tracer_prog_fn cb, void *ctx)
{
	struct bpf_program *p;
	int n = 0, rc;

	bpf_object__for_each_program(p, t->skel->obj) {
		struct bpf_prog_info info = {};
		uint32_t len = sizeof(info);
		struct tracer_prog_stats st;
		int fd = bpf_program__fd(p);

		if (!bpf_program__autoload(p) || fd < 0 ||
		    bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		st.name = bpf_program__name(p);
		st.run_time_ns = info.run_time_ns;
		st.run_cnt = info.run_cnt;
		st.recursion_misses = info.recursion_misses;
		n++;
		rc = cb(ctx, &st);
		if (rc)
			return rc;
	}
	return n;
}

/*
 * The submit and reap twins (SUBMIT_TWINS in the BPF): the programs of one hook, the
 * second and third loaded only on a kernel that preempts programs. A call is lost
 * only if all of them skipped it, so a set loses at most the smallest of their skip
 * counts: that bound is what the set adds to the misses (a set of one: its own).
 */
static const struct {
	size_t prog[3];		/* offsetof(struct aioscope_bpf, progs.X) */
} twin_sets[] = {
#define TWINS(x) { { offsetof(struct aioscope_bpf, progs.x), \
		     offsetof(struct aioscope_bpf, progs.x##_twin), \
		     offsetof(struct aioscope_bpf, progs.x##_twin2) } }
	TWINS(fentry_aio_read),
	TWINS(fentry_aio_write),
	TWINS(fentry_aio_fsync),
	TWINS(fexit_do_io_getevents),
#undef TWINS
};

static struct bpf_program *skel_prog(const struct aioscope_bpf *s, size_t off)
{
	return *(struct bpf_program *const *)((const char *)s + off);
}

/* The twin set @p is in (-1: none), and whether @p is its first program. */
static int twin_set_of(const struct aioscope_bpf *s, const struct bpf_program *p, bool *first)
{
	for (size_t i = 0; i < sizeof(twin_sets) / sizeof(twin_sets[0]); i++)
		for (int k = 0; k < 3; k++)
			if (p == skel_prog(s, twin_sets[i].prog[k])) {
				*first = k == 0;
				return (int)i;
			}
	return -1;
}

/* Add a twin set's skips: the bound on lost calls to the misses, the rest to twin_skips. */
static void twin_set_misses(const struct aioscope_bpf *s, int set, struct tracer_drops *d)
{
	uint64_t m[3] = { 0 }, least = UINT64_MAX, sum = 0;
	int n = 0;

	for (int k = 0; k < 3; k++) {
		struct bpf_program *p = skel_prog(s, twin_sets[set].prog[k]);

		if (!bpf_program__autoload(p))
			continue;
		m[n] = prog_misses(p);
		sum += m[n];
		if (m[n] < least)
			least = m[n];
		n++;
	}
	if (!n)
		return;
	d->prog_misses += least;
	d->twin_skips += sum - (uint64_t)n * least;
}

int tracer_drops(struct tracer *t, struct tracer_drops *d)
{
	int fd = bpf_map__fd(t->skel->maps.drops);
	uint64_t *vals;
	struct bpf_program *p;
	bool first;
	int set;

	memset(d, 0, sizeof(*d));
	vals = calloc(t->ncpus, sizeof(uint64_t));
	if (!vals)
		return -ENOMEM;
	for (uint32_t k = 0; k < AIOS_DROP_NR; k++) {
		uint64_t s = 0;

		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (int c = 0; c < t->ncpus; c++)
			s += vals[c];
		switch (k) {
		case AIOS_DROP_RINGBUF: d->ringbuf_lost = s; break;
		case AIOS_DROP_INFLIGHT: d->inflight_full = s; break;
		case AIOS_DROP_HIST: d->hist_full = s; break;
		case AIOS_DROP_QD: d->qd_full = s; break;
		case AIOS_DROP_DONE: d->reap_full = s; break;
		case AIOS_DROP_UNMATCHED: d->unmatched_complete = s; break;
		case AIOS_DROP_REAP_UNMATCHED: d->unmatched_reap = s; break;
		case AIOS_DROP_STACK: d->stack_lost = s; break;
		case AIOS_CNT_RESCUED: d->rescued = s; break;
		case AIOS_DROP_PIDC: d->pid_full = s; break;
		case AIOS_CNT_RECONCILED: d->reconciled = s; break;
		case AIOS_DROP_REAP_READ: d->reap_unread = s; break;
		case AIOS_CNT_SAMPLE_SEEN: d->sample_seen = s; break;
		case AIOS_CNT_SAMPLE_KEPT: d->sample_kept = s; break;
		}
	}
	free(vals);
	d->unmatched_reap += t->rx.unmatched_reap;
	d->join_lost = t->rx.join_lost;
	bpf_object__for_each_program(p, t->skel->obj) {
		uint64_t m;

		if (!bpf_program__autoload(p))
			continue;
		set = twin_set_of(t->skel, p, &first);
		if (set >= 0) {
			if (first)
				twin_set_misses(t->skel, set, d);
			continue;
		}
		m = prog_misses(p);
		if (t->skel->rodata->complete_twin) {
			/* a skipped aio_complete_rw run that its twin took is no loss; the
			 * twin's own skips follow a run of aio_complete_rw that took it */
			if (p == t->skel->progs.fentry_aio_complete)
				continue;
			if (p == t->skel->progs.fentry_aio_complete_rw)
				m = m > d->rescued ? m - d->rescued : 0;
		}
		d->prog_misses += m;
	}
	return 0;
}

