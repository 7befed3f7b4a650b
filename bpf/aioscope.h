/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aioscope.h - types shared by bpf/aioscope.bpf.c and user space (cli/collect/tracer.c).
 * Only __u32/__u64 types, no kernel includes: BPF (vmlinux.h), the CLI and tests
 * all include it.
 *
 * The maps (see aioscope.bpf.c):
 *   slots      ARRAY (mmap) of struct aios_slot         pending requests, by kiocb
 *   inflight   HASH  struct aios_key -> struct aios_req   pending requests that found
 *                                                        their slot taken; syscalls mode
 *   done       HASH  struct aios_key -> {ts, group}      completion time, waiting
 *                                                        for its reap (hist --reap)
 *   hists      PERCPU_HASH struct aios_hkey -> struct aios_hist
 *   cancels    LRU_HASH struct aios_key -> struct aios_cancel  io_cancel calls, by
 *                                                        (user iocb, context, tgid)
 *   qd         HASH  struct aios_qkey -> struct aios_qd  queue depth (now, max since qd_gen)
 *   stacks     STACK_TRACE  id -> __u64[AIOS_STACK_DEPTH]  submit stacks (stuck --stack)
 *   drops      PERCPU_ARRAY [AIOS_DROP_NR] __u64          drop counters
 *   events     RINGBUF of struct aios_done / struct aios_reap records
 */
#ifndef __AIOSCOPE_H
#define __AIOSCOPE_H

#define AIOS_COMM_LEN		16
#define AIOS_REAP_BATCH		32	/* io_events per reap record */
#define AIOS_URING_CQ_MAX	65536	/* CQEs joined per CQ head sample at most
					 * (IORING_MAX_CQ_ENTRIES) */

/*
 * Key of the in-flight table.
 * fentry/kprobe modes: id = kiocb address, aux = 0.
 * syscalls mode: id = user iocb pointer, aux = aios_aux(ctx, tgid).
 */
struct aios_key {
	__u64 id;
	__u64 aux;
};

/*
 * Key joining a completion to its reap, and syscalls-mode key: user iocb pointers
 * and context ids are per process; contexts are page aligned.
 */
static inline __u64 aios_aux(__u64 ctx, __u32 tgid)
{
	return (ctx >> 12) | ((__u64)tgid << 40);
}

/*
 * The same for an io_uring ring (a kernel pointer, its struct io_ring_ctx; the low
 * 40 bits of its cache-line number), bit 63 set: never an aios_aux.
 */
static inline __u64 uring_aux(__u64 ring, __u32 tgid)
{
	return ((ring >> 6) & ((1ULL << 40) - 1)) | ((__u64)tgid << 40) | (1ULL << 63);
}

enum aios_op { AIOS_OP_READ, AIOS_OP_WRITE, AIOS_OP_FSYNC, AIOS_OP_FDSYNC,
	       AIOS_OP_POLL, AIOS_OP_OTHER };
/* same values as aiodev's api field */
enum aios_api { AIOS_API_SYNC, AIOS_API_AIO, AIOS_API_URING, AIOS_API_OTHER };
enum aios_state { AIOS_DONE, AIOS_ERROR, AIOS_CANCELLED };

/* aios_req.flags */
#define AIOS_F_CANCELLED	1U	/* aiodev_cancel fired for it */
#define AIOS_F_DRIVER		2U	/* driver_ns is valid */
#define AIOS_F_SAMPLE_LATER	4U	/* sampled at completion, where its file is known */
#define AIOS_F_KEPT		8U	/* sampled already (before the slot was found taken) */

/* A pending request (value of the in-flight table). */
struct aios_req {
	__u64 ts;		/* submit, bpf_ktime_get_ns() */
	__u64 id;		/* kiocb address (syscalls mode: user iocb pointer) */
	__u64 ctx;		/* kioctx user_id */
	__u64 obj;		/* user iocb pointer; io_uring: its CQE's tail mark,
				 * set at completion (struct aios_cq_head) */
	__u64 data;		/* aio_data */
	__u64 ino;
	__s64 offset;
	__u64 len;		/* bytes requested */
	__u64 driver_ns;	/* aiodev's lat_ns (flags & AIOS_F_DRIVER) */
	__u64 done_ts;		/* when aiodev completed it (flags & AIOS_F_DRIVER) */
	__s64 done_res;		/* and with what result */
	/* want_stages: the block layer's times of it (stages.bpf.h), 0 not seen */
	__u64 queue_ts;		/* its first bio queued */
	__u64 issue_ts;		/* its first block request issued to the driver */
	__u64 devdone_ts;	/* its last block request completed by the device */
	__u64 punt_ts;		/* io_uring: first handed to io-wq */
	__u64 worker_ts;	/* io_uring: an io-wq worker first started it */
	__u32 dev;		/* kernel dev_t: i_rdev of device nodes, else s_dev */
	__u32 pid;		/* submitter tgid */
	__u32 tid;
	__u32 qd;		/* device queue depth after this submit (want_qd) */
	__u8 op;		/* enum aios_op */
	__u8 api;		/* enum aios_api */
	__u8 flags;
	__u8 pad;
	__u16 bios;		/* want_stages: bios queued for it (saturates) */
	__u8 pad2[2];
	char comm[AIOS_COMM_LEN];	/* only with want_comm */
	__s32 kstack;		/* targ_stacks: stacks map ids at submit, -1 none */
	__s32 ustack;
};

