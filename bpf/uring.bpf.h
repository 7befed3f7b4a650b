/* SPDX-License-Identifier: GPL-2.0 */
/* uring.bpf.h - io_uring's own tracepoints (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_URING_BPF_H
#define AIOSCOPE_URING_BPF_H

/*
 * io_uring's own tracepoints, as raw tracepoints (cheaper than classic ones, and
 * not skipped when another tracing program runs on the CPU). Their arguments are
 * read by position, the io_kiocb behind them with CO-RE:
 *   submit: io_uring_submit_req(req) since 6.4, io_uring_submit_sqe(req,
 *           force_nonblock) before: user space attaches whichever exists. It fires
 *           after the SQE is prepared, before the request is issued.
 *   complete: io_uring_complete(ctx, req, ...): the CQE is being written to the
 *           ring (req is NULL for CQEs that belong to no request).
 * The application reaps CQEs from the shared ring without a syscall. Where the
 * reaps are wanted (want_uring_reap), each traced CQE gets a tail mark, the ring's
 * CQ tail just after the CQE was taken (every kernel fires io_uring_complete after
 * that), and the ring's CQ head, which the application writes, is read whenever a
 * task enters io_uring_enter on the ring: CQEs whose mark the head reached were
 * reaped by then (struct aios_cq_head). A reap is seen at the next io_uring_enter
 * on the ring after it, so its time is an upper bound (docs/stages.md).
 * The request holds its file only once it is issued. Where pending requests are
 * shown (in-flight table, queue depth) the submit looks the file up from the SQE's
 * descriptor in the submitter's file table; a registered (fixed) file, and every
 * file elsewhere, is read at completion, and the file filters apply there.
 * A request submitted with IOSQE_CQE_SKIP_SUCCESS posts no CQE when it succeeds, so
 * its completion cannot be seen: it is not followed (it would look stuck). A CQE
 * that overflows the CQ ring is not traced either (the tracepoint fires once a ring
 * entry was found): its request stays pending until its io_kiocb is reused, when
 * inflight_put replaces the stale entry and releases its queue depth.
 */
const volatile bool want_uring = false;

/* io_kiocb flags that mirror the SQE's (IOSQE_*_BIT, ABI) */
#define URING_F_FIXED_FILE	(1U << 0)
#define URING_F_CQE_SKIP	(1U << 6)

/* io_uring_enter's flags and the registered rings' table (ABI) */
#define URING_ENTER_REGISTERED_RING	(1U << 4)
#define URING_RINGFD_REG_MAX		16

/*
 * The CQ head of each ring with a traced completion, as last seen. An entry is made
 * at the ring's first traced completion, from the head then: every traced CQE's
 * mark is above it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);		/* struct io_ring_ctx * */
	__type(value, __u32);
} cq_seen SEC(".maps");

/* IORING_OP_* numbers are ABI */
static __always_inline int uring_op(__u8 opcode, bool *vectored)
{
	*vectored = opcode == 1 || opcode == 2;
	switch (opcode) {
	case 1:		/* READV */
	case 4:		/* READ_FIXED */
	case 22:	/* READ */
		return AIOS_OP_READ;
	case 2:		/* WRITEV */
	case 5:		/* WRITE_FIXED */
	case 23:	/* WRITE */
		return AIOS_OP_WRITE;
	case 3:		/* FSYNC */
		return AIOS_OP_FSYNC;
	}
	return -1;
}

