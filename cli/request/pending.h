/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pending ("stuck") request as the stuck views show it, from the aiodev debugfs
 * listing or the tracer's in-flight table; the list of them (operations in
 * stuck_src.h). Plain values, op and api as the BPF object's enums (bpf/aioscope.h,
 * named in event.h): parse.c reads the listing's words into them, and only the
 * views (stuck's text and JSON, top's stuck panel) turn them back into words.
 */
#ifndef AIOSCOPE_PENDING_H
#define AIOSCOPE_PENDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "aioscope.h"
#include "event.h"

enum stuck_source {
	STUCK_SRC_DEBUGFS,	/* /sys/kernel/debug/aiodev/aiodevN/pending */
	STUCK_SRC_TRACER,	/* the tracer's in-flight table (submitted after start) */
};

#define STUCK_PATH_LEN	128
#define STUCK_STACK_MAX	32

struct stuck_req {
	uint64_t id;		/* request id: kiocb address (or tracer id) */
	uint64_t age_ns;	/* now - submit time */
	uint64_t offset;	/* bytes */
	uint64_t bytes;		/* bytes requested */
	uint64_t ctx;		/* aio context user id, 0 if none */
	uint64_t obj;		/* user iocb pointer, 0 if none */
	int32_t pid;		/* submitter tgid */
	int32_t tid;		/* submitter thread id */
	int stalled;		/* 1 stalled by stall_every, 0 not, -1 unknown */
	enum stuck_source src;
	enum aios_op op;	/* read, write, fsync, ... */
	enum aios_api api;	/* aio, uring, other (sync: never pending) */
	bool has_api;		/* false: a listing line that named no api */
	char comm[17];
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
	return (by_user_iocb ? d->obj : d->id) == tracer_id && d->pid == tracer_pid;
}

/* The words of op and api (the views' only way to them); api NULL when none named. */
static inline const char *stuck_op_name(const struct stuck_req *r)
{
	return tracer_op_name((enum tracer_op)r->op);
}

static inline const char *stuck_api_name(const struct stuck_req *r)
{
	return r->has_api ? tracer_api_name((enum tracer_api)r->api) : NULL;
}

#endif
