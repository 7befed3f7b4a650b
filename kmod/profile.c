// SPDX-License-Identifier: GPL-2.0
/*
 * The knobs latency_profile and seed: each request's delay drawn from a
 * latency distribution (a cumulative table of buckets) with a per-device
 * pseudo-random generator, so that the device can replay the latencies of
 * a recorded production device, repeatably.
 *
 * A profile is text, one bucket per line, "LAT_NS WEIGHT": LAT_NS is the
 * upper bound of the bucket (strictly increasing down the table), WEIGHT
 * its share. A request picks bucket i with probability WEIGHT_i / total and
 * a delay uniformly in (LAT_NS_{i-1}, LAT_NS_i] (the first bucket starts at
 * 0), so the percentiles of the delays are those of the source histogram.
 * "errors PPM" makes PPM requests in a million fail with -EIO (as
 * fail_every does); lines starting with '#' and blank lines are ignored.
 * docs/driver.md has the limits and examples.
 */
#include "aiodev.h"

#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#define AIODEV_PPM	1000000

struct aiodev_bucket {
	u64 bound_ns;		/* upper bound of the bucket, ns */
	u64 cum;		/* weight of this bucket and all before it */
};

/* Never changed once published: a new profile replaces it whole. */
struct aiodev_profile {
	struct rcu_head rcu;
	u32 nr;			/* buckets in use */
	u32 errors_ppm;		/* requests failing with -EIO, per million */
	bool errors_set;	/* an "errors" line was given (parsing only) */
	struct aiodev_bucket b[];
};

/* ---- the generator (dev->rng, under dev->lock) ---- */

/*
 * splitmix64 (Steele, Lea, Flood, OOPSLA 2014): an add and two multiplies
 * per draw, any seed is a good one, and the sequence depends only on the
 * seed and the number of draws, which follow the order of admission.
 */
static u64 aiodev_rand_locked(struct aiodev_dev *dev)
	__must_hold(&dev->lock)
{
	u64 z;

	z = (dev->rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, @n): the high word of rand * n, no division, no modulo bias to speak of. */
static u64 aiodev_rand_below_locked(struct aiodev_dev *dev, u64 n)
	__must_hold(&dev->lock)
{
	return mul_u64_u64_shr(aiodev_rand_locked(dev), n, 64);
}

/* The seed knob was written (or the device created): restart the sequence. */
void aiodev_rng_reset_locked(struct aiodev_dev *dev)
	__must_hold(&dev->lock)
{
	dev->rng = dev->cfg.seed ? dev->cfg.seed : get_random_u64();
}

/* ---- drawing a request's delay and fate (admission, under dev->lock) ---- */

static struct aiodev_profile *aiodev_profile_locked(struct aiodev_dev *dev)
	__must_hold(&dev->lock)
{
	return rcu_dereference_protected(dev->profile,
					 lockdep_is_held(&dev->lock));
}

static u64 aiodev_profile_sample(struct aiodev_dev *dev,
				 const struct aiodev_profile *p)
	__must_hold(&dev->lock)
{
	u64 r = aiodev_rand_below_locked(dev, p->b[p->nr - 1].cum);
	u32 lo = 0, hi = p->nr - 1, mid;
	u64 floor, width;

	/* the first bucket whose cumulative weight exceeds r (never an empty one) */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->b[mid].cum > r)
			hi = mid;
		else
			lo = mid + 1;
	}
	floor = lo ? p->b[lo - 1].bound_ns : 0;
	width = p->b[lo].bound_ns - floor;
	if (!width)		/* a first bucket "0 W": no delay */
		return 0;
	return floor + 1 + aiodev_rand_below_locked(dev, width);
}

