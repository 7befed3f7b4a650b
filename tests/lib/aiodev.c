// SPDX-License-Identifier: GPL-2.0
/* tests/lib/aiodev.c - see aiodev.h */
#define _GNU_SOURCE
#include "aiodev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

char *aiodev_read_file(const char *path, size_t *lenp)
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

/* Open knob @knob of aiodev@dev: a descriptor, or -errno. */
static int knob_open(int dev, const char *knob, int flags)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), AIODEV_SYSFS "/aiodev%d/%s", dev, knob);
	fd = open(path, flags);
	return fd < 0 ? -errno : fd;
}

int aiodev_knob_write_raw(int dev, const char *knob, const char *val, size_t len)
{
	int fd = knob_open(dev, knob, O_WRONLY), err = 0;
	ssize_t n;

	if (fd < 0)
		return fd;
	n = write(fd, val, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

int aiodev_knob_write(int dev, const char *knob, const char *val)
{
	return aiodev_knob_write_raw(dev, knob, val, strlen(val));
}

int aiodev_knob_read(int dev, const char *knob, char *buf, size_t len)
{
	int fd = knob_open(dev, knob, O_RDONLY), err = 0;
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return fd;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		err = -errno;
		n = 0;
	}
	buf[n] = '\0';
	close(fd);
	return err;
}

int aiodev_knob_value(int dev, const char *knob, char *buf, size_t len)
{
	int err = aiodev_knob_read(dev, knob, buf, len);
	size_t l = strlen(buf);

	while (l && (buf[l - 1] == '\n' || buf[l - 1] == ' '))
		buf[--l] = '\0';
	return err;
}

int aiodev_stats_read(int dev, struct aiodev_stats *st, int *bad_line)
{
	static const char *const keys[] = {
		"submitted", "completed", "failed", "cancelled", "stalled",
		"inflight", "max_inflight", "bytes_read", "bytes_written",
	};
	uint64_t *vals[] = {
		&st->submitted, &st->completed, &st->failed, &st->cancelled,
		&st->stalled, &st->inflight, &st->max_inflight, &st->bytes_read,
		&st->bytes_written,
	};
	char buf[1024], *line, *save = NULL;
	unsigned int i = 0;
	int err = aiodev_knob_read(dev, "stats", buf, sizeof(buf));

	memset(st, 0, sizeof(*st));
	if (err)
		return err;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		char key[32];
		unsigned long long v;

		if (i >= 9 || sscanf(line, "%31s %llu", key, &v) != 2 || strcmp(key, keys[i]))
			break;
		*vals[i] = v;
	}
	if (i == 9 && !line)
		return 0;
	if (bad_line)
		*bad_line = (int)i + 1;
	return -EPROTO;
}

bool aiodev_stats_consistent(const struct aiodev_stats *st)
{
	return st->submitted == st->completed + st->failed + st->cancelled + st->inflight;
}