/*
 * A finished request its application has not reaped yet (value of the unreaped
 * map, keyed as its reap finds it: libaio by user iocb and aios_aux, io_uring by
 * its CQE's tail mark and uring_aux).
 */
struct aios_unreaped {
	struct aios_req req;
	__u64 done_ts;		/* completion: the event was posted */
	__s64 res;
};

/* frames kept per stack (value of the stacks map) */
#define AIOS_STACK_DEPTH	32

/* A slot of the direct-mapped in-flight table: kiocb == 0 when free. */
/*
 * One slot of the in-flight table. The writer/reader contract:
 *  - kiocb: 0 (free) or the kiocb address of the request that holds the slot; only
 *    a compare-and-swap from 0 (or from the same address: a stale copy of the
 *    request's kiocb) claims it, and only its holder frees it.
 *  - seq: a sequence count, odd while the holder writes req, bumped with fully
 *    ordered atomics (when user space reads the slots: want_ids). A reader copies
 *    req between two reads of an even, unchanged seq, and keeps the copy only if
 *    kiocb and req.id still name the same request, so it never sees a half-written
 *    request. Freeing writes req.id = 0 before kiocb = 0 without a bump: a copy
 *    taken meanwhile fails the req.id check.
 *  - In-place updates of single fields of a pending request (the driver's time and
 *    flags) are not counted: each is one aligned store.
 */
struct aios_slot {
	__u64 kiocb;
	__u64 seq;
	struct aios_req req;
};

enum aios_rec_type { AIOS_REC_DONE = 1, AIOS_REC_REAP = 2, AIOS_REC_CQ_HEAD = 3 };

/* Ring buffer record: one finished request. */
struct aios_done {
	__u32 type;		/* AIOS_REC_DONE */
	__u32 state;		/* enum aios_state */
	__u64 ts;		/* completion (syscalls mode: reap) */
	__s64 res;
	__u64 reap_ns;		/* syscalls mode only: 0 */
	/* the io_cancel call that asked for it (cancelled requests, fentry mode) */
	__u64 cancel_ts;	/* 0: none seen */
	__s64 cancel_ret;	/* what io_cancel returned */
	__u32 cancel_pid;
	__u32 cancel_tid;
	struct aios_req req;
};

/* An io_cancel call, until the request it named completes. */
/* aios_cancel.ret while io_cancel has not returned (it never returns > 0) */
#define AIOS_CANCEL_RET_PENDING	1

struct aios_cancel {
	__u64 ts;		/* io_cancel entered */
	__s64 ret;		/* what it returned, or AIOS_CANCEL_RET_PENDING */
	__u32 pid;
	__u32 tid;
};

struct aios_io_event {
	__u64 data;
	__u64 obj;
	__s64 res;
	__s64 res2;
};

/*
 * Ring buffer record: an io_uring CQ ring's head moved, as seen when a task entered
 * io_uring_enter on it. Each traced CQE has a tail mark, the ring's CQ tail just
 * after the CQE was taken (u32, wrapping; aios_req.obj of its DONE record): those
 * with a mark in (from, to] were reaped by @ts, and after the previous sample.
 */
struct aios_cq_head {
	__u32 type;		/* AIOS_REC_CQ_HEAD */
	__u32 pid;		/* the entering tgid */
	__u64 ts;
	__u64 ctx;		/* struct io_ring_ctx * (aios_req.ctx of io_uring requests) */
	__u32 from;
	__u32 to;
};

/* Ring buffer record: up to AIOS_REAP_BATCH events returned by one io_getevents. */
struct aios_reap {
	__u32 type;		/* AIOS_REC_REAP */
	__u32 n;
	__u64 ts;
	__u64 ctx;
	__u32 pid;		/* reaper tgid */
	__u32 pad;
	struct aios_io_event ev[AIOS_REAP_BATCH];
};

/* Histograms: which one a histogram is. User space uses these values as they are. */
enum aios_hist_kind {
	AIOS_H_LAT,		/* submit -> complete ns (syscalls mode: submit -> reap) */
	AIOS_H_REAP,		/* complete -> reap ns (hist --reap) */
	AIOS_H_DRIVER,		/* aiodev's own time ns (aiodev tracepoints present) */
	AIOS_H_SUBMIT_BATCH,	/* requests per io_submit call */
	AIOS_H_REAP_BATCH,	/* events per io_getevents call */
	AIOS_H_BYTES,		/* bytes transferred per request with res > 0
				 * (AIOS_BY_METRIC only): sum = bytes */
	AIOS_H_NR
};

