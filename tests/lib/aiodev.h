/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/lib/aiodev.h - what the C test programs (tests/driver, tests/stress) share:
 * the clock, aiodev's sysfs knobs and its stats, by device number.
 */
#ifndef AIOSCOPE_TESTS_AIODEV_H
#define AIOSCOPE_TESTS_AIODEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AIODEV_SYSFS	"/sys/class/aiodev"
#define AIODEV_DEBUGFS	"/sys/kernel/debug/aiodev"

/* CLOCK_MONOTONIC in ns */
uint64_t now_ns(void);
/* sleep, resumed after a signal */
void sleep_ms(unsigned int ms);

/* A whole file in a malloc'd NUL-terminated buffer (its length in *lenp), or NULL. */
char *aiodev_read_file(const char *path, size_t *lenp);

/* Write exactly @len bytes of @val to knob @knob of aiodev@dev in one write(2): 0 or -errno. */
int aiodev_knob_write_raw(int dev, const char *knob, const char *val, size_t len);
int aiodev_knob_write(int dev, const char *knob, const char *val);
/* Read a knob as the driver shows it (newline kept) into @buf: 0 or -errno. */
int aiodev_knob_read(int dev, const char *knob, char *buf, size_t len);
/* The same without the trailing newline and spaces: the knob's value. */
int aiodev_knob_value(int dev, const char *knob, char *buf, size_t len);

/* The stats attribute: "key value" lines, these nine, in this order. */
struct aiodev_stats {
	uint64_t submitted, completed, failed, cancelled, stalled;
	uint64_t inflight, max_inflight, bytes_read, bytes_written;
};

/*
 * Read and check aiodev@dev's stats: 0, -errno when it cannot be read, or -EPROTO
 * when a line is not the next key with a number, or there are not nine of them
 * (then *@bad_line, when not NULL, says which line: 1-based, 10 for a missing one).
 */
int aiodev_stats_read(int dev, struct aiodev_stats *st, int *bad_line);
/* Every submitted request is completed, failed, cancelled or still in flight. */
bool aiodev_stats_consistent(const struct aiodev_stats *st);

#endif
