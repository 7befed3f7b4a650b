// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O path. Synchronous requests complete inline after an
 * interruptible sleep; asynchronous ones move their data at submit, return
 * -EIOCBQUEUED and are completed later through ki_complete() by an hrtimer
 * or a work item (or, in `inline` mode, return their result directly).
 */
#include "aiodev.h"

#include <linux/aio.h>
#include <linux/highmem.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/percpu-refcount.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "aiodev_trace.h"

/* ---- backing store: sparse pages, zeros where never written ---- */

/*
 * Store pages of every device together, and their budget (module parameter
 * max_store_mb, main.c). Pages are charged to the writer's memory cgroup
 * (__GFP_ACCOUNT) and stay until the module is unloaded.
 */
static atomic_long_t aiodev_store_pages = ATOMIC_LONG_INIT(0);
unsigned long aiodev_store_max_pages;

/*
 * The page of the store at @idx, allocated if it has none (GFP_NOWAIT for an
 * IOCB_NOWAIT request). NULL and *@err if it cannot have one: -ENOSPC past the
 * budget, -EAGAIN (nowait) or -ENOMEM when the allocation fails. The
 * debugfs file fail_page_alloc makes the next N allocations fail.
 */
static struct page *aiodev_store_page(struct aiodev_dev *dev, pgoff_t idx,
				      bool nowait, int *err)
{
	gfp_t gfp = (nowait ? GFP_NOWAIT | __GFP_NOWARN : GFP_KERNEL) |
		    __GFP_ACCOUNT;
	struct page *page, *old;

	page = xa_load(&dev->pages, idx);
	if (page)
		return page;

	if (atomic_long_inc_return(&aiodev_store_pages) >
	    aiodev_store_max_pages) {
		*err = -ENOSPC;
		goto out_unreserve;
	}
	*err = nowait ? -EAGAIN : -ENOMEM;
	if (atomic_add_unless(&dev->fail_page_alloc, -1, 0))
		goto out_unreserve;
	page = alloc_page(gfp | __GFP_ZERO | __GFP_HIGHMEM);
	if (!page)
		goto out_unreserve;
	old = xa_cmpxchg(&dev->pages, idx, NULL, page, gfp);
	if (xa_is_err(old)) {
		__free_page(page);
		goto out_unreserve;
	}
	if (old) {		/* another writer inserted it first */
		__free_page(page);
		atomic_long_dec(&aiodev_store_pages);
		return old;
	}
	return page;

out_unreserve:
	atomic_long_dec(&aiodev_store_pages);
	return NULL;
}

/*
 * Gives every page that a write of @len bytes at @pos touches its place in
 * the store, before the request is admitted, so that an allocation failure
 * is the submit call's result and never a late completion. Returns the bytes
 * covered from @pos (@len, or a shorter prefix when the budget runs out), or
 * -errno if none: -ENOSPC past the budget; -EAGAIN (nowait) or -ENOMEM if an
 * allocation failed anywhere.
 */
static ssize_t aiodev_store_prepare(struct aiodev_dev *dev, loff_t pos,
				    size_t len, bool nowait)
{
	pgoff_t first = pos >> PAGE_SHIFT, idx, last;
	int err;

	if (!len)
		return 0;
	last = (pos + len - 1) >> PAGE_SHIFT;
	for (idx = first; idx <= last; idx++) {
		if (aiodev_store_page(dev, idx, nowait, &err)) {
			if (!nowait)
				cond_resched();
			continue;
		}
		if (err != -ENOSPC || idx == first)
			return err;
		return ((loff_t)idx << PAGE_SHIFT) - pos;
	}
	return len;
}

void aiodev_store_free(struct aiodev_dev *dev)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(&dev->pages, idx, page) {
		__free_page(page);
		atomic_long_dec(&aiodev_store_pages);
	}
	xa_destroy(&dev->pages);
}

/*
 * Copies between the store at @pos and @iter, page by page: into the store
 * (@write, whose pages aiodev_store_prepare() has put in place) or out of it
 * (a page never written reads as zeroes). Bytes moved, or -EFAULT if none.
 */
static ssize_t aiodev_store_copy(struct aiodev_dev *dev, loff_t pos,
				 struct iov_iter *iter, bool write)
{
	size_t want = iov_iter_count(iter), done = 0;

