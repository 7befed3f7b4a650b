/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the aiodev driver tests (run in the VM by tests/driver/run). */
#ifndef AIODEV_TEST_COMMON_H
#define AIODEV_TEST_COMMON_H

#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/aiodev.h"	/* now_ns, sleep_ms, aiodev_knob_*, struct aiodev_stats */

#define DEV_PATH "/dev/aiodev0"
#define SYS_DIR "/sys/class/aiodev/aiodev0"
#define DBG_PENDING "/sys/kernel/debug/aiodev/aiodev0/pending"

/* Results: "ok - NAME" / "not ok - NAME: why"; returns cond. */
bool check(bool cond, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int failures(void);

/* The kernel is the debug build (KASAN, lockdep): its paths take 10-20x as long. */
bool debug_kernel(void);

/*
 * aiodev0's knobs (tests/lib/aiodev.h for any device): write_knob returns 0 or
 * -errno of the write(2); read_knob keeps the newline; the others abort the test
 * on an error.
 */
int write_knob(const char *knob, const char *val);
void set_knob(const char *knob, const char *val);
void set_knob_u64(const char *knob, uint64_t val);
int read_knob(const char *knob, char *buf, size_t len);
uint64_t knob_u64(const char *knob);
void reset_knobs(void);
void read_stats(struct aiodev_stats *st);
/* @s into the file at @path (a tracefs switch, say): 0, or -1 on any error */
int write_file(const char *path, const char *s);

int open_dev(int flags);
void fill_pattern(void *buf, size_t len, uint64_t seed);
bool check_pattern(const void *buf, size_t len, uint64_t seed);

/* libaio: submit all (aborts on error), reap exactly n events with a timeout in ms
 * (returns the number reaped). */
void submit_all(io_context_t ctx, struct iocb **iocbs, int n);
int reap(io_context_t ctx, struct io_event *ev, int n, int timeout_ms);

/* Number of tasks in D state system-wide, and io-wq workers of this process. */
int count_d_state(void);
int count_iou_workers(void);

#define die(...) do { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(2); } while (0)

#endif