/* Histogram grouping (hist --by), and the group key reported with each histogram. */
enum aios_group {
	AIOS_BY_NONE,		/* one group, key 0 */
	AIOS_BY_OP,		/* key: enum aios_op */
	AIOS_BY_PID,		/* key: submitter tgid */
	AIOS_BY_DEV,		/* key: kernel dev_t (major << 20 | minor) */
	AIOS_BY_CTX,		/* key: aio context user id (aio_context_t) */
	AIOS_BY_QD,		/* key: log2 group of the device queue depth at submit:
				 * 0 -> qd 1, 1 -> 2..3, 2 -> 4..7, ... */
	AIOS_BY_STAGE,		/* key: enum aios_stage_group (stages.bpf.h) */
	AIOS_BY_METRIC		/* key: device, op, api and result together (the
				 * exporter; tracer_metric_group() unpacks it); also
				 * fills AIOS_H_BYTES. Not a choice of hist --by */
};

/*
 * AIOS_BY_METRIC (the exporter): one group per device, op, api and result, packed
 * into the group key as dev << 32 | state << 16 | api << 8 | op.
 */
static inline __u64 aios_metric_group(__u32 dev, __u32 op, __u32 api, __u32 state)
{
	return ((__u64)dev << 32) | ((__u64)(state & 0xff) << 16) | ((api & 0xff) << 8) |
	       (op & 0xff);
}

/*
 * hist --by stage: a request's latency in its stages, one histogram each, and the
 * total; the values of cli/core/stages.h's enum aio_stage, then the total.
 */
enum aios_stage_group {
	AIOS_SG_SUBMIT, AIOS_SG_IOWQ, AIOS_SG_QUEUE, AIOS_SG_DEVICE, AIOS_SG_COMPLETE,
	AIOS_SG_REAP, AIOS_SG_TOTAL, AIOS_SG_NR
};

struct aios_hkey {
	__u64 group;
	__u32 kind;
	__u32 pad;
};

/* AIO_HIST_BUCKETS comes from buckets.h */
#define AIOS_HIST_SLOTS 2048
struct aios_hist {
	__u64 count;
	__u64 sum;
	__u64 max;
	__u64 slots[AIOS_HIST_SLOTS];
};

/* Requests finished per submitting process (want_pid_counts; the exporter's
 * --top-pids): value of the pidc map, keyed by tgid. */
struct aios_pidc {
	__u64 count;
	__u64 bytes;		/* positive results */
};

/* Queue depth. */
enum aios_qd_kind { AIOS_QD_TOTAL, AIOS_QD_DEV, AIOS_QD_CTX, AIOS_QD_PID, AIOS_QD_NR };

struct aios_qkey {
	__u32 kind;
	__u32 pad;
	__u64 key;
};

/*
 * Queue depth: cur is the kernel's alone (user space never writes an entry back,
 * which would lose a concurrent update). max is the highest cur since generation gen;
 * user space starts a new interval by bumping the global qd_gen.
 */
struct aios_qd {
	__s64 cur;
	__u64 max;
	__u64 gen;
};

enum aios_drop {
	AIOS_DROP_RINGBUF,	/* ring buffer full */
	AIOS_DROP_INFLIGHT,	/* in-flight map full */
	AIOS_DROP_HIST,		/* hist map full */
	AIOS_DROP_QD,		/* qd map full */
	AIOS_DROP_DONE,		/* done map full */
	AIOS_DROP_UNMATCHED,	/* completion without a submit record */
	AIOS_DROP_REAP_UNMATCHED, /* reap without a completion record (kernel join) */
	AIOS_DROP_STACK,	/* submit stack not recorded: stacks map full or collision */
	AIOS_CNT_RESCUED,	/* not a drop: completions the twin hook took (see bpf) */
	AIOS_DROP_PIDC,		/* per-process counter map full (want_pid_counts) */
	AIOS_CNT_RECONCILED,	/* not a drop: requests whose completion was not seen,
				 * taken out at kiocb reuse, reap, exit or io_destroy */
	AIOS_DROP_REAP_READ,	/* reaped events not read from the application's
				 * buffer (bpf_probe_read_user failed): no reap time */
	AIOS_CNT_SAMPLE_SEEN,	/* not a drop: requests that passed the filters while
				 * sampling (sample_n > 1), kept or not */
	AIOS_CNT_SAMPLE_KEPT,	/* not a drop: of those, the ones sampled */
	AIOS_DROP_NR,
};

#endif /* __AIOSCOPE_H */