	while (iov_iter_count(iter)) {
		size_t off = offset_in_page(pos);
		size_t chunk = min_t(size_t, PAGE_SIZE - off,
				     iov_iter_count(iter));
		struct page *page = xa_load(&dev->pages, pos >> PAGE_SHIFT);
		size_t n;

		if (write && WARN_ON_ONCE(!page))
			break;
		if (write)
			n = copy_page_from_iter(page, off, chunk, iter);
		else if (page)
			n = copy_page_to_iter(page, off, chunk, iter);
		else
			n = iov_iter_zero(chunk, iter);
		done += n;
		pos += n;
		if (n < chunk)
			break;
	}
	if (!done && want)
		return -EFAULT;
	return done;
}

/* ---- request identity ---- */

/*
 * Which API submitted an asynchronous kiocb. aio marks its read/write
 * kiocbs with IOCB_AIO_RW (6.1.y and 6.8+); otherwise the completion
 * callback's symbol tells io_uring's io_complete_rw{,_iopoll} from
 * anything else. Lookups are cached: a handful of callbacks exist.
 */
#define AIODEV_API_CACHE 8
static struct {
	unsigned long fn;
	u32 api;
} aiodev_api_cache[AIODEV_API_CACHE];
static DEFINE_SPINLOCK(aiodev_api_lock);	/* Protects aiodev_api_cache writes */

static u32 aiodev_api_of_fn(unsigned long fn)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned long flags;
	u32 api;
	int i;

	for (i = 0; i < AIODEV_API_CACHE; i++) {
		/* pairs with smp_store_release() below: api is set first */
		unsigned long f = smp_load_acquire(&aiodev_api_cache[i].fn);

		if (!f)
			break;
		if (f == fn)
			return READ_ONCE(aiodev_api_cache[i].api);
	}

	sprint_symbol_no_offset(name, fn);
	if (!strcmp(name, "io_complete_rw") ||
	    !strcmp(name, "io_complete_rw_iopoll"))
		api = AIODEV_API_URING;
	else if (!strcmp(name, "aio_complete_rw"))
		api = AIODEV_API_AIO;
	else
		api = AIODEV_API_OTHER;

	spin_lock_irqsave(&aiodev_api_lock, flags);
	for (i = 0; i < AIODEV_API_CACHE; i++) {
		if (aiodev_api_cache[i].fn == fn)
			break;
		if (!aiodev_api_cache[i].fn) {
			WRITE_ONCE(aiodev_api_cache[i].api, api);
			/* publish fn after api: lockless readers */
			smp_store_release(&aiodev_api_cache[i].fn, fn);
			break;
		}
	}
	spin_unlock_irqrestore(&aiodev_api_lock, flags);
	return api;
}

static u32 aiodev_kiocb_api(struct kiocb *kiocb)
{
	if (is_sync_kiocb(kiocb))
		return AIODEV_API_SYNC;
	if (aiodev_kiocb_aio_rw(kiocb))
		return AIODEV_API_AIO;
	return aiodev_api_of_fn((unsigned long)kiocb->ki_complete);
}

static u32 aiodev_minor(struct aiodev_dev *dev)
{
	return MINOR(dev->devt);
}

static u64 aiodev_req_id(struct aiodev_req *req)
{
	return (u64)(unsigned long)req->kiocb;
}

static u32 aiodev_req_flags(struct aiodev_req *req)
{
	return req->stalled ? AIODEV_TRACE_STALLED : 0;
}

static void aiodev_trace_submit(struct aiodev_req *req)
{
	/* lat_ns at submit: the delay drawn for the request */
	trace_aiodev_submit(aiodev_req_id(req), req->pos, req->len, 0,
			    req->delay_ns, aiodev_minor(req->dev), req->op,
			    req->api, aiodev_req_flags(req));
}

static void aiodev_trace_done(struct aiodev_req *req, ssize_t res, bool cancel)
{
	u64 len = res > 0 ? res : 0;
	u64 lat;

	if (!trace_aiodev_complete_enabled() && !trace_aiodev_cancel_enabled())
		return;
	lat = ktime_get_ns() - req->submit_ns;
	if (cancel)
		trace_aiodev_cancel(aiodev_req_id(req), req->pos, len, res, lat,
				    aiodev_minor(req->dev), req->op, req->api,
				    aiodev_req_flags(req));
	else
		trace_aiodev_complete(aiodev_req_id(req), req->pos, len, res,
				      lat, aiodev_minor(req->dev), req->op,
				      req->api, aiodev_req_flags(req));
}

