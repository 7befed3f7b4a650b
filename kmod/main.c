// SPDX-License-Identifier: GPL-2.0
/*
 * aiodev: a memory-backed character device whose asynchronous requests
 * (libaio, io_uring) complete later, from an hrtimer, a workqueue or the
 * submit path, with configurable latency, jitter, failures and stalls.
 *
 * This file: module parameters, device creation and teardown.
 */
#include "aiodev.h"

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

static unsigned int g_nr_devices = 2;
static unsigned int g_capacity_mb = 64;
static unsigned int g_max_store_mb;	/* 0: half of RAM */

static int aiodev_param_range(const char *val, const struct kernel_param *kp,
			      unsigned int min, unsigned int max)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return -EINVAL;
	if (n < min || n > max)
		return -EINVAL;
	*(unsigned int *)kp->arg = n;
	return 0;
}

static int aiodev_set_nr_devices(const char *val, const struct kernel_param *kp)
{
	return aiodev_param_range(val, kp, 1, AIODEV_MAX_DEVICES);
}

static int aiodev_set_capacity_mb(const char *val, const struct kernel_param *kp)
{
	/* Up to 1 TiB: the store is sparse, pages appear when written. */
	return aiodev_param_range(val, kp, 1, 1U << 20);
}

static int aiodev_set_max_store_mb(const char *val,
				   const struct kernel_param *kp)
{
	return aiodev_param_range(val, kp, 0, UINT_MAX);
}

static const struct kernel_param_ops aiodev_nr_devices_ops = {
	.set = aiodev_set_nr_devices,
	.get = param_get_uint,
};

static const struct kernel_param_ops aiodev_capacity_mb_ops = {
	.set = aiodev_set_capacity_mb,
	.get = param_get_uint,
};

static const struct kernel_param_ops aiodev_max_store_mb_ops = {
	.set = aiodev_set_max_store_mb,
	.get = param_get_uint,
};

module_param_cb(nr_devices, &aiodev_nr_devices_ops, &g_nr_devices, 0444);
MODULE_PARM_DESC(nr_devices, "Number of devices /dev/aiodevN (1-64). Default: 2");
module_param_cb(capacity_mb, &aiodev_capacity_mb_ops, &g_capacity_mb, 0444);
MODULE_PARM_DESC(capacity_mb, "Capacity of each device in MiB (1-1048576). Default: 64");
module_param_cb(max_store_mb, &aiodev_max_store_mb_ops, &g_max_store_mb, 0444);
MODULE_PARM_DESC(max_store_mb,
		 "MiB of written pages all devices may hold together; a write needing more gets ENOSPC. Default: 0, half of RAM");

struct workqueue_struct *aiodev_wq;
struct kmem_cache *aiodev_req_cache;

static struct class *aiodev_class;
static dev_t aiodev_devt;
static struct aiodev_dev **aiodev_devs;
static unsigned int aiodev_nr_created;

static struct aiodev_dev *aiodev_alloc_dev(unsigned int index)
{
	struct aiodev_dev *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return NULL;

	spin_lock_init(&dev->lock);
	INIT_LIST_HEAD(&dev->pending);
	INIT_LIST_HEAD(&dev->ready);
	tasklet_setup(&dev->ready_tasklet, aiodev_ready_fn);
	init_waitqueue_head(&dev->room_wq);
	init_waitqueue_head(&dev->fsync_wq);
	xa_init(&dev->pages);
	dev->capacity = (loff_t)g_capacity_mb << 20;
	dev->index = index;
	dev->devt = MKDEV(MAJOR(aiodev_devt), index);

	/* The module parameters are defaults; the device owns its copy. */
	dev->cfg.latency_ns = 0;
	dev->cfg.jitter_ns = 0;
	dev->cfg.completion = AIODEV_COMP_HRTIMER;
	dev->cfg.queue_depth = 128;
	dev->cfg.fail_every = 0;
	dev->cfg.stall_every = 0;
	dev->cfg.seed = 0;		/* a random sequence, no profile */
	aiodev_rng_reset_locked(dev);	/* not published yet: no lock needed */
	return dev;
}

static void aiodev_free_dev(struct aiodev_dev *dev)
{
	tasklet_kill(&dev->ready_tasklet);
	aiodev_profile_free(dev);
	aiodev_store_free(dev);
	kfree(dev);
}

