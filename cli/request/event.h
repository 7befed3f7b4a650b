/* SPDX-License-Identifier: GPL-2.0 */
/*
 * event.h - one finished request as every view sees it (struct tracer_event), and
 * the names of what it holds. The tracer (tracer.c) and the record decoder
 * (record.c) produce events; the commands print and aggregate them.
 */
#ifndef AIOSCOPE_EVENT_H
#define AIOSCOPE_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "aioscope.h"
#include "core/stages.h"

#define TRACER_COMM_LEN 16

/*
 * op, api and state are the BPF object's enums (bpf/aioscope.h: enum aios_op,
 * aios_api, aios_state), used as they are: one vocabulary from the kernel side to
 * the views.
 */

#define TRACER_REAP_NONE UINT64_MAX	/* reap_ns when no io_getevents reaped it */
#define TRACER_DRIVER_NONE UINT64_MAX	/* driver_ns when the driver is not aiodev */
#define TRACER_CANCEL_RET_PENDING 1	/* cancel_ret: see struct tracer_event */

/* One finished request. */
struct tracer_event {
	uint64_t ts_ns;			/* completion time (syscalls mode: reap time) */
	uint64_t submit_ns;		/* submit time */
	uint64_t lat_ns;		/* submit -> complete (syscalls mode: -> reap) */
	uint64_t reap_ns;		/* complete -> reap, or TRACER_REAP_NONE */
	uint64_t driver_ns;		/* aiodev's own time, or TRACER_DRIVER_NONE */
	uint64_t id;			/* request id: kiocb address (syscalls: iocb ptr) */
	uint64_t ctx;			/* aio context user id */
	uint64_t obj;			/* user iocb pointer */
	uint64_t data;			/* aio_data */
	uint64_t ino;			/* inode number (0 unknown) */
	int64_t offset;
	uint64_t bytes;			/* requested */
	int64_t res;			/* result: bytes or -errno */
	uint32_t dev;			/* kernel dev_t (major << 20 | minor): rdev of a
					 * device node, else the filesystem's s_dev */
	uint32_t qd;			/* device queue depth seen at submit (qd/hist --by qd) */
	int32_t pid;			/* submitter tgid */
	int32_t tid;			/* submitter thread */
	enum aios_api api;
	enum aios_op op;
	enum aios_state state;
	char comm[TRACER_COMM_LEN];	/* submitter comm, NUL-terminated */
	/* cancelled requests (fentry mode, events): the io_cancel call that asked */
	int32_t cancel_pid, cancel_tid;	/* 0: not known */
	int64_t cancel_ret;		/* what io_cancel returned (-EINPROGRESS), or
					 * TRACER_CANCEL_RET_PENDING: the request completed
					 * before io_cancel returned */
	uint64_t cancel_ns;		/* submit -> io_cancel */
	/*
	 * Inside the request's life (opts.stages; core/stages.h cuts it there),
	 * CLOCK_MONOTONIC ns, 0 when not seen: its first bio queued, issued to the
	 * driver (the first block request, or aiodev's own start), completed by the
	 * device (the last block request, or aiodev's completion); its bios.
	 */
	uint64_t queue_ts, issue_ts, device_ts;
	uint64_t punt_ts, worker_ts;	/* io_uring: handed to io-wq, a worker started it */
	uint32_t bios;
};

/* @e's stages (core/stages.h): its times cut where it crossed each boundary */
static inline void tracer_event_stages(const struct tracer_event *e, struct aio_stages *st)
{
	struct aio_stage_bounds b = {
		.start = e->submit_ns, .punt = e->punt_ts, .worker = e->worker_ts,
		.queue = e->queue_ts, .issue = e->issue_ts, .device = e->device_ts,
		.complete = e->ts_ns,
		.reap = e->reap_ns == TRACER_REAP_NONE ? 0 : e->ts_ns + e->reap_ns,
	};

	aio_stages_split(&b, st);
}

typedef int (*tracer_event_fn)(void *ctx, const struct tracer_event *e);

const char *tracer_op_name(enum aios_op op);
const char *tracer_api_name(enum aios_api api);
const char *tracer_state_name(enum aios_state s);
/*
 * The value that a name of tracer_op_name() / tracer_api_name() stands for, from
 * the @len bytes at @s (not NUL-terminated): an enum aios_op / tracer_api, or -1
 * for a word that is none of them.
 */
int tracer_op_parse(const char *s, size_t len);
int tracer_api_parse(const char *s, size_t len);
/* "maj:min" of a kernel dev_t into @buf */
const char *tracer_dev_str(uint32_t dev, char *buf, size_t len);

#endif