SEC("?raw_tp/io_uring_submit_req")
int raw_uring_submit(struct bpf_raw_tracepoint_args *ctx)
{
	struct io_kiocb *req = (void *)ctx->args[0];
	struct aios_key key = { .id = (__u64)req };
	struct aios_req r = {};
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct file *f = NULL;
	bool vectored;
	__u32 rflags;
	int op;

	if (!req)
		return 0;
	/*
	 * io_kiocb.flags grew from 32 to 64 bits (6.9): read at the running kernel's
	 * size (a CO-RE size relocation); the bits needed are in the low word.
	 */
	op = uring_op(BPF_CORE_READ(req, opcode), &vectored);
	rflags = (__u32)BPF_CORE_READ_BITFIELD_PROBED(req, flags);
	/* io_kiocbs are recycled at once: one not followed must not find a stale record */
	if (op < 0 || (rflags & URING_F_CQE_SKIP) ||
	    ((targ_tgid || filter_cg) && !task_ok(pid_tgid >> 32))) {
		forget(&key);
		return 0;
	}
	r.ts = bpf_ktime_get_ns();
	r.id = key.id;
	r.ctx = (__u64)BPF_CORE_READ(req, ctx);
	r.data = BPF_CORE_READ(req, cqe.user_data);
	r.op = op;
	r.api = AIOS_API_URING;
	r.kstack = targ_stacks ? stack_id(ctx, 0) : -1;
	r.ustack = targ_stacks ? stack_id(ctx, BPF_F_USER_STACK) : -1;
	if (op != AIOS_OP_FSYNC) {
		/*
		 * The io_rw command overlays the start of the io_kiocb (its cmd union).
		 * struct io_rw is io_uring's private type, in the kernel's BTF where
		 * io_uring is built in; without it, only the kiocb it starts with.
		 */
		if (bpf_core_type_exists(struct io_rw)) {
			r.offset = BPF_CORE_READ((struct io_rw *)req, kiocb.ki_pos);
			if (!vectored && bpf_core_field_exists(struct io_rw, len))
				r.len = BPF_CORE_READ((struct io_rw *)req, len);
		} else {
			r.offset = BPF_CORE_READ((struct kiocb *)req, ki_pos);
		}
	}
	/* the file the request will be issued on, for the per-device views */
	if ((want_ids || want_qd) && !(rflags & URING_F_FIXED_FILE))
		f = fd_file(BPF_CORE_READ(req, cqe.fd));
	submit_req(&key, &r, f, pid_tgid, false, true);
	return 0;
}

/*
 * io_uring_complete(ctx, req, ...): the request is the second argument in every
 * version; what follows it changed (6.1, 6.12: user_data, res, cflags, extra1,
 * extra2; newer kernels: one struct io_uring_cqe *), so the result is read from the
 * request's own cqe, where both fill it from. User space checks the argument's
 * place in the running kernel's BTF before attaching.
 */
SEC("?raw_tp/io_uring_complete")
int raw_uring_complete(struct bpf_raw_tracepoint_args *ctx)
{
	struct io_kiocb *req = (void *)ctx->args[1];
	struct aios_key key = { .id = (__u64)req };
	struct aios_req r;
	bool qd_done = false;

	/* not a request followed here (another opcode, a filtered submitter) */
	if (!req || !inflight_take(&key, &r) || r.api != AIOS_API_URING)
		return 0;
	/* a stale record (see on_complete): another request's */
	if (r.data != BPF_CORE_READ(req, cqe.user_data)) {
		missed(&r);
		drop(AIOS_DROP_UNMATCHED);
		return 0;
	}
	if (!r.dev && !r.ino) {
		/*
		 * File not known at submit: counted in the queue depth of "no device",
		 * released from there before the device is filled in.
		 */
		if (want_qd)
			qd_all(&r, -1);
		qd_done = true;
		file_ids(BPF_CORE_READ(req, file), &r.dev, &r.ino, false);
		if (!file_ok(r.dev, r.ino))
			return 0;
	}
	if ((r.flags & AIOS_F_SAMPLE_LATER) && !sample_keep())
		return 0;
	if (want_uring_reap) {
		struct io_ring_ctx *uctx = (void *)r.ctx;

		r.obj = BPF_CORE_READ(uctx, cached_cq_tail);
		if (!bpf_map_lookup_elem(&cq_seen, &r.ctx)) {
			__u32 head = BPF_CORE_READ(uctx, rings, cq.head);

			bpf_map_update_elem(&cq_seen, &r.ctx, &head, BPF_NOEXIST);
		}
	}
	finish(&r, bpf_ktime_get_ns(), BPF_CORE_READ(req, cqe.res), qd_done);
	return 0;
}