static void aiodev_req_init(struct aiodev_req *req, struct aiodev_dev *dev,
			    struct kiocb *kiocb, u32 op, u32 api, loff_t pos,
			    size_t len)
{
	req->dev = dev;
	req->kiocb = kiocb;
	INIT_LIST_HEAD(&req->node);
	INIT_LIST_HEAD(&req->ready_node);
	atomic_set(&req->state, AIODEV_REQ_SUBMITTING);
	req->submit_ns = 0;
	req->delay_ns = 0;
	req->wseq = 0;
	req->pos = pos;
	req->len = len;
	req->res = 0;
	req->op = op;
	req->api = api;
	req->completion = AIODEV_COMP_INLINE;
	req->async = api != AIODEV_API_SYNC;
	req->fail = false;
	req->stalled = false;
	req->ctx_id = 0;
	req->obj = 0;
	req->tgid = current->tgid;
	req->pid = current->pid;
	/* for the debugfs listing only: a racing prctl(PR_SET_NAME) is harmless */
	memcpy(req->comm, current->comm, TASK_COMM_LEN);
}

/* ---- admission and accounting (all under dev->lock) ---- */

static bool aiodev_claim(struct aiodev_req *req, int from, int to)
{
	return atomic_cmpxchg(&req->state, from, to) == from;
}

/*
 * Counts an admitted request as submitted and decides whether fail_every
 * and stall_every choose it. Asynchronous requests and fsync start at
 * admission; a synchronous read/write once its latency has elapsed (a
 * signal during that sleep withdraws it uncounted, aiodev_withdraw()).
 */
static void aiodev_start_locked(struct aiodev_dev *dev, struct aiodev_req *req)
	__must_hold(&dev->lock)
{
	struct aiodev_config *cfg = &dev->cfg;
	u64 n;

	lockdep_assert_held(&dev->lock);

	if (req->op != AIODEV_OP_FSYNC) {
		/*
		 * Counted from the moment the knob was set: fail_every over
		 * all reads and writes, stall_every over asynchronous ones (a
		 * synchronous request cannot stall). A request chosen by both
		 * fails.
		 */
		if (cfg->fail_every) {
			n = ++dev->nr_fail_seen;
			/* the profile's error rate may have chosen it already */
			if (n % cfg->fail_every == 0)
				req->fail = true;
		}
		if (cfg->stall_every && req->async) {
			n = ++dev->nr_stall_seen;
			if (n % cfg->stall_every == 0 && !req->fail) {
				req->stalled = true;
				dev->stats.stalled++;
			}
		}
	}
	dev->stats.submitted++;
	dev->stats.inflight++;
	if (dev->stats.inflight > dev->stats.max_inflight)
		dev->stats.max_inflight = dev->stats.inflight;
}

static void aiodev_admit_locked(struct aiodev_dev *dev, struct aiodev_req *req)
	__must_hold(&dev->lock)
{
	struct aiodev_config *cfg = &dev->cfg;

	lockdep_assert_held(&dev->lock);

	req->submit_ns = ktime_get_ns();
	if (req->op != AIODEV_OP_FSYNC) {
		dev->nr_slots++;
		req->completion = cfg->completion;
		/*
		 * Drawn here, in admission order, so that a seed gives the
		 * same sequence; an inline completion waits for nothing.
		 */
		if (!req->async || req->completion != AIODEV_COMP_INLINE)
			req->delay_ns = aiodev_draw_delay_locked(dev);
		req->fail = aiodev_draw_error_locked(dev);
		if (req->op == AIODEV_OP_WRITE)
			req->wseq = ++dev->wseq;
	}
	list_add_tail(&req->node, &dev->pending);
	dev->pending_gen++;
	if (req->async || req->op == AIODEV_OP_FSYNC)
		aiodev_start_locked(dev, req);
}

static bool aiodev_has_room(struct aiodev_dev *dev)
{
	return READ_ONCE(dev->nr_slots) < READ_ONCE(dev->cfg.queue_depth);
}

/*
 * Takes a queue slot for a read or write and accounts it as submitted.
 * Beyond queue_depth an IOCB_NOWAIT request gets -EAGAIN, any other waits
 * (interruptibly) for room.
 */
static int aiodev_admit(struct aiodev_dev *dev, struct aiodev_req *req,
			bool nowait)
{
	unsigned long flags;
	int ret;

	for (;;) {
		spin_lock_irqsave(&dev->lock, flags);
		if (dev->nr_slots < dev->cfg.queue_depth)
			break;
		spin_unlock_irqrestore(&dev->lock, flags);
		if (nowait)
			return -EAGAIN;
		ret = wait_event_interruptible(dev->room_wq,
					       aiodev_has_room(dev));
		if (ret)
			return ret;
	}
	aiodev_admit_locked(dev, req);
	spin_unlock_irqrestore(&dev->lock, flags);
	return 0;
}

/*
 * Accounts a request as finished with @res. Reads and fsyncs leave the
 * pending list here; writes stay on it until their completion has been
 * delivered (aiodev_release_write()), so that fsync never overtakes them.
 * Returns true if the caller must wake room waiters.
 */
