// SPDX-License-Identifier: GPL-2.0
/*
 * tracer.c - the tracer's life: open (filters, privileges, then tracer_attach.c),
 * the readers of what is attached, the ring buffer's records, close. The maps'
 * readers are in tracer_maps.c. See tracer.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "aioscope.h"
#include "buckets.h"
#include "core/format.h"
#include "privs.h"
#include "tracer_int.h"

_Static_assert(AIOS_HIST_SLOTS == AIO_HIST_BUCKETS, "histogram slots differ from buckets.h");
_Static_assert(sizeof(struct aios_io_event) == 32, "io_event layout");
_Static_assert(TRACER_CANCEL_RET_PENDING == AIOS_CANCEL_RET_PENDING, "cancel sentinel");
/* values that cross from the BPF object to the views unconverted */
_Static_assert(TRACER_BY_NONE == (int)AIOS_BY_NONE && TRACER_BY_OP == (int)AIOS_BY_OP &&
	       TRACER_BY_PID == (int)AIOS_BY_PID && TRACER_BY_DEV == (int)AIOS_BY_DEV &&
	       TRACER_BY_CTX == (int)AIOS_BY_CTX && TRACER_BY_QD == (int)AIOS_BY_QD &&
	       TRACER_BY_METRIC == (int)AIOS_BY_METRIC, "groupings");
_Static_assert(TRACER_HIST_LAT == (int)AIOS_H_LAT && TRACER_HIST_REAP == (int)AIOS_H_REAP &&
	       TRACER_HIST_DRIVER == (int)AIOS_H_DRIVER &&
	       TRACER_HIST_SUBMIT_BATCH == (int)AIOS_H_SUBMIT_BATCH &&
	       TRACER_HIST_REAP_BATCH == (int)AIOS_H_REAP_BATCH &&
	       TRACER_HIST_BYTES == (int)AIOS_H_BYTES && TRACER_HIST_NR == (int)AIOS_H_NR,
	       "histogram kinds");
_Static_assert(TRACER_QD_TOTAL == (int)AIOS_QD_TOTAL && TRACER_QD_DEV == (int)AIOS_QD_DEV &&
	       TRACER_QD_CTX == (int)AIOS_QD_CTX && TRACER_QD_PID == (int)AIOS_QD_PID,
	       "queue-depth kinds");

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

static const char *const group_names[] = { "all", "op", "pid", "dev", "ctx", "qd", "metric" };

const char *tracer_group_name(enum tracer_group g)
{
	return (unsigned int)g < sizeof(group_names) / sizeof(group_names[0]) ?
		group_names[g] : "all";
}

int tracer_group_parse(const char *s)
{
	/* TRACER_BY_METRIC is the exporter's, not a choice of --by */
	for (size_t i = 0; i < TRACER_BY_METRIC; i++)
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


static int on_record(void *ctx, void *data, size_t size);

/*
 * The ring's positions, for the join's sweep (tracer_poll): page 0 holds the
 * consumer's, page 1 the producer's; the kernel allows any read-only mapping.
 * Without them the sweep goes by the clock alone.
 */
static void map_ring_positions(struct tracer *t)
{
	void *p;

	t->rb_page = (size_t)sysconf(_SC_PAGESIZE);
	p = mmap(NULL, 2 * t->rb_page, PROT_READ, MAP_SHARED,
		 bpf_map__fd(t->skel->maps.events), 0);
	t->rb_pos = p == MAP_FAILED ? NULL : p;
}

/* The readers of the attached programs: per-CPU sums, the ring buffer, the slots. */
static int open_readers(struct tracer *t, char *err, size_t errlen)
{
	t->pcpu_buf = calloc(t->ncpus, sizeof(struct aios_hist));
	if (!t->pcpu_buf)
		return tracer_fail(err, errlen, -ENOMEM, "out of memory");
	if (t->opts.events) {
		t->rx.join_reap = t->opts.event_reap && t->mode != TRACER_MODE_SYSCALLS;
		t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), on_record, t, NULL);
		if (!t->rb)
			return tracer_fail(err, errlen, -errno ?: -ENOMEM, "ring buffer: %s",
				    strerror(errno));
		map_ring_positions(t);
	}
	t->slots_len = (size_t)TRACER_SLOTS * sizeof(struct aios_slot);
	t->slots = mmap(NULL, t->slots_len, PROT_READ, MAP_SHARED,
			bpf_map__fd(t->skel->maps.slots), 0);
	if (t->slots == MAP_FAILED) {
		t->slots = NULL;
		return tracer_fail(err, errlen, -errno, "cannot map the in-flight table: %s",
			    strerror(errno));
	}
	return 0;
}

int tracer_open(struct tracer **out, const struct tracer_opts *opts, char *err, size_t errlen)
{
	struct dev_filter df = { 0 };
	struct statfs sfs;
	struct tracer *t;
	int rc;

	*out = NULL;
	rc = tracer_resolve_filters(opts, &df, err, errlen);
	if (rc)
		return rc;
	rc = privs_check_bpf(err, errlen);
	if (rc)
		return rc;
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return tracer_fail(err, errlen, -ENOTSUP,
			    "this kernel has no BTF (/sys/kernel/btf/vmlinux): CONFIG_DEBUG_INFO_BTF=y is needed");

	t = calloc(1, sizeof(*t));
	if (!t)
		return tracer_fail(err, errlen, -ENOMEM, "out of memory");
	t->opts = *opts;
	t->cgroup_fd = -1;
	tracer_log_setup(opts->verbose);

	if (opts->cgroup) {
		t->cgroup_fd = open(opts->cgroup, O_RDONLY | O_DIRECTORY);
		if (t->cgroup_fd < 0) {
			rc = tracer_fail(err, errlen, -EINVAL, "--cgroup %s: %s", opts->cgroup,
				  strerror(errno));
			goto out;
		}
		/* any other directory would only fail later, as a map update error */
		if (fstatfs(t->cgroup_fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
			rc = tracer_fail(err, errlen, -EINVAL,
				  "--cgroup %s: not a cgroup v2 directory (one under /sys/fs/cgroup)",
				  opts->cgroup);
			goto out;
		}
	}
	rc = tracer_attach(t, &df, err, errlen);
	if (rc)
		goto out;
	rc = open_readers(t, err, errlen);
	if (rc)
		goto out;
	t->last_sweep = tracer_now_ns();
	t->attached_ns = t->last_sweep;
	*out = t;
	return 0;
out:
	tracer_close(t);
	return rc;
}

void tracer_close(struct tracer *t)
{
	if (!t)
		return;
	ring_buffer__free(t->rb);
	if (t->rb_pos)
		munmap((void *)t->rb_pos, 2 * t->rb_page);
	if (t->slots)
		munmap((void *)t->slots, t->slots_len);
	aioscope_bpf__destroy(t->skel);
	if (t->cgroup_fd >= 0)
		close(t->cgroup_fd);
	free(t->pcpu_buf);
	tracer_rx_free(&t->rx);
	map_batch_free(&t->ib);
	free(t);
}

/* ---- events ---- */

static int on_record(void *ctx, void *data, size_t size)
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

