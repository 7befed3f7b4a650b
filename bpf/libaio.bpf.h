/* SPDX-License-Identifier: GPL-2.0 */
/* libaio.bpf.h - libaio's submit, completion and reap, shared by the attach modes (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_LIBAIO_BPF_H
#define AIOSCOPE_LIBAIO_BPF_H

/*
 * aio_read/aio_write/aio_fsync entry: @kiocb is the aio_kiocb's first member, @iocb
 * the kernel's copy of the user's iocb. In fentry programs (@btf) @kiocb and @iocb
 * are read with plain loads; the aio_kiocb fields around the kiocb (context, user
 * iocb, aio_data) need bpf_probe_read_kernel, so they are read here only when
 * someone looks at pending requests (in-flight table, queue depth by context);
 * otherwise the completion fills them in from its own aio_kiocb argument.
 */
static __always_inline int on_submit(void *ctx, struct kiocb *kiocb, const struct iocb *iocb,
				     __u8 op, bool btf, __u64 id)
{
	struct aio_kiocb *ak = (void *)kiocb;
	struct aios_key key = { .id = id };
	struct aios_req r = {};
	__u64 pid_tgid;

	if ((targ_tgid || filter_cg) && !task_ok(bpf_get_current_pid_tgid() >> 32)) {
		forget(&key);
		return 0;
	}
	if (lean) {
		/*
		 * hist by nothing or by op: the completion needs the submit time, the op
		 * and the driver's flags, nothing else. Write just those into the slot.
		 */
		struct aios_slot *s;

		if (!sample_keep()) {
			forget(&key);
			return 0;
		}
		s = slot_claim(id);

		if (s) {
			s->req.ts = bpf_ktime_get_ns();
			s->req.data = btf ? iocb->aio_data : BPF_CORE_READ(iocb, aio_data);
			s->req.op = op;
			s->req.flags = 0;
			s->req.id = id;
			return 0;
		}
		/* slot taken by another request: the full path, into the hash map */
		r.flags = AIOS_F_KEPT;
	}
	pid_tgid = bpf_get_current_pid_tgid();
	if (btf && !want_qd && !targ_stacks && !mode_syscalls) {
		/*
		 * The request goes straight into its slot, when free, without being built
		 * on the stack and copied there. Nothing else here reads the slot before
		 * the completion (queue depth, which does, takes the long way).
		 */
		struct aios_slot *s = slot_claim(id);

		if (s) {
			struct aios_req *q = &s->req;

			if (want_reconcile && q->id == id)
				missed(q);	/* a stale copy of this kiocb's last request */
			slot_seq_bump(s);
			q->ts = bpf_ktime_get_ns();
			q->id = id;
			if (want_ids) {
				q->ctx = BPF_CORE_READ(ak, ki_ctx, user_id);
				q->obj = BPF_CORE_READ(ak, ki_res.obj);
				q->data = BPF_CORE_READ(ak, ki_res.data);
			} else {
				q->ctx = 0;
				q->obj = 0;
				q->data = iocb->aio_data;
			}
			q->offset = iocb->aio_offset;
			q->len = iocb->aio_nbytes;
			q->driver_ns = 0;
			q->done_ts = 0;
			q->queue_ts = 0;
			q->issue_ts = 0;
			q->devdone_ts = 0;
			q->punt_ts = 0;
			q->worker_ts = 0;
			q->bios = 0;
			q->qd = 0;
			q->op = op;
			q->api = AIOS_API_AIO;
			q->flags = r.flags;
			q->kstack = 0;
			q->ustack = 0;
			if (!submit_fill(q, kiocb->ki_filp, pid_tgid, true, false)) {
				slot_seq_bump(s);
				slot_release(s, id);
				if (nhash > 0)
					hash_purge(&key);
				return 0;
			}
			slot_seq_bump(s);
			if (nhash > 0)
				hash_purge(&key);
			if (want_reconcile)
				pend_note(q);
			return 0;
		}
		/* slot taken by another request: the hash map, below */
	}
	r.ts = bpf_ktime_get_ns();
	r.id = id;
	if (want_ids || !btf) {
		r.ctx = BPF_CORE_READ(ak, ki_ctx, user_id);
		r.obj = BPF_CORE_READ(ak, ki_res.obj);
		r.data = BPF_CORE_READ(ak, ki_res.data);
	} else {
		r.data = iocb->aio_data;
	}
	if (btf) {
		r.offset = iocb->aio_offset;
		r.len = iocb->aio_nbytes;
	} else {
		r.offset = BPF_CORE_READ(iocb, aio_offset);
		r.len = BPF_CORE_READ(iocb, aio_nbytes);
	}
	r.op = op;
	r.api = AIOS_API_AIO;
	if (targ_stacks) {
		r.kstack = stack_id(ctx, 0);
		r.ustack = stack_id(ctx, BPF_F_USER_STACK);
	}
	submit_req(&key, &r, btf ? kiocb->ki_filp : BPF_CORE_READ(kiocb, ki_filp), pid_tgid, btf,
		   false);
	return 0;
}

