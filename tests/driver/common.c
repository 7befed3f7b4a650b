// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static int nfail;

bool check(bool cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		printf("ok - %s\n", name);
	} else {
		nfail++;
		printf("not ok - %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
	fflush(stdout);
	return cond;
}

int failures(void)
{
	return nfail;
}

bool debug_kernel(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.release, "debug");
}

int write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int r;

	if (!f)
		return -1;
	r = fputs(s, f) < 0;
	return fclose(f) || r ? -1 : 0;
}

int write_knob(const char *knob, const char *val)
{
	return aiodev_knob_write(0, knob, val);
}

void set_knob(const char *knob, const char *val)
{
	int err = write_knob(knob, val);

	if (err)
		die("cannot set %s to '%s': %s", knob, val, strerror(-err));
}

void set_knob_u64(const char *knob, uint64_t val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, val);
	set_knob(knob, buf);
}

int read_knob(const char *knob, char *buf, size_t len)
{
	return aiodev_knob_read(0, knob, buf, len);
}

uint64_t knob_u64(const char *knob)
{
	char buf[64], *end;
	uint64_t v;
	int err = read_knob(knob, buf, sizeof(buf));

	if (err)
		die("cannot read %s: %s", knob, strerror(-err));
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end != '\n')
		die("bad value in %s: '%s'", knob, buf);
	return v;
}

void reset_knobs(void)
{
	set_knob("latency_ns", "0");
	set_knob("jitter_ns", "0");
	set_knob("completion", "hrtimer");
	set_knob("queue_depth", "128");
	set_knob("fail_every", "0");
	set_knob("stall_every", "0");
	set_knob("latency_profile", "\n");
	set_knob("seed", "0");
	set_knob("abort", "1");
}

void read_stats(struct aiodev_stats *st)
{
	int line = 0, err = aiodev_stats_read(0, st, &line);

	if (err == -EPROTO)
		die("stats malformed at line %d (want the nine keys in order)", line);
	if (err)
		die("cannot read stats: %s", strerror(-err));
}

int open_dev(int flags)
{
	int fd = open(DEV_PATH, flags);

	if (fd < 0)
		die("open %s: %s", DEV_PATH, strerror(errno));
	return fd;
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void fill_pattern(void *buf, size_t len, uint64_t seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t v = splitmix(&seed);

		memcpy(p + i, &v, len - i < 8 ? len - i : 8);
	}
}

bool check_pattern(const void *buf, size_t len, uint64_t seed)
{
	unsigned char tmp[8];
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t v = splitmix(&seed);
		size_t n = len - i < 8 ? len - i : 8;

		memcpy(tmp, &v, n);
		if (memcmp(p + i, tmp, n))
			return false;
	}
	return true;
}

void submit_all(io_context_t ctx, struct iocb **iocbs, int n)
{
	int done = 0;

	while (done < n) {
		int r = io_submit(ctx, n - done, iocbs + done);

		if (r <= 0)
			die("io_submit: %s", strerror(-r));
		done += r;
	}
}

int reap(io_context_t ctx, struct io_event *ev, int n, int timeout_ms)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	int got = 0;

	while (got < n) {
		uint64_t now = now_ns();
		struct timespec ts;
		int r;

		if (now >= deadline)
			break;
		ts.tv_sec = (deadline - now) / 1000000000ull;
		ts.tv_nsec = (deadline - now) % 1000000000ull;
		r = io_getevents(ctx, 1, n - got, ev + got, &ts);
		if (r == -EINTR)
			continue;
		if (r < 0)
			die("io_getevents: %s", strerror(-r));
		got += r;
	}
	return got;
}

int count_d_state(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], buf[512], *p;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'D')
				n++;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

int count_iou_workers(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], comm[64] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "iou-wrk", 7))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}