/* The delay of a request being admitted: from the profile, else latency_ns + jitter. */
u64 aiodev_draw_delay_locked(struct aiodev_dev *dev)
	__must_hold(&dev->lock)
{
	struct aiodev_profile *p = aiodev_profile_locked(dev);
	struct aiodev_config *cfg = &dev->cfg;

	lockdep_assert_held(&dev->lock);

	if (p)
		return aiodev_profile_sample(dev, p);
	if (!cfg->jitter_ns)
		return cfg->latency_ns;
	return cfg->latency_ns + aiodev_rand_below_locked(dev, cfg->jitter_ns + 1);
}

/* Whether the profile's error rate chooses a request being admitted. */
bool aiodev_draw_error_locked(struct aiodev_dev *dev)
	__must_hold(&dev->lock)
{
	struct aiodev_profile *p = aiodev_profile_locked(dev);

	lockdep_assert_held(&dev->lock);

	if (!p || !p->errors_ppm)
		return false;
	return aiodev_rand_below_locked(dev, AIODEV_PPM) < p->errors_ppm;
}

/* A synchronous RWF_NOWAIT request must not sleep: any profile may make it. */
bool aiodev_profile_active(struct aiodev_dev *dev)
{
	return rcu_access_pointer(dev->profile);
}

/* ---- parsing ---- */

/* An unsigned decimal field up to @max; kstrtou64() alone would take a '+'. */
static int aiodev_profile_num(const char *tok, u64 max, u64 *val)
{
	u64 v;

	if (tok[0] == '+' || kstrtou64(tok, 10, &v) || v > max)
		return -EINVAL;
	*val = v;
	return 0;
}

/* Splits @line at blanks into @f; returns the field count, 3 meaning "too many". */
static int aiodev_profile_fields(char *line, char *f[3])
{
	char *tok;
	int n = 0;

	while (n < 3 && (tok = strsep(&line, " \t"))) {
		if (*tok)
			f[n++] = tok;
	}
	return n;
}

static int aiodev_profile_errors(struct aiodev_profile *p, const char *tok)
{
	u64 v;

	if (p->errors_set || aiodev_profile_num(tok, AIODEV_PPM, &v))
		return -EINVAL;
	p->errors_set = true;
	p->errors_ppm = v;
	return 0;
}

static int aiodev_profile_bucket(struct aiodev_profile *p, const char *lat,
				 const char *weight)
{
	u64 bound, w, cum = p->nr ? p->b[p->nr - 1].cum : 0;

	if (p->nr == AIODEV_PROFILE_MAX_BUCKETS)
		return -EINVAL;
	if (aiodev_profile_num(lat, AIODEV_MAX_DELAY_NS, &bound) ||
	    aiodev_profile_num(weight, U32_MAX, &w))
		return -EINVAL;
	/* bounds strictly increasing: a bucket is (previous bound, bound] */
	if (p->nr && bound <= p->b[p->nr - 1].bound_ns)
		return -EINVAL;
	p->b[p->nr].bound_ns = bound;
	p->b[p->nr].cum = cum + w;	/* 256 * U32_MAX: no overflow */
	p->nr++;
	return 0;
}

static int aiodev_profile_line(struct aiodev_profile *p, char *line)
{
	char *f[3];
	int n = aiodev_profile_fields(line, f);

	if (!n || f[0][0] == '#')	/* blank line or comment */
		return 0;
	if (n != 2)
		return -EINVAL;
	if (!strcmp(f[0], "errors"))
		return aiodev_profile_errors(p, f[1]);
	return aiodev_profile_bucket(p, f[0], f[1]);
}

/* The bytes show() prints for @p: it must fit the one page sysfs gives it. */
static size_t aiodev_profile_text_len(const struct aiodev_profile *p)
{
	size_t len = 0;
	u64 prev = 0;
	u32 i;

	for (i = 0; i < p->nr; i++) {
		len += snprintf(NULL, 0, "%llu %llu\n", p->b[i].bound_ns,
				p->b[i].cum - prev);
		prev = p->b[i].cum;
	}
	if (p->errors_ppm)
		len += snprintf(NULL, 0, "errors %u\n", p->errors_ppm);
	return len;
}

