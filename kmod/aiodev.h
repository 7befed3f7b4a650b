/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __AIODEV_H
#define __AIODEV_H

#undef pr_fmt
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "compat.h"

/* Upper bound of latency_ns and jitter_ns: one hour. */
#define AIODEV_MAX_DELAY_NS	(3600ULL * NSEC_PER_SEC)
#define AIODEV_MAX_QUEUE_DEPTH	65536
#define AIODEV_MAX_DEVICES	64
/* latency_profile: at most this many buckets (and one page of text) */
#define AIODEV_PROFILE_MAX_BUCKETS	256

/* Completion context of asynchronous requests (knob `completion`). */
enum aiodev_completion {
	AIODEV_COMP_HRTIMER,	/* hrtimer callback (hardirq); softirq if no delay */
	AIODEV_COMP_WORKQUEUE,	/* work item on the driver's workqueue */
	AIODEV_COMP_INLINE,	/* result returned from the submit call */
};

/* Values of the tracepoints' `op` field. */
enum aiodev_op {
	AIODEV_OP_READ = 0,
	AIODEV_OP_WRITE = 1,
	AIODEV_OP_FSYNC = 2,
};

/* Values of the tracepoints' `api` field. */
enum aiodev_api {
	AIODEV_API_SYNC = 0,
	AIODEV_API_AIO = 1,
	AIODEV_API_URING = 2,
	AIODEV_API_OTHER = 3,
};

/* Tracepoint `flags` bits. */
#define AIODEV_TRACE_STALLED	BIT(0)

/*
 * Life of a request (aiodev_req.state). Every transition happens under
 * dev->lock with atomic_cmpxchg(); the path that moves a request out of
 * QUEUED owns it: it alone calls ki_complete() and frees it.
 *
 *   SUBMITTING --(submitter)--> QUEUED --(timer/work)--> COMPLETING
 *        |                        |
 *        | (cancel fn)            +---(cancel fn/abort)--> CANCELLED
 *        v
 *   CANCEL_ASKED --(submitter)--> CANCELLED
 *
 * Synchronous and inline requests stay in SUBMITTING until they retire.
 */
enum aiodev_req_state {
	AIODEV_REQ_SUBMITTING,
	AIODEV_REQ_CANCEL_ASKED,
	AIODEV_REQ_QUEUED,
	AIODEV_REQ_COMPLETING,
	AIODEV_REQ_CANCELLED,
};

struct aiodev_dev;
struct aiodev_profile;

/* One request: on the stack (sync, fsync) or from aiodev_req_cache (async). */
struct aiodev_req {
	struct aiodev_dev *dev;
	struct kiocb *kiocb;		/* NULL for fsync */
	struct list_head node;		/* P: dev->lock, on dev->pending */
	struct list_head abort_node;	/* on abort's private victim list */
	struct list_head ready_node;	/* P: dev->lock, on dev->ready */
	atomic_t state;			/* enum aiodev_req_state, P: dev->lock */
	struct hrtimer timer;		/* latency timer (async only) */
	struct work_struct work;	/* workqueue completion (async only) */
	struct work_struct cancel_work;	/* deferred -ECANCELED completion */
	u64 submit_ns;			/* ktime_get_ns() at admission */
	u64 delay_ns;			/* delay drawn at admission (profile.c) */
	u64 wseq;			/* write sequence number, writes only */
	loff_t pos;			/* byte offset */
	size_t len;			/* bytes requested (after clamping) */
	ssize_t res;			/* result to deliver */
	u32 op;				/* enum aiodev_op */
	u32 api;			/* enum aiodev_api */
	u32 completion;			/* enum aiodev_completion, from admission */
	bool async;			/* completed through ki_complete() */
	bool fail;			/* chosen by fail_every or the profile's errors */
	bool stalled;			/* chosen by stall_every */
	u64 ctx_id;			/* libaio: aio_context_t, else 0 */
	u64 obj;			/* libaio: user iocb pointer, else 0 */
	pid_t tgid;
	pid_t pid;
	char comm[TASK_COMM_LEN];
};

/* Runtime knobs, copied from the module parameters at creation. */
struct aiodev_config {
	u64 latency_ns;			/* base completion latency, ns */
	u64 jitter_ns;			/* uniform extra latency 0..jitter_ns, ns */
	u32 completion;			/* enum aiodev_completion */
	u32 queue_depth;		/* max admitted read/write requests */
	u32 fail_every;			/* every Nth request fails with -EIO, 0 off */
	u32 stall_every;		/* every Nth async request stalls, 0 off */
	u64 seed;			/* of dev->rng, 0: random */
};