static bool aiodev_account_locked(struct aiodev_dev *dev,
				  struct aiodev_req *req, ssize_t res,
				  bool cancelled)
	__must_hold(&dev->lock)
{
	struct aiodev_stats *st = &dev->stats;

	lockdep_assert_held(&dev->lock);

	st->inflight--;
	if (cancelled)
		st->cancelled++;
	else if (res < 0)
		st->failed++;
	else
		st->completed++;
	if (!cancelled && res > 0) {
		if (req->op == AIODEV_OP_READ)
			st->bytes_read += res;
		else if (req->op == AIODEV_OP_WRITE)
			st->bytes_written += res;
	}
	if (req->op != AIODEV_OP_WRITE) {
		list_del_init(&req->node);
		dev->pending_gen++;
	}
	if (req->op == AIODEV_OP_FSYNC)
		return false;
	dev->nr_slots--;
	return true;
}

static void aiodev_wake_room(struct aiodev_dev *dev)
{
	if (wq_has_sleeper(&dev->room_wq))
		wake_up_all(&dev->room_wq);
}

/* A finished write leaves the pending list; fsync waiters re-check. */
static void aiodev_release_write(struct aiodev_dev *dev, struct aiodev_req *req)
{
	unsigned long flags;

	if (req->op != AIODEV_OP_WRITE)
		return;
	spin_lock_irqsave(&dev->lock, flags);
	list_del_init(&req->node);
	dev->pending_gen++;
	spin_unlock_irqrestore(&dev->lock, flags);
	if (wq_has_sleeper(&dev->fsync_wq))
		wake_up_all(&dev->fsync_wq);
}

/* Finishes a request that never left the submit path (sync, inline). */
static void aiodev_retire(struct aiodev_dev *dev, struct aiodev_req *req,
			  ssize_t res)
{
	unsigned long flags;
	bool wake;

	spin_lock_irqsave(&dev->lock, flags);
	wake = aiodev_account_locked(dev, req, res, false);
	spin_unlock_irqrestore(&dev->lock, flags);
	if (wake)
		aiodev_wake_room(dev);
	aiodev_trace_done(req, res, false);
	aiodev_release_write(dev, req);
}

/* ---- asynchronous completion ---- */

/*
 * Delivers the result of an owned request and frees it. ki_complete()
 * comes before the free: until then the aio cancel callback may still
 * look at the request (it runs under ctx_lock, which ki_complete takes).
 */
static void aiodev_deliver(struct aiodev_req *req, ssize_t res, bool cancel)
{
	struct aiodev_dev *dev = req->dev;

	aiodev_trace_done(req, res, cancel);
	req->kiocb->ki_complete(req->kiocb, res);
	aiodev_release_write(dev, req);
	kmem_cache_free(aiodev_req_cache, req);
}

/* The normal completion: the winner of QUEUED -> COMPLETING delivers. */
static void aiodev_complete(struct aiodev_req *req)
{
	struct aiodev_dev *dev = req->dev;
	unsigned long flags;
	bool wake;

	spin_lock_irqsave(&dev->lock, flags);
	if (!aiodev_claim(req, AIODEV_REQ_QUEUED, AIODEV_REQ_COMPLETING)) {
		/* cancel or abort owns it */
		spin_unlock_irqrestore(&dev->lock, flags);
		return;
	}
	wake = aiodev_account_locked(dev, req, req->res, false);
	spin_unlock_irqrestore(&dev->lock, flags);
	if (wake)
		aiodev_wake_room(dev);
	aiodev_deliver(req, req->res, false);
}

static enum hrtimer_restart aiodev_timer_fn(struct hrtimer *timer)
{
	struct aiodev_req *req = container_of(timer, struct aiodev_req, timer);

	if (req->completion == AIODEV_COMP_WORKQUEUE)
		queue_work(aiodev_wq, &req->work);
	else
		aiodev_complete(req);
	return HRTIMER_NORESTART;
}

static void aiodev_work_fn(struct work_struct *work)
{
	aiodev_complete(container_of(work, struct aiodev_req, work));
}

/*
 * hrtimer mode, zero delay: nothing to time, so the request completes from
 * softirq as soon as the submitter leaves its bh-disabled section (an
 * already expired hrtimer would add a timer interrupt per request and change
 * nothing else). Requests leave dev->ready under the lock, here or when a
 * cancel or abort wins them.
 */
