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

#define SYSFS_AIODEV "/sys/class/aiodev"
#define DEBUGFS_AIODEV "/sys/kernel/debug/aiodev"

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

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

static inline void knob_path(char *buf, size_t sz, int dev, const char *knob)
{
	snprintf(buf, sz, SYSFS_AIODEV "/aiodev%d/%s", dev, knob);
}

/*
 * Write exactly len bytes of val to a knob in one write(2).
 * Returns 0 or -errno.
 */
static inline int knob_write_raw(int dev, const char *knob, const char *val, size_t len)
{
	char path[256];
	ssize_t n;
	int fd, err = 0;

	knob_path(path, sizeof(path), dev, knob);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

static inline int knob_write(int dev, const char *knob, const char *val)
{
	return knob_write_raw(dev, knob, val, strlen(val));
}

/* Read a sysfs/debugfs file into a malloc'd NUL-terminated buffer. */
static inline char *read_file(const char *path, size_t *lenp)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (;;) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	if (lenp)
		*lenp = len;
	return buf;
}

/* Read a knob; trailing newline stripped. Returns 0 or -errno. */
static inline int knob_read(int dev, const char *knob, char *out, size_t sz)
{
	char path[256];
	char *b;
	size_t l;

	knob_path(path, sizeof(path), dev, knob);
	b = read_file(path, &l);
	if (!b)
		return -errno ? -errno : -EIO;
	while (l && (b[l - 1] == '\n' || b[l - 1] == ' '))
		b[--l] = 0;
	snprintf(out, sz, "%s", b);
	free(b);
	return 0;
}

struct aiodev_stats {
	uint64_t submitted, completed, failed, cancelled, stalled;
	uint64_t inflight, max_inflight, bytes_read, bytes_written;
	int nkeys;
};

/* Parse the stats attribute. Returns 0 if every key was present. */
static inline int stats_read(int dev, struct aiodev_stats *st)
{
	static const char *const keys[] = {
		"submitted", "completed", "failed", "cancelled", "stalled",
		"inflight", "max_inflight", "bytes_read", "bytes_written",
	};
	char path[256], *b, *line, *save = NULL;
	uint64_t *fields = &st->submitted;
	unsigned int seen = 0;

	memset(st, 0, sizeof(*st));
	knob_path(path, sizeof(path), dev, "stats");
	b = read_file(path, NULL);
	if (!b)
		return -1;
	for (line = strtok_r(b, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[64];
		unsigned long long v;

		if (sscanf(line, "%63s %llu", key, &v) != 2)
			continue;
		for (unsigned int i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (!strcmp(key, keys[i])) {
				fields[i] = v;
				seen |= 1u << i;
			}
		}
	}
	free(b);
	st->nkeys = __builtin_popcount(seen);
	return seen == (1u << 9) - 1 ? 0 : -1;
}

static inline int stats_invariant(const struct aiodev_stats *st)
{
	return st->submitted == st->completed + st->failed + st->cancelled + st->inflight;
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
	char *b = read_file("/sys/module/aiodev/parameters/capacity_mb", NULL);
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
