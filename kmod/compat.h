/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API changes aiodev meets between 6.1 and 7.2.
 *
 * The driver is written against the newest API; each shim below maps it to
 * the older kernels and names the release that made the change, so a port
 * to the next kernel starts here. (The latency profile, profile.c, needs
 * none: rcu_replace_pointer(), kfree_rcu(), sysfs_emit_at(), kmemdup_nul()
 * and mul_u64_u64_shr() are the same from 6.1 to 7.2.)
 */
#ifndef AIODEV_COMPAT_H
#define AIODEV_COMPAT_H

#include <linux/device.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/version.h>
#include <linux/workqueue.h>

/* True on kernels older than maj.min (the stable sublevel does not matter here). */
#define AIODEV_BEFORE(maj, min)						\
	(LINUX_VERSION_MAJOR < (maj) ||					\
	 (LINUX_VERSION_MAJOR == (maj) && LINUX_VERSION_PATCHLEVEL < (min)))

/* 6.4: class_create() lost its owner argument (the class core owns it). */
#if AIODEV_BEFORE(6, 4)
#define aiodev_class_create(name)	class_create(THIS_MODULE, name)
#else
#define aiodev_class_create(name)	class_create(name)
#endif

/*
 * 6.13: hrtimer_setup() initialises a timer and sets its callback in one
 * call; 6.15 removed hrtimer_init() and the separate ->function store.
 */
#if AIODEV_BEFORE(6, 13)
static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * 6.8 (backported to 6.1.80 and later 6.1.y): aio marks its read/write
 * kiocbs IOCB_AIO_RW, and kiocb_set_cancel_fn() refuses (with a warning)
 * any kiocb without it. Before that, aio's kiocbs are recognised only by
 * their completion callback.
 */
#ifdef IOCB_AIO_RW
#define aiodev_kiocb_aio_rw(kiocb)	((kiocb)->ki_flags & IOCB_AIO_RW)
#else
#define aiodev_kiocb_aio_rw(kiocb)	0
#endif

/*
 * 6.17: WQ_PERCPU names the per-CPU workqueues (the old default, which is
 * to become WQ_UNBOUND); newer kernels warn when neither flag is given.
 */
#if AIODEV_BEFORE(6, 17)
#define WQ_PERCPU	0
#endif

#endif /* AIODEV_COMPAT_H */