/* Counters shown by the `stats` attribute. */
struct aiodev_stats {
	u64 submitted;			/* requests accepted (sync, async, fsync) */
	u64 completed;			/* finished with res >= 0 */
	u64 failed;			/* finished with res < 0 (not cancelled) */
	u64 cancelled;			/* finished by io_cancel, abort or teardown */
	u64 stalled;			/* requests ever chosen by stall_every */
	u64 inflight;			/* accepted and not finished */
	u64 max_inflight;		/* high-water mark of inflight */
	u64 bytes_read;			/* bytes of successful reads */
	u64 bytes_written;		/* bytes of successful writes */
};

struct aiodev_dev {
	/*
	 * Protects pending, cfg, stats, nr_slots, nr_*_seen, wseq, rng,
	 * the profile pointer (readers outside it use RCU) and the state of
	 * every request on pending. Taken with spin_lock_irqsave()
	 * everywhere: the hrtimer callback runs in hardirq context and the
	 * aio cancel callback runs with irqs off under the aio ctx_lock
	 * (lock order: ctx_lock -> dev->lock; never call ki_complete() or
	 * kiocb_set_cancel_fn() with dev->lock held).
	 */
	spinlock_t lock;
	struct list_head pending;	/* P: lock, in admission order */
	struct aiodev_config cfg;	/* P: lock (writers), READ_ONCE readers */
	struct aiodev_stats stats;	/* P: lock */
	u32 nr_slots;			/* P: lock, admitted reads and writes */
	u64 nr_fail_seen;		/* P: lock, reads/writes since fail_every was set */
	u64 nr_stall_seen;		/* P: lock, async reads/writes since stall_every was set */
	u64 wseq;			/* P: lock, last write sequence number */
	u64 rng;			/* P: lock, generator state (profile.c) */
	struct aiodev_profile __rcu *profile;	/* P: lock; NULL: latency_ns/jitter_ns */
	struct list_head ready;		/* P: lock, zero-delay hrtimer-mode requests */
	struct tasklet_struct ready_tasklet;	/* completes dev->ready (softirq) */
	wait_queue_head_t room_wq;	/* waiters for nr_slots < queue_depth */
	wait_queue_head_t fsync_wq;	/* fsync waiters for older writes */

	struct xarray pages;		/* backing store, index = pos >> PAGE_SHIFT */
	loff_t capacity;		/* bytes */
	atomic_t fail_page_alloc;	/* debugfs: fail the next N page allocations */
	u64 pending_lock_max_ns;	/* debugfs: longest lock hold of the listing */
	u64 pending_gen;		/* P: lock, changes of the pending list (debugfs) */

	unsigned int index;		/* N in aiodevN */
	dev_t devt;
	struct cdev cdev;
	struct device *device;
	struct dentry *debugfs_dir;
};

/* main.c */
extern struct workqueue_struct *aiodev_wq;
extern struct kmem_cache *aiodev_req_cache;

/* io.c */
extern const struct file_operations aiodev_fops;
extern unsigned long aiodev_store_max_pages;	/* budget of all stores, pages */
void aiodev_ready_fn(struct tasklet_struct *t);
unsigned int aiodev_abort(struct aiodev_dev *dev);
void aiodev_store_free(struct aiodev_dev *dev);

/* profile.c */
void aiodev_rng_reset_locked(struct aiodev_dev *dev);
u64 aiodev_draw_delay_locked(struct aiodev_dev *dev);
bool aiodev_draw_error_locked(struct aiodev_dev *dev);
bool aiodev_profile_active(struct aiodev_dev *dev);
ssize_t aiodev_profile_show(struct aiodev_dev *dev, char *buf);
ssize_t aiodev_profile_store(struct aiodev_dev *dev, const char *buf,
			     size_t count);
void aiodev_profile_free(struct aiodev_dev *dev);

/* sysfs.c */
extern const struct attribute_group *aiodev_groups[];
const char *aiodev_completion_name(u32 completion);

/* debugfs.c */
void aiodev_debugfs_init(void);
void aiodev_debugfs_add(struct aiodev_dev *dev);
void aiodev_debugfs_exit(void);

#endif /* __AIODEV_H */
