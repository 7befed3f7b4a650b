/* SPDX-License-Identifier: GPL-2.0 */
/* inflight.bpf.h - the in-flight table: slots, the overflow hash map, reconciliation (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_INFLIGHT_BPF_H
#define AIOSCOPE_INFLIGHT_BPF_H

/*
 * The in-flight table, in two parts.
 * slots: a direct-mapped table indexed by a hash of the kiocb address. A submit
 *   claims its slot with one compare-and-swap (0 -> kiocb), its completion releases
 *   it with another: no locks, no hashing of keys, no allocation. Memory-mappable,
 *   so user space scans it without copies.
 * inflight: a hash map for what the slots cannot hold (a slot taken by another
 *   pending request) and for the syscalls mode (keyed by user iocb and context).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct aios_slot);
} slots SEC(".maps");

const volatile __u32 slot_mask = 16383;	/* max_entries - 1, a power of two */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct aios_key);
	__type(value, struct aios_req);
} inflight SEC(".maps");

/*
 * Reconciliation (want_reconcile: someone reads the in-flight table or the queue
 * depth). The kernel may skip a completion program (a kprobe that fires while another
 * BPF program runs on the CPU, e.g. from an hrtimer interrupt nesting in a submit
 * program), which would leave its request pending, and in the queue depth, until its
 * kiocb is reused. The reap names every request by the application's own identity
 * (user iocb, context, process), so each pending libaio request is also indexed that
 * way: a reaped event whose request is still pending had its completion missed, and
 * the reap takes it out, counted (AIOS_CNT_RECONCILED). A process's or context's
 * requests that are never reaped are taken out at exit or io_destroy (purge).
 * The value says which pending request the entry is for: a kiocb is reused as soon as
 * its request completes, and the entry must not take the next one.
 */
const volatile bool want_reconcile = false;

struct pend_ref {
	__u64 id;	/* kiocb address: the in-flight table's key */
	__u64 ts;	/* its submit time, which tells one request on it from the next */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);	/* slots + inflight; 1 unless want_reconcile */
	__type(key, struct aios_key);	/* id = user iocb, aux = aios_aux(ctx, tgid) */
	__type(value, struct pend_ref);
} pend_obj SEC(".maps");


static __always_inline struct aios_slot *slot_of(__u64 id)
{
	__u32 idx = (__u32)(((id >> 4) * 0x9E3779B97F4A7C15ULL) >> 40) & slot_mask;

	return bpf_map_lookup_elem(&slots, &idx);
}

/*
 * Claim @id's slot with one compare-and-swap: free, or held by a stale copy of the
 * same request (then its req.id is still @id; a free slot's is 0). NULL when
 * another pending request holds it.
 */
static __always_inline struct aios_slot *slot_claim(__u64 id)
{
	struct aios_slot *s = slot_of(id);
	__u64 old;

	if (!s)
		return NULL;
	old = __sync_val_compare_and_swap(&s->kiocb, 0, id);
	return old == 0 || old == id ? s : NULL;
}

/*
 * A holder's write of its slot's request is bracketed by two bumps of seq (see
 * struct aios_slot), fully ordered: the fetch form of the atomic, which the value
 * kept alive (barrier_var) makes the compiler emit.
 */
static __always_inline void slot_seq_bump(struct aios_slot *s)
{
	__u64 old;

	if (!want_ids)
		return;		/* nobody reads the slots */
	old = __sync_fetch_and_add(&s->seq, 1);
	barrier_var(old);
}

/* Free a slot its request @id holds: req.id first, so that a free slot's is 0. */
static __always_inline void slot_release(struct aios_slot *s, __u64 id)
{
	s->req.id = 0;
	/* only the holder releases its slot: the swap cannot fail */
	__sync_val_compare_and_swap(&s->kiocb, id, 0);
}

/*
 * Entries of the inflight hash map (approximately: inserts minus deletes), so that a
 * submit that got its slot looks for a stale copy of itself in the map only when the
 * map holds anything at all.
 */
__s64 nhash = 0;

/*
 * A stale record: a request whose completion was not seen (a program run the kernel
 * skipped), replaced by a new request on the same key. Same kiocb address, or same
 * user iocb in syscalls mode, means the old request is over: take it off the queue
 * depth counters, which it still holds.
 */
/* A request's key in pend_obj: the application's name for it (see want_reconcile). */
static __always_inline struct aios_key pend_key(const struct aios_req *r)
{
	struct aios_key k = { .id = r->obj, .aux = aios_aux(r->ctx, r->pid) };

	return k;
}