static int aiodev_profile_check(const struct aiodev_profile *p)
{
	if (!p->nr && !p->errors_set)
		return 1;			/* nothing but blanks and comments */
	if (!p->nr || !p->b[p->nr - 1].cum)	/* no bucket, or weights sum to 0 */
		return -EINVAL;
	if (aiodev_profile_text_len(p) >= PAGE_SIZE)
		return -EINVAL;
	return 0;
}

/*
 * Parses the @count bytes written to latency_profile. Returns the new
 * profile, NULL for "no profile" (nothing but blank lines and comments), or
 * ERR_PTR(-EINVAL or -ENOMEM).
 */
static struct aiodev_profile *aiodev_profile_parse(const char *buf,
						   size_t count)
{
	struct aiodev_profile *p, *tmp = NULL;
	char *text, *rest, *line;
	int ret = 0;

	/* a NUL would hide the rest of the write from the parser */
	if (memchr(buf, '\0', count))
		return ERR_PTR(-EINVAL);
	text = kmemdup_nul(buf, count, GFP_KERNEL);
	p = kzalloc(struct_size(p, b, AIODEV_PROFILE_MAX_BUCKETS), GFP_KERNEL);
	if (!text || !p) {
		ret = -ENOMEM;
		goto out;
	}
	rest = text;
	while (!ret && (line = strsep(&rest, "\n")))
		ret = aiodev_profile_line(p, line);
	if (!ret)
		ret = aiodev_profile_check(p);
	if (!ret) {
		/* parsed into room for the most buckets; keep what is used */
		tmp = kmemdup(p, struct_size(p, b, p->nr), GFP_KERNEL);
		ret = tmp ? 0 : -ENOMEM;
	}
out:
	kfree(text);
	kfree(p);
	if (ret)
		return ret > 0 ? NULL : ERR_PTR(ret);
	return tmp;
}

/* ---- the knob ---- */

/*
 * Publishes @p (NULL: back to latency_ns/jitter_ns) under dev->lock, where
 * admission reads it, so a request sees the old table or the new one, whole.
 * Requests keep no pointer to it (their delay is drawn at admission); only
 * show() may still be reading the old one, under rcu_read_lock().
 */
static void aiodev_profile_set(struct aiodev_dev *dev, struct aiodev_profile *p)
{
	struct aiodev_profile *old;
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	old = rcu_replace_pointer(dev->profile, p, lockdep_is_held(&dev->lock));
	spin_unlock_irqrestore(&dev->lock, flags);
	if (old)
		kfree_rcu(old, rcu);
}

/* latency_profile reads back as the canonical table, or nothing. */
ssize_t aiodev_profile_show(struct aiodev_dev *dev, char *buf)
{
	struct aiodev_profile *p;
	int len = 0;
	u64 prev = 0;
	u32 i;

	rcu_read_lock();
	p = rcu_dereference(dev->profile);
	for (i = 0; p && i < p->nr; i++) {
		len += sysfs_emit_at(buf, len, "%llu %llu\n", p->b[i].bound_ns,
				     p->b[i].cum - prev);
		prev = p->b[i].cum;
	}
	if (p && p->errors_ppm)
		len += sysfs_emit_at(buf, len, "errors %u\n", p->errors_ppm);
	rcu_read_unlock();
	return len;
}

ssize_t aiodev_profile_store(struct aiodev_dev *dev, const char *buf,
			     size_t count)
{
	struct aiodev_profile *p = aiodev_profile_parse(buf, count);

	if (IS_ERR(p))
		return PTR_ERR(p);	/* the old profile stays */
	aiodev_profile_set(dev, p);
	return count;
}

/* Device teardown: no file is open, so nothing reads the profile. */
void aiodev_profile_free(struct aiodev_dev *dev)
{
	kfree(rcu_dereference_protected(dev->profile, 1));
	RCU_INIT_POINTER(dev->profile, NULL);
}
