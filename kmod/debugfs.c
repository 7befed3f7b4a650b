// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs listing /sys/kernel/debug/aiodev/aiodevN/pending: one line per
 * pending asynchronous request, in the format fixed by docs/design.md.
 */
#include "aiodev.h"

#include <linux/debugfs.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/timekeeping.h>

static struct dentry *aiodev_debugfs_root;

static const char *aiodev_api_name(u32 api)
{
	switch (api) {
	case AIODEV_API_AIO:
		return "aio";
	case AIODEV_API_URING:
		return "uring";
	default:
		return "other";
	}
}

/*
 * comm is chosen by the task (PR_SET_NAME accepts any byte but NUL), so every
 * byte that is not printable ASCII, and the separator (space) and the escape
 * character (backslash) too, is written as \xHH: one line per request, fields
 * split on spaces, whatever the name.
 */
static void aiodev_seq_comm(struct seq_file *m, const char *comm)
{
	seq_escape_mem(m, comm, strnlen(comm, TASK_COMM_LEN), ESCAPE_NAP | ESCAPE_HEX | ESCAPE_APPEND,
		       " \\");
}

/* One pending request as the listing shows it, copied under dev->lock. */
struct aiodev_pending_rec {
	u64 id;
	loff_t pos;
	size_t len;
	u64 age_ns;
	u64 ctx_id;
	u64 obj;
	pid_t tgid;
	pid_t pid;
	u8 api;
	u8 op;
	u8 stalled;
	char comm[TASK_COMM_LEN];
};

struct aiodev_pending_snap {
	unsigned int n;
	struct aiodev_pending_rec rec[];
};

/*
 * Copies the pending asynchronous requests into @snap (room for @max) under
 * the lock; formatting happens later, with interrupts on. Returns how many
 * are pending, which may be more than @max: the caller retries larger.
 */
static unsigned int aiodev_pending_copy(struct aiodev_dev *dev,
					struct aiodev_pending_snap *snap,
					unsigned int max)
{
	struct aiodev_pending_rec *r;
	struct aiodev_req *req;
	unsigned int n = 0;
	unsigned long flags;
	u64 now, t0, held;

	spin_lock_irqsave(&dev->lock, flags);
	now = ktime_get_ns();
	t0 = now;
	list_for_each_entry(req, &dev->pending, node) {
		if (!req->async)
			continue;
		if (n < max) {
			r = &snap->rec[n];
			r->id = (u64)(unsigned long)req->kiocb;
			r->pos = req->pos;
			r->len = req->len;
			r->age_ns = now - req->submit_ns;
			r->ctx_id = req->ctx_id;
			r->obj = req->obj;
			r->tgid = req->tgid;
			r->pid = req->pid;
			r->api = req->api;
			r->op = req->op;
			r->stalled = req->stalled;
			memcpy(r->comm, req->comm, TASK_COMM_LEN);
		}
		n++;
	}
	/* the longest section with the lock held and interrupts off */
	held = ktime_get_ns() - t0;
	if (held > dev->pending_lock_max_ns)
		dev->pending_lock_max_ns = held;
	spin_unlock_irqrestore(&dev->lock, flags);
	snap->n = min(n, max);
	return n;
}

static int aiodev_pending_show(struct seq_file *m, void *v)
{
	struct aiodev_pending_snap *snap = m->private;
	struct aiodev_pending_rec *r;
	unsigned int i;

	for (i = 0; i < snap->n; i++) {
		r = &snap->rec[i];
		seq_printf(m, "id=0x%llx api=%s pid=%d tid=%d comm=", r->id,
			   aiodev_api_name(r->api), r->tgid, r->pid);
		aiodev_seq_comm(m, r->comm);
		/* ctx and obj: libaio requests only (aiodev_aio_ids()) */
		seq_printf(m, " op=%s off=%lld len=%zu age_ns=%llu stalled=%d ctx=0x%llx obj=0x%llx\n",
			   r->op == AIODEV_OP_WRITE ? "write" : "read",
			   r->pos, r->len, r->age_ns, r->stalled, r->ctx_id,
			   r->obj);
	}
	return 0;
}

/*
 * The listing is a snapshot taken at open: records copied under the lock
 * (interrupts off for a copy of a few dozen bytes per request), lines
 * formatted afterwards, so neither the formatting nor seq_file's buffer
 * growth happens with interrupts off.
 */
static int aiodev_pending_open(struct inode *inode, struct file *file)
{
	struct aiodev_dev *dev = inode->i_private;
	struct aiodev_pending_snap *snap;
	unsigned int max, n;
	int ret;

	max = min_t(u64, READ_ONCE(dev->stats.inflight), UINT_MAX / 2) + 64;
	for (;;) {
		snap = kvmalloc(struct_size(snap, rec, max), GFP_KERNEL);
		if (!snap)
			return -ENOMEM;
		n = aiodev_pending_copy(dev, snap, max);
		if (n <= max)
			break;
		kvfree(snap);
		max = n + n / 4 + 64;
	}
	/* about 150 bytes a line: one formatting pass in most cases */
	ret = single_open_size(file, aiodev_pending_show, snap,
			       (size_t)snap->n * 160 + PAGE_SIZE);
	if (ret)
		kvfree(snap);
	return ret;
}

static int aiodev_pending_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	kvfree(m->private);
	return single_release(inode, file);
}

static const struct file_operations aiodev_pending_fops = {
	.owner		= THIS_MODULE,
	.open		= aiodev_pending_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= aiodev_pending_release,
};

void aiodev_debugfs_init(void)
{
	aiodev_debugfs_root = debugfs_create_dir("aiodev", NULL);
}

void aiodev_debugfs_add(struct aiodev_dev *dev)
{
	dev->debugfs_dir = debugfs_create_dir(dev_name(dev->device),
					      aiodev_debugfs_root);
	debugfs_create_file("pending", 0400, dev->debugfs_dir, dev,
			    &aiodev_pending_fops);
	/* the longest time one open of pending held the lock, ns (0 resets) */
	debugfs_create_u64("pending_lock_ns", 0600, dev->debugfs_dir,
			   &dev->pending_lock_max_ns);
	/*
	 * bumped by every change of the pending list (under the lock): a reader that
	 * finds it unchanged since before its last read of pending has that listing
	 */
	debugfs_create_u64("pending_gen", 0400, dev->debugfs_dir,
			   &dev->pending_gen);
	/* fault injection: the next N store page allocations fail */
	debugfs_create_atomic_t("fail_page_alloc", 0600, dev->debugfs_dir,
				&dev->fail_page_alloc);
}

void aiodev_debugfs_exit(void)
{
	debugfs_remove_recursive(aiodev_debugfs_root);
}