/* Index a pending libaio request by its user identity. */
static __always_inline void pend_note(struct aios_req *r)
{
	struct aios_key k = pend_key(r);
	struct pend_ref v = { .id = r->id, .ts = r->ts };

	if (bpf_map_update_elem(&pend_obj, &k, &v, BPF_ANY))
		drop(AIOS_DROP_INFLIGHT);	/* it cannot be reconciled: not tracked */
}

/* Remove @r's index entry, if it is @r's (a new request may hold the same iocb). */
static __always_inline void pend_forget(struct aios_req *r)
{
	struct aios_key k = pend_key(r);
	struct pend_ref *v = bpf_map_lookup_elem(&pend_obj, &k);

	if (v && v->id == r->id && v->ts == r->ts)
		bpf_map_delete_elem(&pend_obj, &k);
}

static __always_inline void stale(struct aios_req *old)
{
	if (want_qd && old->ts)
		qd_all(old, -1);
	if (want_reconcile && old->api == AIOS_API_AIO)
		pend_forget(old);
}

/* @old's completion was not seen: release it, counted (see want_reconcile) */
static __always_inline void missed(struct aios_req *old)
{
	stale(old);
	if (want_reconcile)
		drop(AIOS_CNT_RECONCILED);
}

/* Forget a stale copy of @key in the hash map (the new request got the slot). */
static __always_inline void hash_purge(struct aios_key *key)
{
	struct aios_req *p = bpf_map_lookup_elem(&inflight, key);

	if (!p)
		return;
	missed(p);
	if (!bpf_map_delete_elem(&inflight, key))
		__sync_fetch_and_add(&nhash, -1);
}

/*
 * A request the filters reject (or that is not followed at all) may reuse the key of
 * a stale record: forget that record now, or this request's completion would take
 * it and report the old request with an arbitrary latency.
 */
static __always_inline void forget(struct aios_key *key)
{
	struct aios_slot *s = mode_syscalls ? NULL : slot_of(key->id);

	if (s && s->kiocb == key->id) {
		if (s->req.id == key->id)
			missed(&s->req);
		slot_release(s, key->id);
	}
	if (nhash > 0)
		hash_purge(key);
}

/*
 * Insert a pending request: its slot if free (or held by a stale copy of itself),
 * else the hash map. A stale copy being replaced releases its queue depth first, so
 * that no request is ever counted twice.
 */
static __always_inline int inflight_put(struct aios_key *key, struct aios_req *r)
{
	struct aios_req *p;
	int err;

	if (!mode_syscalls) {
		struct aios_slot *s = slot_claim(key->id);

		if (s) {
			if (s->req.id == key->id)
				missed(&s->req);
			slot_seq_bump(s);
			s->req = *r;
			slot_seq_bump(s);
			if (nhash > 0)
				hash_purge(key);
			return 0;
		}
	}
	err = bpf_map_update_elem(&inflight, key, r, BPF_NOEXIST);
	if (!err) {
		__sync_fetch_and_add(&nhash, 1);
		return 0;
	}
	if (err != -EEXIST)
		return err;
	p = bpf_map_lookup_elem(&inflight, key);
	if (p)
		missed(p);
	return bpf_map_update_elem(&inflight, key, r, BPF_EXIST);
}

/* Find a pending request (NULL if not tracked). */
static __always_inline struct aios_req *inflight_find(struct aios_key *key)
{
	if (!mode_syscalls) {
		struct aios_slot *s = slot_of(key->id);

		if (s && s->kiocb == key->id)
			return &s->req;
	}
	return bpf_map_lookup_elem(&inflight, key);
}

/* Remove a pending request into @r. Returns false if it was not tracked. */
static __always_inline bool inflight_take(struct aios_key *key, struct aios_req *r)
{
	struct aios_req *p;

	if (!mode_syscalls) {
		struct aios_slot *s = slot_of(key->id);

		if (s && s->kiocb == key->id) {
			*r = s->req;
			slot_release(s, key->id);
			return true;
		}
		/*
		 * Not in its slot, and the map empty: nothing to look up (the common case
		 * of aio_complete behind aio_complete_rw, which took the slot). A submit
		 * hook counts its map entry before the request is issued, so a completion
		 * never finds the count behind its own entry.
		 */
		if (nhash <= 0)
			return false;
	}
	p = bpf_map_lookup_elem(&inflight, key);
	if (!p)
		return false;
	*r = *p;
	if (!bpf_map_delete_elem(&inflight, key))
		__sync_fetch_and_add(&nhash, -1);
	return true;
}

#endif /* AIOSCOPE_INFLIGHT_BPF_H */