void aiodev_ready_fn(struct tasklet_struct *t)
{
	struct aiodev_dev *dev = from_tasklet(dev, t, ready_tasklet);
	struct aiodev_req *req, *tmp;
	unsigned long flags;
	bool wake = false;
	LIST_HEAD(done);

	spin_lock_irqsave(&dev->lock, flags);
	list_for_each_entry_safe(req, tmp, &dev->ready, ready_node) {
		/* a winning cancel or abort takes it off this list first */
		if (WARN_ON_ONCE(!aiodev_claim(req, AIODEV_REQ_QUEUED,
					       AIODEV_REQ_COMPLETING))) {
			list_del_init(&req->ready_node);
			continue;
		}
		wake |= aiodev_account_locked(dev, req, req->res, false);
		list_move_tail(&req->ready_node, &done);
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	if (wake)
		aiodev_wake_room(dev);
	list_for_each_entry_safe(req, tmp, &done, ready_node)
		aiodev_deliver(req, req->res, false);
}

/*
 * Completes a request whose state this context moved to CANCELLED (and
 * accounted): wait until the timer and the completion work can no longer
 * run, then deliver -ECANCELED. Process context only.
 */
static void aiodev_finish_cancel(struct aiodev_req *req)
{
	hrtimer_cancel(&req->timer);
	cancel_work_sync(&req->work);
	aiodev_deliver(req, -ECANCELED, true);
}

static void aiodev_cancel_work_fn(struct work_struct *work)
{
	aiodev_finish_cancel(container_of(work, struct aiodev_req,
					  cancel_work));
}

/*
 * aio cancel callback (io_cancel(2), io_destroy(2), exit). Runs under the
 * aio context's ctx_lock with irqs off: no sleeping, no ki_complete().
 * Returns 0 if the request will complete with -ECANCELED (io_cancel then
 * returns -EINPROGRESS), -EINVAL if it is already being completed.
 */
static int aiodev_cancel(struct kiocb *kiocb)
{
	struct aiodev_req *req = kiocb->private;
	struct aiodev_dev *dev = req->dev;
	unsigned long flags;
	bool queued = false;
	bool wake = false;
	int ret = 0;

	spin_lock_irqsave(&dev->lock, flags);
	if (aiodev_claim(req, AIODEV_REQ_QUEUED, AIODEV_REQ_CANCELLED)) {
		list_del_init(&req->ready_node);
		wake = aiodev_account_locked(dev, req, -ECANCELED, true);
		queued = true;
	} else if (!aiodev_claim(req, AIODEV_REQ_SUBMITTING,
				 AIODEV_REQ_CANCEL_ASKED)) {
		ret = -EINVAL;
	}
	spin_unlock_irqrestore(&dev->lock, flags);

	if (queued) {
		hrtimer_try_to_cancel(&req->timer);
		queue_work(aiodev_wq, &req->cancel_work);
	}
	if (wake)
		aiodev_wake_room(dev);
	return ret;
}

/*
 * The aio context id and the user iocb pointer of a libaio request, for the
 * debugfs listing. Both live in aio's private struct aio_kiocb: the
 * kiocb at its start, then (after a union whose size depends on the kernel's
 * configuration) ki_ctx, ki_cancel and ki_res, a struct io_event (data, obj,
 * res, res2); struct kioctx starts with two percpu_refs and an atomic_t, then
 * user_id. The offset of ki_cancel is found once, as the first word after
 * the kiocb that holds aiodev_cancel (kiocb_set_cancel_fn() has just stored
 * it, so the scan stays inside the object), and checked again on every
 * request; a layout that does not fit leaves both 0.
 */
struct aiodev_kioctx_head {
	struct percpu_ref users;
	atomic_t dead;
	struct percpu_ref reqs;
	unsigned long user_id;
};

#define AIODEV_AIO_SCAN_MAX	512	/* bytes after the kiocb */
static long aiodev_cancel_off;	/* 0: not found yet, < 0: not usable */

static void aiodev_aio_ids(struct aiodev_req *req)
{
	unsigned long fn = (unsigned long)aiodev_cancel;
	unsigned long *w = (unsigned long *)req->kiocb;
	long off = READ_ONCE(aiodev_cancel_off);
	struct aiodev_kioctx_head *ctx;
	unsigned long uid, obj;
	size_t i;

	if (off < 0)
		return;
	if (!off) {
		off = -1;
		for (i = DIV_ROUND_UP(sizeof(struct kiocb), sizeof(*w));
		     i < AIODEV_AIO_SCAN_MAX / sizeof(*w); i++) {
			if (w[i] == fn) {
				off = i * sizeof(*w);
				break;
			}
		}
		WRITE_ONCE(aiodev_cancel_off, off);
		if (off < 0) {
			pr_info("aio context and iocb of libaio requests not found: listed as 0\n");
			return;
		}
	}
	w = (unsigned long *)((char *)req->kiocb + off);
	if (w[0] != fn)
		return;
	ctx = (struct aiodev_kioctx_head *)w[-1];
	obj = w[2];			/* ki_res.obj */
	if (!virt_addr_valid(ctx) || !obj || obj >= TASK_SIZE_MAX)
		return;
	uid = READ_ONCE(ctx->user_id);
	if (!uid || !PAGE_ALIGNED(uid) || uid >= TASK_SIZE_MAX)
		return;
	req->ctx_id = uid;
	req->obj = obj;
}

/*
 * abort: completes every queued asynchronous request (stalled or not)
 * with -ECANCELED. Returns how many it took.
 */
unsigned int aiodev_abort(struct aiodev_dev *dev)
{
	struct aiodev_req *req, *tmp;
	unsigned long flags;
	unsigned int n = 0;
	LIST_HEAD(victims);

	spin_lock_irqsave(&dev->lock, flags);
	list_for_each_entry_safe(req, tmp, &dev->pending, node) {
		if (!req->async)
			continue;
		if (!aiodev_claim(req, AIODEV_REQ_QUEUED, AIODEV_REQ_CANCELLED))
			continue;
		list_del_init(&req->ready_node);
		/* reads leave pending here, writes when delivered */
		aiodev_account_locked(dev, req, -ECANCELED, true);
		list_add_tail(&req->abort_node, &victims);
		n++;
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	if (n)
		aiodev_wake_room(dev);

	/* each victim is owned by this context now */
	list_for_each_entry_safe(req, tmp, &victims, abort_node)
		aiodev_finish_cancel(req);
	return n;
}

/* ---- submission ---- */

static ssize_t aiodev_move(struct aiodev_dev *dev, struct aiodev_req *req,
			   struct iov_iter *iter)
{
	if (req->fail)
		return -EIO;
	return aiodev_store_copy(dev, req->pos, iter,
				 req->op == AIODEV_OP_WRITE);
}

/*
 * A write gets its store pages before it is admitted (without sleeping for
 * @nowait); past the store's budget it is cut short, or fails if no page fits.
 */
static int aiodev_prepare_write(struct aiodev_dev *dev, struct kiocb *kiocb,
				struct iov_iter *iter, u32 op, bool nowait)
{
	ssize_t ret;

	if (op != AIODEV_OP_WRITE)
		return 0;
	ret = aiodev_store_prepare(dev, kiocb->ki_pos, iov_iter_count(iter),
				   nowait);
	if (ret < 0)
		return ret;
	iov_iter_truncate(iter, ret);
	return 0;
}

/* Sleeps @ns interruptibly: 0, or -ERESTARTSYS on a signal. */
static int aiodev_sleep_ns(u64 ns)
{
	ktime_t expires = ktime_add_ns(ktime_get(), ns);

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!schedule_hrtimeout(&expires, HRTIMER_MODE_ABS))
			return 0;
		if (signal_pending(current))
			return -ERESTARTSYS;
	}
}

