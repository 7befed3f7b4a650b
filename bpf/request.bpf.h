/* SPDX-License-Identifier: GPL-2.0 */
/* request.bpf.h - one request's record: the submit builder and the completion finisher (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_REQUEST_BPF_H
#define AIOSCOPE_REQUEST_BPF_H

/* completion time and histogram group of a finished request, until its reap */
struct done_val {
	__u64 ts;
	__u64 group;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct aios_key);
	__type(value, struct done_val);
} done SEC(".maps");

/* want_unreaped: finished requests until their reap (stuck --watch) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct aios_unreaped);
} unreaped_buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct aios_key);
	__type(value, struct aios_unreaped);
} unreaped SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 4096);	/* 1 unless targ_stacks */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, AIOS_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

static __always_inline __u32 state_of(__s64 res, __u8 flags)
{
	if (res == -ECANCELED || (flags & AIOS_F_CANCELLED))
		return AIOS_CANCELLED;
	return res < 0 ? AIOS_ERROR : AIOS_DONE;
}

/*
 * Fill the submitter and the file of a request into @r and apply the filters that
 * need them, then the sampling. Returns false when the request is filtered out or
 * not sampled.
 */
static __always_inline bool submit_fill(struct aios_req *r, struct file *f, __u64 pid_tgid,
					bool btf, bool file_later)
{
	r->pid = pid_tgid >> 32;
	r->tid = (__u32)pid_tgid;
	/* @file_later: no file yet (io_uring); the completion reads it and filters */
	if (f || !file_later) {
		file_ids(f, &r->dev, &r->ino, btf);
		if (!file_ok(r->dev, r->ino))
			return false;
	}
	if (want_comm || filter_comm) {
		current_comm(r->comm);
		if (!comm_ok(r->comm))
			return false;
	}
	if (r->flags & AIOS_F_KEPT)
		return true;
	/* the file filters apply at completion: so does the sampling (raw_uring_complete) */
	if (sample_n > 1 && !f && file_later && (filter_dev || filter_ino)) {
		r->flags |= AIOS_F_SAMPLE_LATER;
		return true;
	}
	return sample_keep();
}

/*
 * Record a request at submit. @req has ts, id, ctx, obj, data, offset, len, op, api
 * filled by the caller; this fills the submitter and file, applies the filters and
 * inserts it into the in-flight table.
 */
static __always_inline void submit_req(struct aios_key *key, struct aios_req *r,
				       struct file *f, __u64 pid_tgid, bool btf, bool file_later)
{
	if (!submit_fill(r, f, pid_tgid, btf, file_later)) {
		forget(key);
		return;
	}
	if (want_qd)
		r->qd = qd_all(r, 1);
	if (inflight_put(key, r)) {
		drop(AIOS_DROP_INFLIGHT);
		if (want_qd)
			qd_all(r, -1);
		return;
	}
	if (want_reconcile && r->api == AIOS_API_AIO)
		pend_note(r);
}

/* A stack's id in the stacks map, or -1 (failures for lack of room are counted). */
static __always_inline __s32 stack_id(void *ctx, __u64 flags)
{
	long id = bpf_get_stackid(ctx, &stacks, flags);

	if (id >= 0)
		return id;
	if (id == -EEXIST || id == -ENOMEM)
		drop(AIOS_DROP_STACK);
	return -1;
}

/*
 * What joins a finished request to its reap: libaio, the user iocb pointer in its
 * process's context; io_uring, its CQE's tail mark in its ring, entered by its
 * process (the exit purge finds both by the tgid). snoop's join in user space
 * (cli/collect/record.c) keys io_uring by (tail mark, ring) alone: its CQ head
 * records carry the ring, and it purges nothing by process.
 */
static __always_inline struct aios_key reap_key(const struct aios_req *r)
{
	struct aios_key k = { .id = r->obj, .aux = aios_aux(r->ctx, r->pid) };

	if (r->api == AIOS_API_URING)
		k.aux = uring_aux(r->ctx, r->pid);
	return k;
}

/* A finished request waits for its reap: hist --reap's time, stuck's unreaped list. */
static __always_inline void wait_reap(struct aios_req *r, __u64 now, __s64 res, __u32 state)
{
	struct aios_key k = reap_key(r);

	if (want_hist_reap) {
		struct done_val v = { .ts = now, .group = group_of(r, state) };

		if (bpf_map_update_elem(&done, &k, &v, BPF_ANY))
			drop(AIOS_DROP_DONE);
	}
	if (want_unreaped) {
		struct aios_unreaped *u;
		__u32 zero = 0;

		/* the value is too big for the stack: built in a per-CPU scratch */
		u = bpf_map_lookup_elem(&unreaped_buf, &zero);
		if (!u)
			return;
		__builtin_memcpy(&u->req, r, sizeof(*r));
		u->done_ts = now;
		u->res = res;
		if (bpf_map_update_elem(&unreaped, &k, u, BPF_ANY))
			drop(AIOS_DROP_DONE);
	}
}

static __always_inline void finish(struct aios_req *r, __u64 now, __s64 res, bool reaped)
{
	__u64 lat = now - r->ts;
	__u32 state = state_of(res, r->flags);

	if (want_qd && !reaped)
		qd_all(r, -1);
	if (lat < min_lat_ns)
		return;
	if (want_hist) {
		__u64 g = group_of(r, state);

		hist_add(AIOS_H_LAT, g, lat);
		if (hist_by == AIOS_BY_STAGE)
			hist_stages(r, now);
		if (r->flags & AIOS_F_DRIVER)
			hist_add(AIOS_H_DRIVER, g, r->driver_ns);
		if (hist_by == AIOS_BY_METRIC && res > 0)
			hist_add(AIOS_H_BYTES, g, res);
	}
	if (want_pid_counts)
		pidc_add(r->pid, res);
	if (want_events)
		emit_done(r, now, res, state, 0);
	/* io_uring: only where its reaps are seen, else nothing would take it out */
	if ((r->api == AIOS_API_AIO && !reaped) ||
	    (r->api == AIOS_API_URING && want_uring_reap))
		wait_reap(r, now, res, state);
}

/*
 * hist --reap's kernel-side join: the reap of a finished request keyed @k, at @now.
 * False if no completion waits under @k.
 */
static __always_inline bool reap_hist(const struct aios_key *k, __u64 now)
{
	struct done_val *t = bpf_map_lookup_elem(&done, k);

	if (!t)
		return false;
	if (now >= t->ts && hist_by == AIOS_BY_STAGE)
		hist_add(AIOS_H_LAT, AIOS_SG_REAP, now - t->ts);
	else if (now >= t->ts)
		hist_add(AIOS_H_REAP, t->group, now - t->ts);
	bpf_map_delete_elem(&done, k);
	return true;
}

/* The reap of @k: its hist --reap time, and it leaves the unreaped list. */
static __always_inline bool reap_join(const struct aios_key *k, __u64 now)
{
	bool found = false;

	if (want_unreaped)
		found = !bpf_map_delete_elem(&unreaped, k);
	if (want_hist_reap)
		found = reap_hist(k, now);
	return found;
}

#endif /* AIOSCOPE_REQUEST_BPF_H */