/*
 * The return of aio_read/aio_write/aio_fsync. They return 0 once the request is in
 * the driver's hands (even if it already completed inline: aio_rw_done completes
 * every result but -EIOCBQUEUED), or an error (-EBADF, -EINVAL from rw_verify_area,
 * -EFAULT, ...) before it got there: then io_submit_one destroys the kiocb and
 * aio_complete never runs. Forget such a request here, or it would stay pending (and
 * in the queue depth) until its kiocb address is reused.
 */
static __always_inline void on_submit_ret(__u64 id, long ret)
{
	struct aios_key key = { .id = id };
	struct aios_req r;

	if (!ret)
		return;
	if (inflight_take(&key, &r))
		stale(&r);
}

/*
 * The twin completion hook (fentry mode). The kernel skips a program that is already
 * active on the CPU, so a completion in an interrupt (aiodev's hrtimer completing a
 * whole batch) that arrives while a process-context completion runs that program is
 * lost. fentry mode therefore hooks aio_complete_rw and also aio_complete, which it
 * calls: whichever of the two is not the interrupted one takes the record. With
 * @twin (aio_complete behind aio_complete_rw), finding no record is the normal case,
 * and finding one for a read or write means aio_complete_rw's run was skipped: a
 * rescue, counted, which user space subtracts from that program's misses.
 */
const volatile bool complete_twin = false;

static __always_inline void twin_took(bool twin, __u8 op)
{
	if (twin && op != AIOS_OP_FSYNC && op != AIOS_OP_FDSYNC)
		drop(AIOS_CNT_RESCUED);
}

/*
 * @rw: called from aio_complete_rw (see fentry_aio_complete_rw) with the result in
 * @rw_res, before it is stored in the aio_kiocb. @twin: see complete_twin.
 */
static __always_inline int on_complete(struct aio_kiocb *ak, bool btf, __u64 id, bool rw,
				       __s64 rw_res, bool twin)
{
	struct aios_key key = { .id = id };
	struct aios_req r;
	__u64 now, data;
	__s64 res;

	/*
	 * The request's user data, to check the record against: a record whose data
	 * differs is a stale one, left by an earlier request on this kiocb whose
	 * completion was not seen, and this request's submit was not seen either.
	 */
	data = btf ? ak->ki_res.data : BPF_CORE_READ(ak, ki_res.data);
	if (fault_lose_data && data >= fault_lose_data)
		return 0;
	if (lean) {
		struct aios_slot *s = slot_of(id);

		if (s && s->kiocb == id) {
			__u64 ts = s->req.ts, dns = s->req.driver_ns, lat, g;
			__u8 flags = s->req.flags, op = s->req.op;
			bool same = s->req.data == data;

			slot_release(s, id);
			if (!same) {
				drop(AIOS_DROP_UNMATCHED);
				return 0;
			}
			twin_took(twin, op);
			now = bpf_ktime_get_ns();
			lat = now - ts;
			if (lat < min_lat_ns)
				return 0;
			g = hist_by == AIOS_BY_OP ? op : 0;
			hist_add(AIOS_H_LAT, g, lat);
			if (flags & AIOS_F_DRIVER)
				hist_add(AIOS_H_DRIVER, g, dns);
			return 0;
		}
	}
	/*
	 * snoop alone (fentry): the record goes from the slot straight into the ring
	 * buffer, without the two copies through the stack. A cancelled request takes
	 * the long way (its io_cancel details are looked up there).
	 */
	if (want_events && btf && !want_hist && !want_qd && !want_hist_reap && !want_reconcile &&
	    !mode_syscalls) {
		struct aios_slot *s = slot_of(id);
		__u32 state;

		res = ak->ki_res.res;
		/* not in its slot, stale, or cancelled: the long way below */
		state = s && s->kiocb == id && s->req.data == data ?
			state_of(res, s->req.flags) : AIOS_CANCELLED;
		if (state != AIOS_CANCELLED) {
			now = bpf_ktime_get_ns();
			if (now - s->req.ts >= min_lat_ns) {
				struct aios_done *e = reserve_done(now, res, state, 0);

				if (e) {
					__builtin_memcpy(&e->req, &s->req, sizeof(e->req));
					e->req.ctx = ak->ki_ctx->user_id;
					e->req.obj = ak->ki_res.obj;
					e->req.data = ak->ki_res.data;
					bpf_ringbuf_submit(e, rb_flags());
				}
			}
			twin_took(twin, s->req.op);
			slot_release(s, id);
			return 0;
		}
	}
	if (!inflight_take(&key, &r)) {
		if (!twin)
			unmatched(AIOS_DROP_UNMATCHED);
		return 0;
	}
	if (r.data != data) {
		missed(&r);
		drop(AIOS_DROP_UNMATCHED);
		return 0;
	}
	if (want_reconcile)
		pend_forget(&r);
	twin_took(twin, r.op);
	now = bpf_ktime_get_ns();
	if (btf) {
		r.ctx = ak->ki_ctx->user_id;
		r.obj = ak->ki_res.obj;
		r.data = ak->ki_res.data;
		res = ak->ki_res.res;
	} else if (rw) {
		r.ctx = BPF_CORE_READ(ak, ki_ctx, user_id);
		r.obj = BPF_CORE_READ(ak, ki_res.obj);
		r.data = data;
		res = rw_res;
	} else {
		res = BPF_CORE_READ(ak, ki_res.res);
	}
	finish(&r, now, res, false);
	return 0;
}

