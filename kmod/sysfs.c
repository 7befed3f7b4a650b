// SPDX-License-Identifier: GPL-2.0
/*
 * The knobs under /sys/class/aiodev/aiodevN/. Every store parses
 * strictly (kstrto*: no sign, no trailing garbage, one trailing newline
 * allowed) and checks the range; a bad value returns -EINVAL and leaves
 * the old value in place.
 */
#include "aiodev.h"

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/sysfs.h>

static const char * const aiodev_completion_names[] = {
	[AIODEV_COMP_HRTIMER]	= "hrtimer",
	[AIODEV_COMP_WORKQUEUE]	= "workqueue",
	[AIODEV_COMP_INLINE]	= "inline",
};

const char *aiodev_completion_name(u32 completion)
{
	if (completion >= ARRAY_SIZE(aiodev_completion_names))
		return "?";
	return aiodev_completion_names[completion];
}

/*
 * The written bytes are buf[0..count-1] (sysfs adds a NUL after them). A NUL
 * among them would hide trailing garbage from the C-string parsers, and
 * kstrto*() take a leading '+', which the knobs refuse (no sign at all).
 */
static bool aiodev_bad_number(const char *buf, size_t count)
{
	return memchr(buf, '\0', count) || buf[0] == '+';
}

static int aiodev_parse_u64(const char *buf, size_t count, u64 min, u64 max,
			    u64 *val)
{
	u64 v;

	if (aiodev_bad_number(buf, count) || kstrtou64(buf, 10, &v))
		return -EINVAL;
	if (v < min || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

/*
 * AIODEV_KNOB(name, min, max, apply): a read-write u64-parsed knob stored
 * in dev->cfg.name; @apply runs under dev->lock right after the new value is
 * set (NULL if nothing else must happen).
 */
#define AIODEV_KNOB(name, min, max, apply)				\
static ssize_t name##_show(struct device *d,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct aiodev_dev *dev = dev_get_drvdata(d);			\
									\
	return sysfs_emit(buf, "%llu\n",				\
			  (unsigned long long)READ_ONCE(dev->cfg.name)); \
}									\
static ssize_t name##_store(struct device *d,				\
			    struct device_attribute *attr,		\
			    const char *buf, size_t count)		\
{									\
	struct aiodev_dev *dev = dev_get_drvdata(d);			\
	void (*fn)(struct aiodev_dev *) = apply;			\
	unsigned long flags;						\
	u64 v;								\
									\
	if (aiodev_parse_u64(buf, count, min, max, &v))		\
		return -EINVAL;						\
	spin_lock_irqsave(&dev->lock, flags);				\
	WRITE_ONCE(dev->cfg.name, v);					\
	if (fn)								\
		fn(dev);						\
	spin_unlock_irqrestore(&dev->lock, flags);			\
	return count;							\
}									\
static DEVICE_ATTR_RW(name)

/* A larger queue_depth may admit requests waiting for room. */
static void aiodev_queue_depth_apply(struct aiodev_dev *dev)
{
	wake_up_all(&dev->room_wq);
}

/* "Every Nth request" counts from the moment the knob is written. */
static void aiodev_fail_every_apply(struct aiodev_dev *dev)
{
	dev->nr_fail_seen = 0;
}

static void aiodev_stall_every_apply(struct aiodev_dev *dev)
{
	dev->nr_stall_seen = 0;
}

/* Writing seed, even the same value, replays the sequence from its start. */
static void aiodev_seed_apply(struct aiodev_dev *dev)
{
	aiodev_rng_reset_locked(dev);
}

AIODEV_KNOB(fail_every, 0, U32_MAX, aiodev_fail_every_apply);
AIODEV_KNOB(jitter_ns, 0, AIODEV_MAX_DELAY_NS, NULL);
AIODEV_KNOB(latency_ns, 0, AIODEV_MAX_DELAY_NS, NULL);
AIODEV_KNOB(queue_depth, 1, AIODEV_MAX_QUEUE_DEPTH, aiodev_queue_depth_apply);
AIODEV_KNOB(seed, 0, U64_MAX, aiodev_seed_apply);
AIODEV_KNOB(stall_every, 0, U32_MAX, aiodev_stall_every_apply);

static ssize_t completion_show(struct device *d, struct device_attribute *attr,
			       char *buf)
{
	struct aiodev_dev *dev = dev_get_drvdata(d);

	return sysfs_emit(buf, "%s\n",
			  aiodev_completion_name(READ_ONCE(dev->cfg.completion)));
}

static ssize_t completion_store(struct device *d, struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct aiodev_dev *dev = dev_get_drvdata(d);
	unsigned long flags;
	int i;

	/* sysfs_streq() allows one trailing newline, nothing else */
	if (memchr(buf, '\0', count))
		return -EINVAL;
	i = sysfs_match_string(aiodev_completion_names, buf);
	if (i < 0)
		return -EINVAL;
	spin_lock_irqsave(&dev->lock, flags);
	WRITE_ONCE(dev->cfg.completion, i);
	spin_unlock_irqrestore(&dev->lock, flags);
	return count;
}
static DEVICE_ATTR_RW(completion);

/* The table lives in profile.c; parsing and checks are there. */
static ssize_t latency_profile_show(struct device *d,
				    struct device_attribute *attr, char *buf)
{
	return aiodev_profile_show(dev_get_drvdata(d), buf);
}

static ssize_t latency_profile_store(struct device *d,
				     struct device_attribute *attr,
				     const char *buf, size_t count)
{
	return aiodev_profile_store(dev_get_drvdata(d), buf, count);
}
static DEVICE_ATTR_RW(latency_profile);

static ssize_t abort_store(struct device *d, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct aiodev_dev *dev = dev_get_drvdata(d);
	unsigned int v;

	if (aiodev_bad_number(buf, count) || kstrtouint(buf, 10, &v) ||
	    v != 1)
		return -EINVAL;
	aiodev_abort(dev);
	return count;
}
static DEVICE_ATTR_WO(abort);

static ssize_t stats_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	struct aiodev_dev *dev = dev_get_drvdata(d);
	struct aiodev_stats st;
	unsigned long flags;

	/* one consistent snapshot: submitted = completed + failed +
	 * cancelled + inflight
	 */
	spin_lock_irqsave(&dev->lock, flags);
	st = dev->stats;
	spin_unlock_irqrestore(&dev->lock, flags);

	return sysfs_emit(buf,
			  "submitted %llu\ncompleted %llu\nfailed %llu\n"
			  "cancelled %llu\nstalled %llu\ninflight %llu\n"
			  "max_inflight %llu\nbytes_read %llu\n"
			  "bytes_written %llu\n",
			  st.submitted, st.completed, st.failed, st.cancelled,
			  st.stalled, st.inflight, st.max_inflight,
			  st.bytes_read, st.bytes_written);
}
static DEVICE_ATTR_RO(stats);

static struct attribute *aiodev_attrs[] = {
	&dev_attr_abort.attr,
	&dev_attr_completion.attr,
	&dev_attr_fail_every.attr,
	&dev_attr_jitter_ns.attr,
	&dev_attr_latency_ns.attr,
	&dev_attr_latency_profile.attr,
	&dev_attr_queue_depth.attr,
	&dev_attr_seed.attr,
	&dev_attr_stall_every.attr,
	&dev_attr_stats.attr,
	NULL,
};

static const struct attribute_group aiodev_group = {
	.attrs = aiodev_attrs,
};

const struct attribute_group *aiodev_groups[] = {
	&aiodev_group,
	NULL,
};