/*
 * A synchronous request whose latency sleep a signal interrupted: no data
 * moved and the system call may be restarted (SA_RESTART), so it leaves
 * without a trace, uncounted, as if it had never been admitted.
 */
static void aiodev_withdraw(struct aiodev_dev *dev, struct aiodev_req *req)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	list_del_init(&req->node);
	dev->pending_gen++;
	dev->nr_slots--;
	spin_unlock_irqrestore(&dev->lock, flags);
	aiodev_wake_room(dev);
	if (req->op == AIODEV_OP_WRITE && wq_has_sleeper(&dev->fsync_wq))
		wake_up_all(&dev->fsync_wq);
}

static ssize_t aiodev_rw_sync(struct aiodev_dev *dev, struct kiocb *kiocb,
			      struct iov_iter *iter, u32 op)
{
	bool nowait = kiocb->ki_flags & IOCB_NOWAIT;
	struct aiodev_req req;
	unsigned long flags;
	ssize_t ret;

	if (nowait && (READ_ONCE(dev->cfg.latency_ns) ||
		       READ_ONCE(dev->cfg.jitter_ns) ||
		       aiodev_profile_active(dev)))
		return -EAGAIN;	/* the latency would block */
	ret = aiodev_prepare_write(dev, kiocb, iter, op, nowait);
	if (ret)
		return ret;

	aiodev_req_init(&req, dev, kiocb, op, AIODEV_API_SYNC, kiocb->ki_pos,
			iov_iter_count(iter));
	ret = aiodev_admit(dev, &req, nowait);
	if (ret)
		return ret;
	if (req.delay_ns && aiodev_sleep_ns(req.delay_ns)) {
		aiodev_withdraw(dev, &req);
		return -ERESTARTSYS;
	}
	spin_lock_irqsave(&dev->lock, flags);
	aiodev_start_locked(dev, &req);
	spin_unlock_irqrestore(&dev->lock, flags);
	aiodev_trace_submit(&req);

