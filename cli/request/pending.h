/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pending request, from the tracer to the views: struct pending_req is what the
 * tracer's in-flight table hands out (tracer_inflight_foreach(), top scans thousands
 * of them every sample, so it is small and plain) and what the aiodev debugfs listing
 * gives (parse.c); struct stuck_req is a pending request as the stuck views show it
 * (`aioscope stuck`, top's stuck panel): one pending_req and what those views add
 * (where it came from, its path, whether aiodev stalled it, the captured stacks);
 * the list of them (operations in collect/stuck_src.h). Plain values, op and api as
 * the BPF object's enums (bpf/aioscope.h): parse.c reads the listing's words into
 * them, and only the views (stuck's text and JSON, top's stuck panel) turn them back
 * into words.
 */
#ifndef AIOSCOPE_PENDING_H
#define AIOSCOPE_PENDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "aioscope.h"
#include "event.h"

/*
 * Where a pending request is now (docs/stages.md), when the tracer follows the
 * stages (opts.stages); unknown otherwise, and for a debugfs entry alone.
 */
enum pending_stage {
	PEND_STAGE_UNKNOWN,
	PEND_STAGE_SUBMITTED,	/* submitted; no bio queued, not issued */
	PEND_STAGE_IOWQ_WAIT,	/* io_uring: handed to io-wq, no worker has it yet */
	PEND_STAGE_IOWQ,	/* io_uring: an io-wq worker has it */
	PEND_STAGE_QUEUED,	/* a bio queued in the block layer, not issued */
	PEND_STAGE_DEVICE,	/* issued to the device (or aiodev has it) */
	PEND_STAGE_COMPLETING,	/* the device completed it; the event is not posted */
	PEND_STAGE_UNREAPED,	/* completed, its event posted; the application has
				 * not reaped it (opts.unreaped) */
};

/*
 * One pending request. Times are CLOCK_MONOTONIC ns, the tracer's clock and
 * aiodev's (ktime_get_ns): age = tracer_now_ns() - submit_ns.
 */
struct pending_req {
	uint64_t id;		/* request id: the kiocb address (the tracer in
				 * syscalls mode: the user iocb pointer) */
	uint64_t submit_ns;	/* submit time */
	uint64_t ctx;		/* aio context user id, 0 if none */
	uint64_t obj;		/* user iocb pointer, 0 if none */
	uint64_t ino;		/* inode number, 0 unknown (a listing's entry) */
	int64_t offset;		/* bytes */
	uint64_t bytes;		/* bytes requested */
	uint32_t dev;		/* kernel dev_t, 0 unknown (a listing's entry:
				 * the device is its path, struct stuck_req) */
	int32_t pid;		/* submitter tgid */
	int32_t tid;		/* submitter thread id */
	enum aios_op op;	/* read, write, fsync, ... */
	enum aios_api api;	/* aio, uring, other (sync: never pending) */
	char comm[TRACER_COMM_LEN];	/* submitter comm, NUL-terminated; "" unless the
					 * tracer keeps it (opts.inflight or opts.events) */
	/* the tracer's opts.stacks: ids for tracer_stack_read() of the stacks at
	 * submit; -1 none */
	int32_t kstack_id, ustack_id;
	enum pending_stage stage;
	uint64_t stage_ns;	/* when it entered that stage (0: unknown) */
};

enum stuck_source {
	STUCK_SRC_DEBUGFS,	/* /sys/kernel/debug/aiodev/aiodevN/pending */
	STUCK_SRC_TRACER,	/* the tracer's in-flight table (submitted after start) */
};

#define STUCK_PATH_LEN	128
#define STUCK_STACK_MAX	32

/* A pending request as the stuck views show it. */
struct stuck_req {
	struct pending_req req;
	uint64_t age_ns;	/* its age when its source was read */
	uint64_t stage_age_ns;	/* how long it had been in req.stage then */
	int stalled;		/* 1 stalled by stall_every, 0 not, -1 unknown */
	enum stuck_source src;
	bool has_api;		/* false: a listing line that named no api */
	char path[STUCK_PATH_LEN]; /* device or file path */
	int nr_ustack, nr_kstack;  /* -1: not captured */
	uint64_t ustack[STUCK_STACK_MAX];
	uint64_t kstack[STUCK_STACK_MAX];
};

struct stuck_list {
	struct stuck_req *v;
	size_t n, cap;
	unsigned int devices;	/* aiodev devices whose listing was read */
	int debugfs_err;	/* 0, or errno when no listing could be read */
	size_t nindexed;	/* v[0, nindexed) are debugfs entries sorted by
				 * their stuck_same_request() key (stuck_list_index);
				 * reset by every change but an append */
	bool index_by_obj;	/* that key: obj (else id) */
};

/*
 * The one rule that says a debugfs entry and a tracer in-flight entry are the same
 * aiodev request: the tracer's id is the kiocb address, or in syscalls mode
 * (@by_user_iocb) the user iocb pointer, which the listing gives as obj; and the
 * same submitter.
 */
static inline bool stuck_same_request(const struct stuck_req *d, uint64_t tracer_id,
				      int32_t tracer_pid, bool by_user_iocb)
{
	return (by_user_iocb ? d->req.obj : d->req.id) == tracer_id && d->req.pid == tracer_pid;
}

/*
 * "submitted", "iowq-wait", "iowq", "queued", "device", "completing", "unreaped";
 * NULL unknown
 */
static inline const char *pending_stage_name(enum pending_stage s)
{
	static const char *const name[] = {
		[PEND_STAGE_SUBMITTED] = "submitted", [PEND_STAGE_IOWQ_WAIT] = "iowq-wait",
		[PEND_STAGE_IOWQ] = "iowq", [PEND_STAGE_QUEUED] = "queued",
		[PEND_STAGE_DEVICE] = "device", [PEND_STAGE_COMPLETING] = "completing",
		[PEND_STAGE_UNREAPED] = "unreaped",
	};

	return (unsigned int)s < sizeof(name) / sizeof(name[0]) ? name[s] : NULL;
}

/* The words of op and api (the views' only way to them); api NULL when none named. */
static inline const char *stuck_op_name(const struct stuck_req *r)
{
	return tracer_op_name(r->req.op);
}

static inline const char *stuck_api_name(const struct stuck_req *r)
{
	return r->has_api ? tracer_api_name(r->req.api) : NULL;
}

#endif