static int aiodev_add_dev(unsigned int index)
{
	struct aiodev_dev *dev;
	int ret;

	dev = aiodev_alloc_dev(index);
	if (!dev)
		return -ENOMEM;

	cdev_init(&dev->cdev, &aiodev_fops);
	dev->cdev.owner = THIS_MODULE;
	ret = cdev_add(&dev->cdev, dev->devt, 1);
	if (ret)
		goto out_free;

	/* The attribute groups exist before the uevent announces the device. */
	dev->device = device_create_with_groups(aiodev_class, NULL, dev->devt,
						dev, aiodev_groups, "aiodev%u",
						index);
	if (IS_ERR(dev->device)) {
		ret = PTR_ERR(dev->device);
		goto out_cdev;
	}

	aiodev_debugfs_add(dev);
	aiodev_devs[index] = dev;
	return 0;

out_cdev:
	cdev_del(&dev->cdev);
out_free:
	aiodev_free_dev(dev);
	return ret;
}

static void aiodev_del_dev(struct aiodev_dev *dev)
{
	device_destroy(aiodev_class, dev->devt);
	cdev_del(&dev->cdev);
}

static void aiodev_del_devs(void)
{
	unsigned int i;

	for (i = 0; i < aiodev_nr_created; i++)
		aiodev_del_dev(aiodev_devs[i]);
}

static void aiodev_free_devs(void)
{
	unsigned int i;

	for (i = 0; i < aiodev_nr_created; i++)
		aiodev_free_dev(aiodev_devs[i]);
	aiodev_nr_created = 0;
}

static int __init aiodev_init(void)
{
	unsigned int i;
	int ret;

	aiodev_store_max_pages = g_max_store_mb ?
		(unsigned long)g_max_store_mb << (20 - PAGE_SHIFT) :
		totalram_pages() / 2;

	aiodev_devs = kcalloc(g_nr_devices, sizeof(*aiodev_devs), GFP_KERNEL);
	if (!aiodev_devs)
		return -ENOMEM;

	aiodev_req_cache = KMEM_CACHE(aiodev_req, 0);
	if (!aiodev_req_cache) {
		ret = -ENOMEM;
		goto out_devs;
	}

	aiodev_wq = alloc_workqueue("aiodev",
				    WQ_HIGHPRI | WQ_MEM_RECLAIM | WQ_PERCPU, 0);
	if (!aiodev_wq) {
		ret = -ENOMEM;
		goto out_cache;
	}

	ret = alloc_chrdev_region(&aiodev_devt, 0, g_nr_devices, "aiodev");
	if (ret)
		goto out_wq;

	aiodev_class = aiodev_class_create("aiodev");
	if (IS_ERR(aiodev_class)) {
		ret = PTR_ERR(aiodev_class);
		goto out_chrdev;
	}

	aiodev_debugfs_init();

	for (i = 0; i < g_nr_devices; i++) {
		ret = aiodev_add_dev(i);
		if (ret)
			goto out_del;
		aiodev_nr_created++;
	}

	pr_info("%u devices of %u MiB, stores up to %lu MiB together\n",
		g_nr_devices, g_capacity_mb,
		aiodev_store_max_pages >> (20 - PAGE_SHIFT));
	return 0;

out_del:
	aiodev_del_devs();
	aiodev_debugfs_exit();
	aiodev_free_devs();
	class_destroy(aiodev_class);
out_chrdev:
	unregister_chrdev_region(aiodev_devt, g_nr_devices);
out_wq:
	destroy_workqueue(aiodev_wq);
out_cache:
	kmem_cache_destroy(aiodev_req_cache);
out_devs:
	kfree(aiodev_devs);
	return ret;
}

static void __exit aiodev_exit(void)
{
	/* No file is open: every request has been handed to ki_complete(). */
	aiodev_del_devs();
	aiodev_debugfs_exit();

	/*
	 * Work items (workqueue completions, deferred cancels) may still be
	 * returning after their ki_complete(): drain them. An hrtimer
	 * callback that completed the last request may still be executing
	 * its epilogue in hardirq context, an RCU read-side section:
	 * synchronize_rcu() waits for it to leave module text.
	 */
	destroy_workqueue(aiodev_wq);
	synchronize_rcu();

	aiodev_free_devs();
	class_destroy(aiodev_class);
	unregister_chrdev_region(aiodev_devt, g_nr_devices);
	kmem_cache_destroy(aiodev_req_cache);
	kfree(aiodev_devs);
}

module_init(aiodev_init);
module_exit(aiodev_exit);

MODULE_AUTHOR("aioscope");
MODULE_DESCRIPTION("Asynchronous I/O test character device");
MODULE_LICENSE("GPL");
MODULE_VERSION(AIODEV_VERSION);