struct cq_reap {
	__u64 aux;	/* uring_aux(ring, tgid) */
	__u64 now;
	__u32 from;
};

/* the kernel-side joins: one tail mark of the window (not traced: nothing found) */
static long cq_reap_cb(__u32 i, void *data)
{
	struct cq_reap *c = data;
	struct aios_key k = { .id = (__u32)(c->from + 1 + i), .aux = c->aux };

	reap_join(&k, c->now);
	return 0;
}

/* the file io_uring_enter names: a descriptor, or a registered ring's index */
static __always_inline struct file *uring_enter_file(__u32 fd, __u32 flags)
{
	struct task_struct *task;
	struct io_uring_task *tctx;
	struct file *f = NULL;

	if (!(flags & URING_ENTER_REGISTERED_RING))
		return fd_file(fd);
	task = (void *)bpf_get_current_task();
	tctx = BPF_CORE_READ(task, io_uring);
	if (!tctx || fd >= URING_RINGFD_REG_MAX)
		return NULL;
	bpf_core_read(&f, sizeof(f), &tctx->registered_rings[fd]);
	return f;
}

/*
 * io_uring_enter(fd, to_submit, min_complete, flags, ...): the reaps since the last
 * entry on this ring. A ring is known by its context, the file's private data; a
 * file that is not a ring with traced completions finds no entry in cq_seen.
 * A kprobe on the syscall's entry (libbpf finds the architecture's wrapper), not
 * the syscall tracepoint: enabling that one sends every system call of every task
 * through the slow path, this costs only io_uring_enter's callers.
 */
SEC("?ksyscall/io_uring_enter")
int BPF_KSYSCALL(ksys_uring_enter, unsigned int fd, __u32 to_submit, __u32 min_complete,
		 __u32 flags)
{
	struct file *f = uring_enter_file(fd, flags);
	struct io_ring_ctx *uctx;
	struct aios_cq_head *rec;
	__u32 *seen, head, from;
	__u64 key;

	if (!f)
		return 0;
	key = (__u64)BPF_CORE_READ(f, private_data);
	seen = bpf_map_lookup_elem(&cq_seen, &key);
	if (!seen)
		return 0;
	uctx = (void *)key;
	head = BPF_CORE_READ(uctx, rings, cq.head);
	from = *seen;
	if (head == from)
		return 0;
	/* a head that went back: a new ring in a freed one's place; start over */
	if ((__s32)(head - from) < 0) {
		*seen = head;
		return 0;
	}
	/* threads entering at once: one of them reports the window */
	if (__sync_val_compare_and_swap(seen, from, head) != from)
		return 0;
	if (want_hist_reap || want_unreaped) {
		struct cq_reap c = { .aux = uring_aux(key, bpf_get_current_pid_tgid() >> 32),
				     .now = bpf_ktime_get_ns(), .from = from };
		__u32 n = head - from;

		bpf_loop(n < AIOS_URING_CQ_MAX ? n : AIOS_URING_CQ_MAX, cq_reap_cb, &c, 0);
	}
	if (!want_event_reap)
		return 0;
	rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);
	if (!rec) {
		drop(AIOS_DROP_RINGBUF);
		return 0;
	}
	rec->type = AIOS_REC_CQ_HEAD;
	rec->pid = bpf_get_current_pid_tgid() >> 32;
	rec->ts = bpf_ktime_get_ns();
	rec->ctx = key;
	rec->from = from;
	rec->to = head;
	bpf_ringbuf_submit(rec, rb_flags());
	return 0;
}

#endif /* AIOSCOPE_URING_BPF_H */
