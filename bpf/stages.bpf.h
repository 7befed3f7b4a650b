/* SPDX-License-Identifier: GPL-2.0 */
/* stages.bpf.h - where a request's time goes: its block-layer and io-wq times, and hist --by stage's cut (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_STAGES_BPF_H
#define AIOSCOPE_STAGES_BPF_H

/*
 * want_stages (snoop --stages, hist --by stage, top --stages, stuck --watch): the
 * block layer's tracepoints mark the pending request a bio belongs to with the time
 * its first bio was queued, its first block request issued to the driver and its
 * last one completed by the device (queue_ts, issue_ts, devdone_ts), and count its
 * bios. User space cuts the request's life at those times (docs/stages.md). For
 * io_uring, also when it was handed to io-wq and when a worker started it
 * (punt_ts, worker_ts).
 *
 * The join is exact: the direct-I/O paths keep the kiocb reachable from each bio,
 * and the bio's completion function says which path made it. Their addresses come
 * from kallsyms (0: that path is not joinable on this kernel):
 *   block/fops.c, one bio (__blkdev_direct_IO_async): the bio is embedded in its
 *     struct blkdev_dio, whose iocb is the request's;
 *   block/fops.c, several bios (__blkdev_direct_IO): bi_private is the blkdev_dio
 *     (for a synchronous one the union holds the waiting task: no pending request
 *     has that address, so the lookup finds nothing);
 *   fs/iomap/direct-io.c (ext4, xfs, ...): bi_private is the struct iomap_dio.
 * The front part of a split bio completes into its parent (bio_chain_endio,
 * bi_private = the parent): followed up to STAGE_CHAIN_MAX levels.
 * A pointer that names no pending request is nothing: the in-flight table is the
 * judge, so a bio of another path never marks a request.
 */
const volatile __u64 end_io_blkdev_async = 0;
const volatile __u64 end_io_blkdev = 0;
const volatile __u64 end_io_iomap = 0;
const volatile __u64 end_io_chain = 0;	/* bio_chain_endio: a split's front part */

/* the kernel's types, as far as they are read: CO-RE finds the rest */
struct blkdev_dio___aios {
	union {
		struct kiocb *iocb;
		struct task_struct *waiter;
	};
	struct bio bio;
} __attribute__((preserve_access_index));

struct iomap_dio___aios {
	struct kiocb *iocb;
} __attribute__((preserve_access_index));

/* block requests hold this many bios at most for the join (merges beyond: not marked) */
#define STAGE_RQ_BIOS	16

#define STAGE_CHAIN_MAX	4

/* The pending request @bio was made for, or NULL. */
static __always_inline struct aios_req *bio_req(struct bio *bio)
{
	__u64 end = (__u64)BPF_CORE_READ(bio, bi_end_io);
	struct aios_key key = {};
	struct kiocb *iocb;

	for (int i = 0; i < STAGE_CHAIN_MAX && end && end == end_io_chain; i++) {
		bio = BPF_CORE_READ(bio, bi_private);
		end = (__u64)BPF_CORE_READ(bio, bi_end_io);
	}
	if (!end)
		return NULL;
	if (end == end_io_iomap) {
		struct iomap_dio___aios *d = BPF_CORE_READ(bio, bi_private);

		iocb = BPF_CORE_READ(d, iocb);
	} else if (end == end_io_blkdev_async || end == end_io_blkdev) {
		struct blkdev_dio___aios *d;

		if (!bpf_core_type_exists(struct blkdev_dio___aios))
			return NULL;
		if (end == end_io_blkdev_async)
			d = (void *)bio - bpf_core_field_offset(struct blkdev_dio___aios, bio);
		else
			d = BPF_CORE_READ(bio, bi_private);
		iocb = BPF_CORE_READ(d, iocb);
	} else {
		return NULL;
	}
	if (!iocb)
		return NULL;
	key.id = (__u64)iocb;
	return inflight_find(&key);
}

SEC("?raw_tp/block_bio_queue")
int BPF_PROG(raw_block_bio_queue, struct bio *bio)
{
	struct aios_req *r = bio_req(bio);

	if (!r)
		return 0;
	if (!r->queue_ts)
		r->queue_ts = bpf_ktime_get_ns();
	if (r->bios < 0xffff)
		r->bios++;
	return 0;
}

