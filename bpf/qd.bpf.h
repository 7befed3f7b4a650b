/* SPDX-License-Identifier: GPL-2.0 */
/* qd.bpf.h - queue depth per device, context and process (the qd map) (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_QD_BPF_H
#define AIOSCOPE_QD_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* one entry per dev/ctx/pid seen */
	__uint(max_entries, 16384);
	__type(key, struct aios_qkey);
	__type(value, struct aios_qd);
} qd SEC(".maps");

/* The queue-depth interval: user space bumps it (mmapped .bss) to start a new max. */
volatile __u64 qd_gen;

static __always_inline __s64 qd_add(__u32 kind, __u64 key, __s64 d)
{
	struct aios_qkey k = { .kind = kind, .key = key };
	struct aios_qd *q, zero = {};
	__s64 v;

	q = bpf_map_lookup_elem(&qd, &k);
	if (!q) {
		if (d < 0)
			return 0;
		bpf_map_update_elem(&qd, &k, &zero, BPF_NOEXIST);
		q = bpf_map_lookup_elem(&qd, &k);
		if (!q) {
			drop(AIOS_DROP_QD);
			return 0;
		}
	}
	v = __sync_fetch_and_add(&q->cur, d) + d;
	if (d > 0 && v > 0) {
		__u64 g = qd_gen;

		/* racing CPUs may each restart max: it can read low, cur never does */
		if (q->gen != g) {
			q->gen = g;
			q->max = 0;
		}
		if ((__u64)v > q->max)
			q->max = v;
	}
	return v;
}

static __always_inline __u32 qd_all(struct aios_req *r, __s64 d)
{
	__s64 v;

	qd_add(AIOS_QD_TOTAL, 0, d);
	qd_add(AIOS_QD_CTX, r->ctx, d);
	qd_add(AIOS_QD_PID, r->pid, d);
	v = qd_add(AIOS_QD_DEV, r->dev, d);
	return v > 0 ? v : 0;
}

#endif /* AIOSCOPE_QD_BPF_H */
