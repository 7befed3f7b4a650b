/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the stress and bad-input programs (aiodev sysfs access). */
#ifndef AIOSCOPE_STRESS_COMMON_H
#define AIOSCOPE_STRESS_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../lib/aiodev.h"	/* now_ns, aiodev_knob_*, aiodev_stats_*, aiodev_read_file */

#define SYSFS_AIODEV AIODEV_SYSFS
#define DEBUGFS_AIODEV AIODEV_DEBUGFS

/* xorshift64*: each process seeds its own. */
static inline uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static inline uint64_t rnd_below(uint64_t *s, uint64_t n)
{
	return n ? rnd(s) % n : 0;
}

/* The debug kernel (scripts/build-debug-kernel) runs I/O about 20x slower. */
static inline int slow_factor(void)
{
	struct utsname u;
	const char *e = getenv("STRESS_SLOW");

	if (e && atoi(e) > 0)
		return atoi(e);
	if (!uname(&u) && strstr(u.release, "debug"))
		return 10;
	return 1;
}

static inline long capacity_bytes(void)
{
	char *b = aiodev_read_file("/sys/module/aiodev/parameters/capacity_mb", NULL);
	long mb = 64;

	if (b) {
		if (atol(b) > 0)
			mb = atol(b);
		free(b);
	}
	return mb << 20;
}

static inline int nr_devices(void)
{
	char path[256];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), SYSFS_AIODEV "/aiodev%d/stats", n);
		if (access(path, R_OK))
			return n;
		n++;
	}
}

#endif