/* Mark the requests of @rq's bios: issued (first time only) or completed (last time). */
static __always_inline void rq_mark(struct request *rq, bool issue)
{
	struct bio *bio = BPF_CORE_READ(rq, bio);
	__u64 now = 0;

	for (int i = 0; i < STAGE_RQ_BIOS && bio; i++) {
		struct aios_req *r = bio_req(bio);

		if (r) {
			if (!now)
				now = bpf_ktime_get_ns();
			if (!issue)
				r->devdone_ts = now;
			else if (!r->issue_ts)
				r->issue_ts = now;
		}
		bio = BPF_CORE_READ(bio, bi_next);
	}
}

SEC("?raw_tp/block_rq_issue")
int BPF_PROG(raw_block_rq_issue, struct request *rq)
{
	rq_mark(rq, true);
	return 0;
}

SEC("?raw_tp/block_rq_complete")
int BPF_PROG(raw_block_rq_complete, struct request *rq)
{
	rq_mark(rq, false);
	return 0;
}

/*
 * io_uring's io-wq: a request that cannot be issued without blocking (or that the
 * application marks IOSQE_ASYNC) is handed to a worker thread. The punt has its
 * tracepoint (io_uring_queue_async_work(req, ...) in every version); the worker's
 * start is io_wq_submit_work(work), the io_kiocb's own work member. The first of
 * each counts: a worker may retry a request.
 */
SEC("?raw_tp/io_uring_queue_async_work")
int raw_uring_punt(struct bpf_raw_tracepoint_args *ctx)
{
	struct aios_key key = { .id = ctx->args[0] };
	struct aios_req *r = inflight_find(&key);

	if (r && !r->punt_ts)
		r->punt_ts = bpf_ktime_get_ns();
	return 0;
}

/* @work: the address of an io_kiocb's work member, as a plain number */
static __always_inline void iowq_start(__u64 work)
{
	struct aios_key key = { .id = work - bpf_core_field_offset(struct io_kiocb, work) };
	struct aios_req *r = inflight_find(&key);

	if (r && r->punt_ts && !r->worker_ts)
		r->worker_ts = bpf_ktime_get_ns();
}

/*
 * The argument is read as a number: the verifier types a trampoline's argument as
 * a pointer to its struct, and hashing it into a slot index is pointer arithmetic
 * it refuses.
 */
SEC("?fentry/io_wq_submit_work")
int fentry_iowq_start(__u64 *ctx)
{
	__u64 work = 0;

	bpf_probe_read_kernel(&work, sizeof(work), ctx);
	iowq_start(work);
	return 0;
}

SEC("?kprobe/io_wq_submit_work")
int BPF_KPROBE(kprobe_iowq_start, void *work)
{
	iowq_start((__u64)work);
	return 0;
}

static __always_inline __u64 clamp_ts(__u64 t, __u64 lo, __u64 hi)
{
	return t < lo ? lo : t > hi ? hi : t;
}

/*
 * hist --by stage: @r, completed at @now, into the histograms of its stages up to
 * the completion (the reap's comes at the reap), cut as cli/core/stages.c cuts them:
 * nothing before the completion when the device's part was not seen.
 */
static __always_inline void hist_stages(struct aios_req *r, __u64 now)
{
	__u64 queue = r->queue_ts, issue = r->issue_ts, dev = r->devdone_ts;
	__u64 lo = r->ts, punt = 0, worker = 0;

	if (!dev && (r->flags & AIOS_F_DRIVER) && r->done_ts >= r->ts + r->driver_ns) {
		dev = r->done_ts;
		issue = dev - r->driver_ns;
	}
	if (!issue || !dev || now < r->ts)
		return;
	if (r->punt_ts && r->worker_ts) {
		punt = clamp_ts(r->punt_ts, lo, now);
		worker = clamp_ts(r->worker_ts, punt, now);
		lo = worker;
		hist_add(AIOS_H_LAT, AIOS_SG_IOWQ, worker - punt);
	}
	if (queue)
		queue = clamp_ts(queue, lo, now);
	issue = clamp_ts(issue, queue ? queue : lo, now);
	dev = clamp_ts(dev, issue, now);
	hist_add(AIOS_H_LAT, AIOS_SG_SUBMIT, (queue ? queue : issue) - r->ts - (worker - punt));
	if (queue)
		hist_add(AIOS_H_LAT, AIOS_SG_QUEUE, issue - queue);
	hist_add(AIOS_H_LAT, AIOS_SG_DEVICE, dev - issue);
	hist_add(AIOS_H_LAT, AIOS_SG_COMPLETE, now - dev);
}

#endif /* AIOSCOPE_STAGES_BPF_H */