	ret = aiodev_move(dev, &req, iter);
	aiodev_retire(dev, &req, ret);
	if (ret > 0)
		kiocb->ki_pos += ret;
	return ret;
}

/*
 * Gives an admitted asynchronous request its timer and work items and makes
 * it cancellable, before aiodev_hand_off() starts any of them. An aio
 * io_cancel() may call aiodev_cancel() from here on: while the request is
 * still SUBMITTING that only marks it CANCEL_ASKED.
 */
static void aiodev_init_async(struct kiocb *kiocb, struct aiodev_req *req)
{
	hrtimer_setup(&req->timer, aiodev_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);
	INIT_WORK(&req->work, aiodev_work_fn);
	INIT_WORK(&req->cancel_work, aiodev_cancel_work_fn);

	kiocb->private = req;
	if (req->api == AIODEV_API_AIO) {
		kiocb_set_cancel_fn(kiocb, aiodev_cancel);
		/* it stores the cancel fn only in kiocbs marked IOCB_AIO_RW */
		if (aiodev_kiocb_aio_rw(kiocb))
			aiodev_aio_ids(req);
	}
}

/*
 * Starts the completion path the knobs chose for a QUEUED request. Returns
 * true when it went on the ready list, whose tasklet the caller schedules
 * once dev->lock is dropped.
 */
static bool aiodev_schedule_locked(struct aiodev_dev *dev,
				   struct aiodev_req *req)
	__must_hold(&dev->lock)
{
	lockdep_assert_held(&dev->lock);

	if (req->stalled) {
		/* completes only by io_cancel, abort or teardown */
	} else if (req->delay_ns) {
		hrtimer_start(&req->timer, ns_to_ktime(req->delay_ns),
			      HRTIMER_MODE_REL);
	} else if (req->completion == AIODEV_COMP_WORKQUEUE) {
		queue_work(aiodev_wq, &req->work);
	} else {
		list_add_tail(&req->ready_node, &dev->ready);
		return true;
	}
	return false;
}

/*
 * Ends the submission of an asynchronous request: under dev->lock it
 * either moves from SUBMITTING to QUEUED and starts its completion path,
 * or, when io_cancel() asked first, completes here as cancelled. Either
 * way the submitter no longer owns it afterwards.
 */
static ssize_t aiodev_hand_off(struct aiodev_dev *dev, struct aiodev_req *req)
{
	unsigned long flags;
	bool wake, ready;

	spin_lock_irqsave(&dev->lock, flags);
	if (!aiodev_claim(req, AIODEV_REQ_SUBMITTING, AIODEV_REQ_QUEUED)) {
		/* io_cancel() arrived while we were submitting: we own it */
		atomic_set(&req->state, AIODEV_REQ_CANCELLED);
		wake = aiodev_account_locked(dev, req, -ECANCELED, true);
		spin_unlock_irqrestore(&dev->lock, flags);
		if (wake)
			aiodev_wake_room(dev);
		aiodev_deliver(req, -ECANCELED, true);
		return -EIOCBQUEUED;
	}
	ready = aiodev_schedule_locked(dev, req);
	spin_unlock_irqrestore(&dev->lock, flags);
	/* from here on the request belongs to its completion path */
	if (ready) {
		local_bh_disable();
		tasklet_schedule(&dev->ready_tasklet);
		local_bh_enable();	/* runs the tasklet here, in softirq */
	}
	return -EIOCBQUEUED;
}

static ssize_t aiodev_rw_async(struct aiodev_dev *dev, struct kiocb *kiocb,
			       struct iov_iter *iter, u32 op)
{
	bool nowait = kiocb->ki_flags & IOCB_NOWAIT;
	struct aiodev_req *req;
	ssize_t ret;

	ret = aiodev_prepare_write(dev, kiocb, iter, op, nowait);
	if (ret)
		return ret;
	req = kmem_cache_alloc(aiodev_req_cache,
			       nowait ? GFP_NOWAIT | __GFP_NOWARN : GFP_KERNEL);
	if (!req)
		return nowait ? -EAGAIN : -ENOMEM;
	aiodev_req_init(req, dev, kiocb, op, aiodev_kiocb_api(kiocb),
			kiocb->ki_pos, iov_iter_count(iter));