/*
 * A reaped event whose request is still pending: its completion was not seen (see
 * want_reconcile). Take the request out of the in-flight table and the queue depth,
 * counted. Unless aiodev saw it complete (below), its latency is not known (the reap
 * is later than the completion) and it is not reported. @have_res: @res is the
 * reaped event's result (not at exit or io_destroy). A request the reap finds just being replaced by a new one on the same
 * kiocb may be taken instead of it; that one's completion then finds no record: the
 * queue depth stays right either way.
 */
static __always_inline void reconcile(struct aios_key *k, bool have_res, __s64 res)
{
	struct pend_ref *v = bpf_map_lookup_elem(&pend_obj, k);
	struct aios_key ik = {};
	struct aios_req *p, r;
	__u64 ts;

	if (!v)
		return;		/* the normal case: its completion was seen */
	ik.id = v->id;
	ts = v->ts;
	bpf_map_delete_elem(&pend_obj, k);
	p = inflight_find(&ik);
	if (!p || p->ts != ts || !inflight_take(&ik, &r))
		return;
	if ((r.flags & AIOS_F_DRIVER) && r.done_ts >= r.ts) {
		/*
		 * aiodev's completion tracepoint (a raw tracepoint: never skipped)
		 * saw it complete: report it as the driver completed it, a few
		 * microseconds before aio_complete. Only here, where requests are
		 * few, not at every kiocb reuse: finish() inlined into each submit
		 * program would multiply the object's size.
		 */
		drop(AIOS_CNT_RECONCILED);
		finish(&r, r.done_ts, have_res ? res : r.done_res, false);
		return;
	}
	missed(&r);
}

/* Per event: kernel-side joins (hist --reap; syscalls mode; reconciliation). */
static long reap_ev_cb(__u32 i, void *data)
{
	struct reap_ctx *c = data;
	struct aios_io_event ev;
	struct aios_key k;

	if (i >= c->n)
		return 1;
	if (bpf_probe_read_user(&ev, sizeof(ev),
				(void *)(c->events + (__u64)i * sizeof(ev)))) {
		drop_n(AIOS_DROP_REAP_READ, c->n - i);
		return 1;
	}
	k.id = ev.obj;
	k.aux = aios_aux(c->ctx, c->tgid);
	if (mode_syscalls) {
		struct aios_req r;

		if (!inflight_take(&k, &r)) {
			unmatched(AIOS_DROP_UNMATCHED);
			return 0;
		}
		if (want_qd)
			qd_all(&r, -1);
		finish(&r, c->now, ev.res, true);
		return 0;
	}
	if (want_reconcile)
		reconcile(&k, true, ev.res);
	if (!reap_join(&k, c->now) && want_hist_reap)
		unmatched(AIOS_DROP_REAP_UNMATCHED);
	return 0;
}

static __always_inline void on_reap(__u64 ctx, __u64 events_ptr, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct reap_ctx c;

	if (ret <= 0)
		return;
	if (want_hist_syscalls)
		hist_add(AIOS_H_REAP_BATCH, 0, ret);
	if (!want_event_reap && !want_hist_reap && !want_reconcile && !want_unreaped &&
	    !mode_syscalls)
		return;
	c.now = bpf_ktime_get_ns();
	c.ctx = ctx;
	c.events = events_ptr;
	c.tgid = pid_tgid >> 32;
	c.n = ret;
	/*
	 * The kernel-side joins first: a request reconciled here is reported (its
	 * done record) before the reap record that names it, which user space's
	 * join then finds waiting.
	 */
	if (want_hist_reap || want_reconcile || want_unreaped || mode_syscalls)
		bpf_loop(c.n, reap_ev_cb, &c, 0);
	if (want_event_reap && !mode_syscalls) {
		if (c.n == 1)
			reap_one(&c);
		else if (c.n <= AIOS_REAP_BATCH)
			reap_rec_cb(0, &c);
		else
			bpf_loop((c.n + AIOS_REAP_BATCH - 1) / AIOS_REAP_BATCH, reap_rec_cb, &c,
				 0);
	}
}

#endif /* AIOSCOPE_LIBAIO_BPF_H */
