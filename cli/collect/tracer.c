// SPDX-License-Identifier: GPL-2.0
/*
 * tracer.c - what an open tracer is asked most: the ring buffer's records and the
 * join's sweep (tracer_poll, tracer_flush), names, the clock. Opening and attaching
 * are in tracer_attach.c, the maps' readers in tracer_maps.c. See tracer.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aioscope.h"
#include "buckets.h"
#include "core/format.h"
#include "tracer_int.h"

_Static_assert(AIOS_HIST_SLOTS == AIO_HIST_BUCKETS, "histogram slots differ from buckets.h");
_Static_assert(sizeof(struct aios_io_event) == 32, "io_event layout");
_Static_assert(TRACER_CANCEL_RET_PENDING == AIOS_CANCEL_RET_PENDING, "cancel sentinel");

uint64_t tracer_attached_ns(const struct tracer *t)
{
	return t->attached_ns;
}

uint64_t tracer_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static const char *const group_names[] = { "all", "op", "pid", "dev", "ctx", "qd", "stage",
					   "metric" };

const char *tracer_group_name(enum aios_group g)
{
	return (unsigned int)g < sizeof(group_names) / sizeof(group_names[0]) ?
		group_names[g] : "all";
}

int tracer_group_parse(const char *s)
{
	/* AIOS_BY_METRIC is the exporter's, not a choice of --by */
	for (size_t i = 0; i < AIOS_BY_METRIC; i++)
		if (!strcmp(s, group_names[i]))
			return (int)i;
	return -1;
}

const char *tracer_mode_name(const struct tracer *t)
{
	switch (t->mode) {
	case TRACER_MODE_FENTRY:
		return "fentry";
	case TRACER_MODE_KPROBE:
		return "kprobe";
	case TRACER_MODE_SYSCALLS:
		return "syscalls";
	default:
		return "none";
	}
}

bool tracer_has_uring(const struct tracer *t)
{
	return t->uring;
}


int tracer_fail(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return rc;
}


/* ---- events ---- */

int tracer_on_record(void *ctx, void *data, size_t size)
{
	struct tracer *t = ctx;

	return tracer_rx_record(&t->rx, data, size);
}

/* The ring's producer position: every record reserved so far lies below it. */
static uint64_t ring_produced(const struct tracer *t)
{
	return t->rb_pos ? __atomic_load_n(&t->rb_pos[t->rb_page / 8], __ATOMIC_ACQUIRE) : 0;
}

/* The consumer's position has passed @pos: every record below it was read. */
static bool ring_consumed(const struct tracer *t, uint64_t pos)
{
	return !t->rb_pos || __atomic_load_n(&t->rb_pos[0], __ATOMIC_ACQUIRE) >= pos;
}

int tracer_poll(struct tracer *t, int timeout_ms, tracer_event_fn cb, void *ctx)
{
	uint64_t now, produced;
	int err;

	if (!t->rb)
		return -EINVAL;
	t->rx.cb = cb;
	t->rx.cb_ctx = ctx;
	t->rx.cb_ret = 0;
	t->rx.delivered = 0;
	/* records arrive without wakeups (BPF_RB_NO_WAKEUP): poll is a timed wait */
	err = ring_buffer__poll(t->rb, timeout_ms);
	/*
	 * A held completion goes out without its reap only once every record
	 * reserved before @now has been read: the consumer stops at a record still
	 * being written (a program preempted between reserve and submit, as on a
	 * preemptible kernel under load), and the reap may lie behind it.
	 */
	now = tracer_now_ns();
	produced = ring_produced(t);
	if (err >= 0 || err == -EINTR)
		err = ring_buffer__consume(t->rb);
	if (err == -EINTR)
		err = 0;
	if (t->rx.join.n && now - t->last_sweep > JOIN_TIMEOUT_NS / 4 &&
	    ring_consumed(t, produced)) {
		tracer_rx_sweep(&t->rx, now, JOIN_TIMEOUT_NS);
		t->last_sweep = now;
	}
	if (t->rx.cb_ret)
		return t->rx.cb_ret;
	return err < 0 ? err : t->rx.delivered;
}

int tracer_flush(struct tracer *t, tracer_event_fn cb, void *ctx)
{
	t->rx.cb = cb;
	t->rx.cb_ctx = ctx;
	t->rx.cb_ret = 0;
	t->rx.delivered = 0;
	if (t->rb)
		ring_buffer__consume(t->rb);
	tracer_rx_sweep(&t->rx, tracer_now_ns(), 0);
	return t->rx.cb_ret ? t->rx.cb_ret : t->rx.delivered;
}