	ret = aiodev_admit(dev, req, nowait);
	if (ret) {
		kmem_cache_free(aiodev_req_cache, req);
		/*
		 * An asynchronous request cannot be restarted: aio and 6.1's
		 * io_uring turn -ERESTARTSYS into -EINTR, but 6.12's io-wq
		 * path puts it in the CQE as is (-512).
		 */
		return ret == -ERESTARTSYS ? -EINTR : ret;
	}
	aiodev_trace_submit(req);

	/* The data moves now, in the submitter's context; only the
	 * completion is delayed. A request chosen to fail moves nothing.
	 */
	req->res = aiodev_move(dev, req, iter);
	if (req->res > 0)
		kiocb->ki_pos += req->res;

	if (req->completion == AIODEV_COMP_INLINE && !req->stalled) {
		/* aio and io_uring complete a direct result themselves */
		ret = req->res;
		aiodev_retire(dev, req, ret);
		kmem_cache_free(aiodev_req_cache, req);
		return ret;
	}

	aiodev_init_async(kiocb, req);
	return aiodev_hand_off(dev, req);
}

static ssize_t aiodev_rw(struct kiocb *kiocb, struct iov_iter *iter, u32 op)
{
	struct aiodev_dev *dev = kiocb->ki_filp->private_data;
	loff_t pos = kiocb->ki_pos;
	size_t len = iov_iter_count(iter);

	if (pos < 0)
		return -EINVAL;
	if (pos >= dev->capacity) {
		if (op == AIODEV_OP_WRITE && len)
			return -ENOSPC;
		iov_iter_truncate(iter, 0);
	} else if (len > dev->capacity - pos) {
		iov_iter_truncate(iter, dev->capacity - pos);
	}

	if (is_sync_kiocb(kiocb))
		return aiodev_rw_sync(dev, kiocb, iter, op);
	return aiodev_rw_async(dev, kiocb, iter, op);
}

static ssize_t aiodev_read_iter(struct kiocb *kiocb, struct iov_iter *to)
{
	return aiodev_rw(kiocb, to, AIODEV_OP_READ);
}

static ssize_t aiodev_write_iter(struct kiocb *kiocb, struct iov_iter *from)
{
	return aiodev_rw(kiocb, from, AIODEV_OP_WRITE);
}

/* True once no write with sequence number <= @seq is pending. */
static bool aiodev_writes_done(struct aiodev_dev *dev, u64 seq)
{
	struct aiodev_req *req;
	unsigned long flags;
	bool done = true;

	spin_lock_irqsave(&dev->lock, flags);
	/* pending is in admission order: the first write is the oldest */
	list_for_each_entry(req, &dev->pending, node) {
		if (req->op == AIODEV_OP_WRITE) {
			done = req->wseq > seq;
			break;
		}
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	return done;
}

/*
 * fsync(2), fdatasync(2) and aio IOCB_CMD_FSYNC/FDSYNC (which aio runs
 * through vfs_fsync() from a work item): waits until every write admitted
 * before it has been completed.
 */
static int aiodev_fsync(struct file *file, loff_t start, loff_t end,
			int datasync)
{
	struct aiodev_dev *dev = file->private_data;
	struct aiodev_req req;
	unsigned long flags;
	u64 seq;
	int ret;

	aiodev_req_init(&req, dev, NULL, AIODEV_OP_FSYNC, AIODEV_API_SYNC, 0, 0);
	spin_lock_irqsave(&dev->lock, flags);
	seq = dev->wseq;
	aiodev_admit_locked(dev, &req);
	spin_unlock_irqrestore(&dev->lock, flags);
	aiodev_trace_submit(&req);

	ret = wait_event_interruptible(dev->fsync_wq,
				       aiodev_writes_done(dev, seq));
	aiodev_retire(dev, &req, ret);
	return ret;
}

static int aiodev_open(struct inode *inode, struct file *file)
{
	struct aiodev_dev *dev = container_of(inode->i_cdev, struct aiodev_dev,
					      cdev);

	file->private_data = dev;
	/* io_uring issues inline only to FMODE_NOWAIT files; fio direct=1
	 * needs O_DIRECT opens to succeed.
	 */
	file->f_mode |= FMODE_NOWAIT | FMODE_CAN_ODIRECT;
	return 0;
}

static loff_t aiodev_llseek(struct file *file, loff_t offset, int whence)
{
	struct aiodev_dev *dev = file->private_data;

	return fixed_size_llseek(file, offset, whence, dev->capacity);
}

const struct file_operations aiodev_fops = {
	.owner		= THIS_MODULE,
	.open		= aiodev_open,
	.llseek		= aiodev_llseek,
	.read_iter	= aiodev_read_iter,
	.write_iter	= aiodev_write_iter,
	.fsync		= aiodev_fsync,
};
