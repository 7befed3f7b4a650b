// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs listing /sys/kernel/debug/aiodev/aiodevN/pending: one line per
 * pending asynchronous request, in the format fixed by docs/design.md.
 */
#include "aiodev.h"

#include <linux/debugfs.h>
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

static int aiodev_pending_show(struct seq_file *m, void *v)
{
	struct aiodev_dev *dev = m->private;
	struct aiodev_req *req;
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&dev->lock, flags);
	now = ktime_get_ns();
	list_for_each_entry(req, &dev->pending, node) {
		if (!req->async)
			continue;
		seq_printf(m, "id=0x%lx api=%s pid=%d tid=%d comm=",
			   (unsigned long)req->kiocb, aiodev_api_name(req->api),
			   req->tgid, req->pid);
		aiodev_seq_comm(m, req->comm);
		/*
		 * ctx and obj live in fs/aio.c's private struct aio_kiocb and
		 * struct kioctx, whose layouts a module cannot rely on: 0.
		 */
		seq_printf(m, " op=%s off=%lld len=%zu age_ns=%llu stalled=%d ctx=0x0 obj=0x0\n",
			   req->op == AIODEV_OP_WRITE ? "write" : "read",
			   req->pos, req->len, now - req->submit_ns,
			   req->stalled ? 1 : 0);
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(aiodev_pending);

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
}

void aiodev_debugfs_exit(void)
{
	debugfs_remove_recursive(aiodev_debugfs_root);
}
