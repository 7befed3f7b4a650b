// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope.bpf.c - follow each libaio request from submission to completion and reap.
 *
 * Three attach modes, chosen by user space (cli/tracer.c), one handler body each:
 *   fentry    fentry aio_read/aio_write/aio_fsync (submit), fentry aio_complete
 *             (completion: the moment the event enters the context's ring),
 *             fexit do_io_getevents (reap)
 *   kprobe    kprobes on the same functions; reap from the syscall tracepoints
 *   syscalls  sys_{enter,exit}_io_submit and sys_{enter,exit}_io_{,p}getevents only:
 *             requests are read from the syscalls' arguments, lat = submit -> reap
 * plus, when aiodev is loaded, its classic tracepoints for the driver's own time.
 *
 * Per request the fast path does one hash update at submit and one lookup + delete
 * at completion; everything else is switched off by rodata (const volatile) so the
 * verifier prunes it.
 */
#include "vmlinux_arch.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "aioscope.h"
#include "buckets.h"

#define ECANCELED	125
#define EEXIST		17
#define ENOMEM		12
#define S_IFMT		00170000
#define S_IFBLK		0060000
#define S_IFCHR		0020000

/* ---- configuration, written by user space before load ---- */
const volatile __u32 targ_tgid = 0;
const volatile bool filter_cg = false;
const volatile bool filter_dev = false;
const volatile __u32 targ_dev = 0;
const volatile bool filter_ino = false;
const volatile __u64 targ_ino = 0;
const volatile bool filter_comm = false;
const volatile char targ_comm[AIOS_COMM_LEN] = {};
const volatile __u64 min_lat_ns = 0;

const volatile bool want_events = false;	/* DONE records */
const volatile bool want_event_reap = false;	/* REAP records (user-space join) */
const volatile bool want_hist = false;
const volatile __u32 hist_by = AIOS_BY_NONE;
const volatile bool want_hist_reap = false;	/* kernel join via the done map */
const volatile bool want_hist_syscalls = false;
const volatile bool want_comm = false;
const volatile bool want_qd = false;
const volatile bool want_ids = false;		/* ctx/obj/data at submit */
const volatile bool want_cancel = false;	/* io_cancel calls are hooked */
/*
 * lean: only latency histograms by nothing or by op, no filter that needs the file
 * or the comm: submit and completion touch just the slot's ts, op and flags.
 */
const volatile bool lean = false;
/* record the submitting kernel and user stacks of each request (stuck --stack) */
const volatile bool targ_stacks = false;
const volatile bool mode_syscalls = false;
/*
 * Fault injection for the tests (AIOSCOPE_FAULT_LOSE_DATA): completions of libaio
 * requests whose user data (aio_data) is at least this are not seen, as when the
 * kernel skips a program run. 0: off, and the check is compiled out.
 */
const volatile __u64 fault_lose_data = 0;

/* ---- maps ---- */
/*
 * The in-flight table, in two parts.
 * slots: a direct-mapped table indexed by a hash of the kiocb address. A submit
 *   claims its slot with one compare-and-swap (0 -> kiocb), its completion releases
 *   it with another: no locks, no hashing of keys, no allocation. Memory-mappable,
 *   so user space scans it without copies.
 * inflight: a hash map for what the slots cannot hold (a slot taken by another
 *   pending request) and for the syscalls mode (keyed by user iocb and context).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct aios_slot);
} slots SEC(".maps");

const volatile __u32 slot_mask = 16383;	/* max_entries - 1, a power of two */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct aios_key);
	__type(value, struct aios_req);
} inflight SEC(".maps");

/* completion time and histogram group of a finished request, until its reap */
struct done_val {
	__u64 ts;
	__u64 group;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct aios_key);
	__type(value, struct done_val);
} done SEC(".maps");

struct {
	/*
	 * Preallocated: a new group must not need an atomic per-CPU allocation (those
	 * fail until the per-CPU allocator refills). User space sizes it to a memory
	 * budget: entries * 16 KiB * CPUs.
	 */
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 512);
	__type(key, struct aios_hkey);
	__type(value, struct aios_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct aios_hist);
} hist_zero SEC(".maps");

/*
 * Histograms whose groups are few and known (one group, by op, by queue depth):
 * a per-CPU array indexed by kind * hist_ngroups + group, a cheaper lookup than the
 * hash above, which serves the open-ended groupings (pid, dev, ctx).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct aios_hist);
} hist_arr SEC(".maps");

/* requests finished per process (the exporter's --top-pids); user space deletes
 * the entries of processes that exited */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct aios_pidc);
} pidc SEC(".maps");

const volatile bool want_pid_counts = false;

const volatile bool hist_direct = false;
const volatile __u32 hist_ngroups = 1;

/* io_cancel calls (LRU: calls that found nothing to cancel age out) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct aios_key);
	__type(value, struct aios_cancel);
} cancels SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* one entry per dev/ctx/pid seen */
	__uint(max_entries, 16384);
	__type(key, struct aios_qkey);
	__type(value, struct aios_qd);
} qd SEC(".maps");

/*
 * Reconciliation (want_reconcile: someone reads the in-flight table or the queue
 * depth). The kernel may skip a completion program (a kprobe that fires while another
 * BPF program runs on the CPU, e.g. from an hrtimer interrupt nesting in a submit
 * program), which would leave its request pending, and in the queue depth, until its
 * kiocb is reused. The reap names every request by the application's own identity
 * (user iocb, context, process), so each pending libaio request is also indexed that
 * way: a reaped event whose request is still pending had its completion missed, and
 * the reap takes it out, counted (AIOS_CNT_RECONCILED). A process's or context's
 * requests that are never reaped are taken out at exit or io_destroy (purge).
 * The value says which pending request the entry is for: a kiocb is reused as soon as
 * its request completes, and the entry must not take the next one.
 */
const volatile bool want_reconcile = false;

struct pend_ref {
	__u64 id;	/* kiocb address: the in-flight table's key */
	__u64 ts;	/* its submit time, which tells one request on it from the next */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);	/* slots + inflight; 1 unless want_reconcile */
	__type(key, struct aios_key);	/* id = user iocb, aux = aios_aux(ctx, tgid) */
	__type(value, struct pend_ref);
} pend_obj SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 4096);	/* 1 unless targ_stacks */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, AIOS_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AIOS_DROP_NR);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/* syscall arguments saved at sys_enter, by thread */
struct sc_args {
	__u64 ts;
	__u64 ctx;
	__u64 ptr;	/* iocbpp or events */
	__s64 nr;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct sc_args);
} sc_submit SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct sc_args);
} sc_reap SEC(".maps");

/* ---- small helpers ---- */
static __always_inline void drop(__u32 what)
{
	__u64 *c = bpf_map_lookup_elem(&drops, &what);

	if (c)
		__sync_fetch_and_add(c, 1);
}

/*
 * No wakeups: user space drains the ring buffer on a timer (every 100 ms), which
 * costs the producer nothing; 16 MiB hold more than 100 ms of any event rate the
 * rest of the path can sustain.
 */
static __always_inline __u64 rb_flags(void)
{
	return BPF_RB_NO_WAKEUP;
}

static __always_inline bool comm_ok(char *comm)
{
	int i;

	if (!filter_comm)
		return true;
#pragma unroll
	for (i = 0; i < AIOS_COMM_LEN; i++) {
		if (comm[i] != targ_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/*
 * The current task's comm: two plain loads from the task (the kernel pads it with
 * zeros) instead of bpf_get_current_comm's string copy, 80 ns less per request in
 * the VM.
 */
static __always_inline void current_comm(char *dst)
{
	struct task_struct *task = bpf_get_current_task_btf();

	__builtin_memcpy(dst, task->comm, AIOS_COMM_LEN);
}

/* Filters that depend only on the current task. */
static __always_inline bool task_ok(__u32 tgid)
{
	if (targ_tgid && tgid != targ_tgid)
		return false;
	if (filter_cg && !bpf_current_task_under_cgroup(&cgroup_map, 0))
		return false;
	return true;
}

/*
 * Device and inode of a file. @btf: @f is a BTF pointer of an fentry program, read
 * with plain loads (checked by the verifier, no helper call); otherwise through
 * bpf_probe_read_kernel (kprobe and tracepoint programs).
 */
static __always_inline void file_ids(struct file *f, __u32 *dev, __u64 *ino, bool btf)
{
	struct inode *inode;
	umode_t mode;

	if (btf) {
		inode = f->f_inode;
		mode = inode->i_mode;
		if ((mode & S_IFMT) == S_IFCHR || (mode & S_IFMT) == S_IFBLK)
			*dev = inode->i_rdev;
		else
			*dev = inode->i_sb->s_dev;
		*ino = inode->i_ino;
		return;
	}
	inode = BPF_CORE_READ(f, f_inode);
	mode = BPF_CORE_READ(inode, i_mode);
	if ((mode & S_IFMT) == S_IFCHR || (mode & S_IFMT) == S_IFBLK)
		*dev = BPF_CORE_READ(inode, i_rdev);
	else
		*dev = BPF_CORE_READ(inode, i_sb, s_dev);
	*ino = BPF_CORE_READ(inode, i_ino);
}

static __always_inline bool file_ok(__u32 dev, __u64 ino)
{
	if (filter_dev && dev != targ_dev)
		return false;
	if (filter_ino && ino != targ_ino)
		return false;
	return true;
}

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

static __always_inline void hist_add(__u32 kind, __u64 group, __u64 v)
{
	struct aios_hkey k = { .group = group, .kind = kind };
	struct aios_hist *h;
	__u32 zkey = 0, b;

	if (hist_direct) {
		__u32 idx = kind * hist_ngroups +
			    (group < hist_ngroups ? (__u32)group : hist_ngroups - 1);

		h = bpf_map_lookup_elem(&hist_arr, &idx);
		if (!h)
			return;
		goto add;
	}
	h = bpf_map_lookup_elem(&hists, &k);
	if (!h) {
		struct aios_hist *z = bpf_map_lookup_elem(&hist_zero, &zkey);

		if (!z)
			return;
		bpf_map_update_elem(&hists, &k, z, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&hists, &k);
		if (!h) {
			drop(AIOS_DROP_HIST);
			return;
		}
	}
add:
	/*
	 * Atomic although per-CPU: a program can be preempted (fentry runs with only
	 * migration disabled) or interrupted here by its twin on this CPU, and a plain
	 * increment would lose one of the two updates.
	 */
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum, v);
	b = aio_bucket(v);
	if (b < AIOS_HIST_SLOTS)
		__sync_fetch_and_add(&h->slots[b], 1);
	for (int i = 0; i < 4; i++) {
		__u64 max = h->max;

		if (v <= max || __sync_val_compare_and_swap(&h->max, max, v) == max)
			break;
	}
}

static __always_inline __u64 group_of(struct aios_req *r, __u32 state)
{
	switch (hist_by) {
	case AIOS_BY_METRIC:
		return aios_metric_group(r->dev, r->op, r->api, state);
	case AIOS_BY_OP:
		return r->op;
	case AIOS_BY_PID:
		return r->pid;
	case AIOS_BY_DEV:
		return r->dev;
	case AIOS_BY_CTX:
		return r->ctx;
	case AIOS_BY_QD:
		return aio_log2(r->qd ? r->qd : 1);
	default:
		return 0;
	}
}

static __always_inline void pidc_add(__u32 tgid, __s64 res)
{
	struct aios_pidc *c = bpf_map_lookup_elem(&pidc, &tgid);

	if (!c) {
		struct aios_pidc z = {};

		bpf_map_update_elem(&pidc, &tgid, &z, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&pidc, &tgid);
		if (!c) {
			drop(AIOS_DROP_PIDC);
			return;
		}
	}
	__sync_fetch_and_add(&c->count, 1);
	if (res > 0)
		__sync_fetch_and_add(&c->bytes, res);
}

static __always_inline __u32 state_of(__s64 res, __u8 flags)
{
	if (res == -ECANCELED || (flags & AIOS_F_CANCELLED))
		return AIOS_CANCELLED;
	return res < 0 ? AIOS_ERROR : AIOS_DONE;
}

/* ---- the in-flight table ---- */

static __always_inline struct aios_slot *slot_of(__u64 id)
{
	__u32 idx = (__u32)(((id >> 4) * 0x9E3779B97F4A7C15ULL) >> 40) & slot_mask;

	return bpf_map_lookup_elem(&slots, &idx);
}

/*
 * Claim @id's slot with one compare-and-swap: free, or held by a stale copy of the
 * same request (then its req.id is still @id; a free slot's is 0). NULL when
 * another pending request holds it.
 */
static __always_inline struct aios_slot *slot_claim(__u64 id)
{
	struct aios_slot *s = slot_of(id);
	__u64 old;

	if (!s)
		return NULL;
	old = __sync_val_compare_and_swap(&s->kiocb, 0, id);
	return old == 0 || old == id ? s : NULL;
}

/* Free a slot its request @id holds: req.id first, so that a free slot's is 0. */
static __always_inline void slot_release(struct aios_slot *s, __u64 id)
{
	s->req.id = 0;
	/* only the holder releases its slot: the swap cannot fail */
	__sync_val_compare_and_swap(&s->kiocb, id, 0);
}

/*
 * Entries of the inflight hash map (approximately: inserts minus deletes), so that a
 * submit that got its slot looks for a stale copy of itself in the map only when the
 * map holds anything at all.
 */
__s64 nhash = 0;

/*
 * A stale record: a request whose completion was not seen (a program run the kernel
 * skipped), replaced by a new request on the same key. Same kiocb address, or same
 * user iocb in syscalls mode, means the old request is over: take it off the queue
 * depth counters, which it still holds.
 */
/* Index a pending libaio request by its user identity (see want_reconcile). */
static __always_inline void pend_note(struct aios_req *r)
{
	struct aios_key k = { .id = r->obj, .aux = aios_aux(r->ctx, r->pid) };
	struct pend_ref v = { .id = r->id, .ts = r->ts };

	if (bpf_map_update_elem(&pend_obj, &k, &v, BPF_ANY))
		drop(AIOS_DROP_INFLIGHT);	/* it cannot be reconciled: not tracked */
}

/* Remove @r's index entry, if it is @r's (a new request may hold the same iocb). */
static __always_inline void pend_forget(struct aios_req *r)
{
	struct aios_key k = { .id = r->obj, .aux = aios_aux(r->ctx, r->pid) };
	struct pend_ref *v = bpf_map_lookup_elem(&pend_obj, &k);

	if (v && v->id == r->id && v->ts == r->ts)
		bpf_map_delete_elem(&pend_obj, &k);
}

static __always_inline void stale(struct aios_req *old)
{
	if (want_qd && old->ts)
		qd_all(old, -1);
	if (want_reconcile && old->api == AIOS_API_AIO)
		pend_forget(old);
}

/* @old's completion was not seen: release it, counted (see want_reconcile) */
static __always_inline void missed(struct aios_req *old)
{
	stale(old);
	if (want_reconcile)
		drop(AIOS_CNT_RECONCILED);
}

/* Forget a stale copy of @key in the hash map (the new request got the slot). */
static __always_inline void hash_purge(struct aios_key *key)
{
	struct aios_req *p = bpf_map_lookup_elem(&inflight, key);

	if (!p)
		return;
	missed(p);
	if (!bpf_map_delete_elem(&inflight, key))
		__sync_fetch_and_add(&nhash, -1);
}

/*
 * A request the filters reject (or that is not followed at all) may reuse the key of
 * a stale record: forget that record now, or this request's completion would take
 * it and report the old request with an arbitrary latency.
 */
static __always_inline void forget(struct aios_key *key)
{
	struct aios_slot *s = mode_syscalls ? NULL : slot_of(key->id);

	if (s && s->kiocb == key->id) {
		if (s->req.id == key->id)
			missed(&s->req);
		slot_release(s, key->id);
	}
	if (nhash > 0)
		hash_purge(key);
}

/*
 * Insert a pending request: its slot if free (or held by a stale copy of itself),
 * else the hash map. A stale copy being replaced releases its queue depth first, so
 * that no request is ever counted twice.
 */
static __always_inline int inflight_put(struct aios_key *key, struct aios_req *r)
{
	struct aios_req *p;
	int err;

	if (!mode_syscalls) {
		struct aios_slot *s = slot_claim(key->id);

		if (s) {
			if (s->req.id == key->id)
				missed(&s->req);
			s->req = *r;
			if (nhash > 0)
				hash_purge(key);
			return 0;
		}
	}
	err = bpf_map_update_elem(&inflight, key, r, BPF_NOEXIST);
	if (!err) {
		__sync_fetch_and_add(&nhash, 1);
		return 0;
	}
	if (err != -EEXIST)
		return err;
	p = bpf_map_lookup_elem(&inflight, key);
	if (p)
		missed(p);
	return bpf_map_update_elem(&inflight, key, r, BPF_EXIST);
}

/* Find a pending request (NULL if not tracked). */
static __always_inline struct aios_req *inflight_find(struct aios_key *key)
{
	if (!mode_syscalls) {
		struct aios_slot *s = slot_of(key->id);

		if (s && s->kiocb == key->id)
			return &s->req;
	}
	return bpf_map_lookup_elem(&inflight, key);
}

/* Remove a pending request into @r. Returns false if it was not tracked. */
static __always_inline bool inflight_take(struct aios_key *key, struct aios_req *r)
{
	struct aios_req *p;

	if (!mode_syscalls) {
		struct aios_slot *s = slot_of(key->id);

		if (s && s->kiocb == key->id) {
			*r = s->req;
			slot_release(s, key->id);
			return true;
		}
	}
	p = bpf_map_lookup_elem(&inflight, key);
	if (!p)
		return false;
	*r = *p;
	if (!bpf_map_delete_elem(&inflight, key))
		__sync_fetch_and_add(&nhash, -1);
	return true;
}

/* ---- submit ---- */

/*
 * Fill the submitter and the file of a request into @r and apply the filters that
 * need them. Returns false when the request is filtered out.
 */
static __always_inline bool submit_fill(struct aios_req *r, struct file *f, __u64 pid_tgid,
					bool btf, bool file_later)
{
	r->pid = pid_tgid >> 32;
	r->tid = (__u32)pid_tgid;
	/* @file_later: no file yet (io_uring); the completion reads it and filters */
	if (f || !file_later) {
		file_ids(f, &r->dev, &r->ino, btf);
		if (!file_ok(r->dev, r->ino))
			return false;
	}
	if (want_comm || filter_comm) {
		current_comm(r->comm);
		if (!comm_ok(r->comm))
			return false;
	}
	return true;
}

/*
 * Record a request at submit. @req has ts, id, ctx, obj, data, offset, len, op, api
 * filled by the caller; this fills the submitter and file, applies the filters and
 * inserts it into the in-flight table.
 */
static __always_inline void submit_req(struct aios_key *key, struct aios_req *r,
				       struct file *f, __u64 pid_tgid, bool btf, bool file_later)
{
	if (!submit_fill(r, f, pid_tgid, btf, file_later)) {
		forget(key);
		return;
	}
	if (want_qd)
		r->qd = qd_all(r, 1);
	if (inflight_put(key, r)) {
		drop(AIOS_DROP_INFLIGHT);
		if (want_qd)
			qd_all(r, -1);
		return;
	}
	if (want_reconcile && r->api == AIOS_API_AIO)
		pend_note(r);
}

/*
 * aio_read/aio_write/aio_fsync entry: @kiocb is the aio_kiocb's first member, @iocb
 * the kernel's copy of the user's iocb. In fentry programs (@btf) @kiocb and @iocb
 * are read with plain loads; the aio_kiocb fields around the kiocb (context, user
 * iocb, aio_data) need bpf_probe_read_kernel, so they are read here only when
 * someone looks at pending requests (in-flight table, queue depth by context);
 * otherwise the completion fills them in from its own aio_kiocb argument.
 */
/* A stack's id in the stacks map, or -1 (failures for lack of room are counted). */
static __always_inline __s32 stack_id(void *ctx, __u64 flags)
{
	long id = bpf_get_stackid(ctx, &stacks, flags);

	if (id >= 0)
		return id;
	if (id == -EEXIST || id == -ENOMEM)
		drop(AIOS_DROP_STACK);
	return -1;
}

static __always_inline int on_submit(void *ctx, struct kiocb *kiocb, const struct iocb *iocb,
				     __u8 op, bool btf, __u64 id)
{
	struct aio_kiocb *ak = (void *)kiocb;
	struct aios_key key = { .id = id };
	struct aios_req r = {};
	__u64 pid_tgid;

	if ((targ_tgid || filter_cg) && !task_ok(bpf_get_current_pid_tgid() >> 32)) {
		forget(&key);
		return 0;
	}
	if (lean) {
		/*
		 * hist by nothing or by op: the completion needs the submit time, the op
		 * and the driver's flags, nothing else. Write just those into the slot.
		 */
		struct aios_slot *s = slot_claim(id);

		if (s) {
			s->req.ts = bpf_ktime_get_ns();
			s->req.data = btf ? iocb->aio_data : BPF_CORE_READ(iocb, aio_data);
			s->req.op = op;
			s->req.flags = 0;
			s->req.id = id;
			return 0;
		}
		/* slot taken by another request: the full path, into the hash map */
	}
	pid_tgid = bpf_get_current_pid_tgid();
	if (btf && !want_qd && !targ_stacks && !mode_syscalls) {
		/*
		 * The request goes straight into its slot, when free, without being built
		 * on the stack and copied there. Nothing else here reads the slot before
		 * the completion (queue depth, which does, takes the long way).
		 */
		struct aios_slot *s = slot_claim(id);

		if (s) {
			struct aios_req *q = &s->req;

			if (want_reconcile && q->id == id)
				missed(q);	/* a stale copy of this kiocb's last request */
			q->ts = bpf_ktime_get_ns();
			q->id = id;
			if (want_ids) {
				q->ctx = BPF_CORE_READ(ak, ki_ctx, user_id);
				q->obj = BPF_CORE_READ(ak, ki_res.obj);
				q->data = BPF_CORE_READ(ak, ki_res.data);
			} else {
				q->ctx = 0;
				q->obj = 0;
				q->data = iocb->aio_data;
			}
			q->offset = iocb->aio_offset;
			q->len = iocb->aio_nbytes;
			q->driver_ns = 0;
			q->qd = 0;
			q->op = op;
			q->api = AIOS_API_AIO;
			q->flags = 0;
			q->kstack = 0;
			q->ustack = 0;
			if (!submit_fill(q, kiocb->ki_filp, pid_tgid, true, false)) {
				slot_release(s, id);
				if (nhash > 0)
					hash_purge(&key);
				return 0;
			}
			if (nhash > 0)
				hash_purge(&key);
			if (want_reconcile)
				pend_note(q);
			return 0;
		}
		/* slot taken by another request: the hash map, below */
	}
	r.ts = bpf_ktime_get_ns();
	r.id = id;
	if (want_ids || !btf) {
		r.ctx = BPF_CORE_READ(ak, ki_ctx, user_id);
		r.obj = BPF_CORE_READ(ak, ki_res.obj);
		r.data = BPF_CORE_READ(ak, ki_res.data);
	} else {
		r.data = iocb->aio_data;
	}
	if (btf) {
		r.offset = iocb->aio_offset;
		r.len = iocb->aio_nbytes;
	} else {
		r.offset = BPF_CORE_READ(iocb, aio_offset);
		r.len = BPF_CORE_READ(iocb, aio_nbytes);
	}
	r.op = op;
	r.api = AIOS_API_AIO;
	if (targ_stacks) {
		r.kstack = stack_id(ctx, 0);
		r.ustack = stack_id(ctx, BPF_F_USER_STACK);
	}
	submit_req(&key, &r, btf ? kiocb->ki_filp : BPF_CORE_READ(kiocb, ki_filp), pid_tgid, btf,
		   false);
	return 0;
}

/*
 * The return of aio_read/aio_write/aio_fsync. They return 0 once the request is in
 * the driver's hands (even if it already completed inline: aio_rw_done completes
 * every result but -EIOCBQUEUED), or an error (-EBADF, -EINVAL from rw_verify_area,
 * -EFAULT, ...) before it got there: then io_submit_one destroys the kiocb and
 * aio_complete never runs. Forget such a request here, or it would stay pending (and
 * in the queue depth) until its kiocb address is reused.
 */
static __always_inline void on_submit_ret(__u64 id, long ret)
{
	struct aios_key key = { .id = id };
	struct aios_req r;

	if (!ret)
		return;
	if (inflight_take(&key, &r))
		stale(&r);
}

/* ---- completion (fentry/kprobe modes) ---- */

/* A DONE record with its header filled in and no cancel details; NULL (counted) if full. */
static __always_inline struct aios_done *reserve_done(__u64 now, __s64 res, __u32 state,
						      __u64 reap_ns)
{
	struct aios_done *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		drop(AIOS_DROP_RINGBUF);
		return NULL;
	}
	e->type = AIOS_REC_DONE;
	e->state = state;
	e->ts = now;
	e->res = res;
	e->reap_ns = reap_ns;
	e->cancel_ts = 0;
	e->cancel_ret = 0;
	e->cancel_pid = 0;
	e->cancel_tid = 0;
	return e;
}

static __always_inline void emit_done(struct aios_req *r, __u64 now, __s64 res, __u32 state,
				      __u64 reap_ns)
{
	struct aios_done *e = reserve_done(now, res, state, reap_ns);

	if (!e)
		return;
	if (state == AIOS_CANCELLED && want_cancel) {
		/* only cancelled requests pay for this lookup */
		struct aios_key k = { .id = r->obj, .aux = aios_aux(r->ctx, r->pid) };
		struct aios_cancel *c = bpf_map_lookup_elem(&cancels, &k);

		if (c && c->ts >= r->ts) {
			e->cancel_ts = c->ts;
			e->cancel_ret = c->ret;
			e->cancel_pid = c->pid;
			e->cancel_tid = c->tid;
		}
		if (c)
			bpf_map_delete_elem(&cancels, &k);
	}
	__builtin_memcpy(&e->req, r, sizeof(*r));
	bpf_ringbuf_submit(e, rb_flags());
}

static __always_inline void finish(struct aios_req *r, __u64 now, __s64 res, bool reaped)
{
	__u64 lat = now - r->ts;
	__u32 state = state_of(res, r->flags);

	if (want_qd && !reaped)
		qd_all(r, -1);
	if (lat < min_lat_ns)
		return;
	if (want_hist) {
		__u64 g = group_of(r, state);

		hist_add(AIOS_H_LAT, g, lat);
		if (r->flags & AIOS_F_DRIVER)
			hist_add(AIOS_H_DRIVER, g, r->driver_ns);
		if (hist_by == AIOS_BY_METRIC && res > 0)
			hist_add(AIOS_H_BYTES, g, res);
	}
	if (want_pid_counts)
		pidc_add(r->pid, res);
	if (want_events)
		emit_done(r, now, res, state, 0);
	/* io_uring CQEs are reaped without a syscall: nothing would ever take it out */
	if (want_hist_reap && !reaped && r->api == AIOS_API_AIO) {
		struct aios_key k = { .id = r->obj, .aux = aios_aux(r->ctx, r->pid) };
		struct done_val v = { .ts = now, .group = group_of(r, state) };

		if (bpf_map_update_elem(&done, &k, &v, BPF_ANY))
			drop(AIOS_DROP_DONE);
	}
}

/*
 * The twin completion hook (fentry mode). The kernel skips a program that is already
 * active on the CPU, so a completion in an interrupt (aiodev's hrtimer completing a
 * whole batch) that arrives while a process-context completion runs that program is
 * lost. fentry mode therefore hooks aio_complete_rw and also aio_complete, which it
 * calls: whichever of the two is not the interrupted one takes the record. With
 * @twin (aio_complete behind aio_complete_rw), finding no record is the normal case,
 * and finding one for a read or write means aio_complete_rw's run was skipped: a
 * rescue, counted, which user space subtracts from that program's misses.
 */
const volatile bool complete_twin = false;

static __always_inline void twin_took(bool twin, __u8 op)
{
	if (twin && op != AIOS_OP_FSYNC && op != AIOS_OP_FDSYNC)
		drop(AIOS_CNT_RESCUED);
}

/*
 * @rw: called from aio_complete_rw (see fentry_aio_complete_rw) with the result in
 * @rw_res, before it is stored in the aio_kiocb. @twin: see complete_twin.
 */
static __always_inline int on_complete(struct aio_kiocb *ak, bool btf, __u64 id, bool rw,
				       __s64 rw_res, bool twin)
{
	struct aios_key key = { .id = id };
	struct aios_req r;
	__u64 now, data;
	__s64 res;

	/*
	 * The request's user data, to check the record against: a record whose data
	 * differs is a stale one, left by an earlier request on this kiocb whose
	 * completion was not seen, and this request's submit was not seen either.
	 */
	data = btf ? ak->ki_res.data : BPF_CORE_READ(ak, ki_res.data);
	if (fault_lose_data && data >= fault_lose_data)
		return 0;
	if (lean) {
		struct aios_slot *s = slot_of(id);

		if (s && s->kiocb == id) {
			__u64 ts = s->req.ts, dns = s->req.driver_ns, lat, g;
			__u8 flags = s->req.flags, op = s->req.op;
			bool same = s->req.data == data;

			slot_release(s, id);
			if (!same) {
				drop(AIOS_DROP_UNMATCHED);
				return 0;
			}
			twin_took(twin, op);
			now = bpf_ktime_get_ns();
			lat = now - ts;
			if (lat < min_lat_ns)
				return 0;
			g = hist_by == AIOS_BY_OP ? op : 0;
			hist_add(AIOS_H_LAT, g, lat);
			if (flags & AIOS_F_DRIVER)
				hist_add(AIOS_H_DRIVER, g, dns);
			return 0;
		}
	}
	/*
	 * snoop alone (fentry): the record goes from the slot straight into the ring
	 * buffer, without the two copies through the stack. A cancelled request takes
	 * the long way (its io_cancel details are looked up there).
	 */
	if (want_events && btf && !want_hist && !want_qd && !want_hist_reap && !want_reconcile &&
	    !mode_syscalls) {
		struct aios_slot *s = slot_of(id);
		__u32 state;

		res = ak->ki_res.res;
		/* not in its slot, stale, or cancelled: the long way below */
		state = s && s->kiocb == id && s->req.data == data ?
			state_of(res, s->req.flags) : AIOS_CANCELLED;
		if (state != AIOS_CANCELLED) {
			now = bpf_ktime_get_ns();
			if (now - s->req.ts >= min_lat_ns) {
				struct aios_done *e = reserve_done(now, res, state, 0);

				if (e) {
					__builtin_memcpy(&e->req, &s->req, sizeof(e->req));
					e->req.ctx = ak->ki_ctx->user_id;
					e->req.obj = ak->ki_res.obj;
					e->req.data = ak->ki_res.data;
					bpf_ringbuf_submit(e, rb_flags());
				}
			}
			twin_took(twin, s->req.op);
			slot_release(s, id);
			return 0;
		}
	}
	if (!inflight_take(&key, &r)) {
		if (!twin)
			drop(AIOS_DROP_UNMATCHED);
		return 0;
	}
	if (r.data != data) {
		missed(&r);
		drop(AIOS_DROP_UNMATCHED);
		return 0;
	}
	if (want_reconcile)
		pend_forget(&r);
	twin_took(twin, r.op);
	now = bpf_ktime_get_ns();
	if (btf) {
		r.ctx = ak->ki_ctx->user_id;
		r.obj = ak->ki_res.obj;
		r.data = ak->ki_res.data;
		res = ak->ki_res.res;
	} else if (rw) {
		r.ctx = BPF_CORE_READ(ak, ki_ctx, user_id);
		r.obj = BPF_CORE_READ(ak, ki_res.obj);
		r.data = data;
		res = rw_res;
	} else {
		res = BPF_CORE_READ(ak, ki_res.res);
	}
	finish(&r, now, res, false);
	return 0;
}

/* ---- reap ---- */

struct reap_ctx {
	__u64 now;
	__u64 ctx;
	__u64 events;
	__u32 tgid;
	__u32 n;
};

/*
 * REAP records: the events as the application got them, up to 32 per record,
 * reserved in the ring buffer and filled in place. A per-CPU scratch buffer would
 * not do: a preempted reaper's half-built record can be overwritten by another
 * reaper on the same CPU. The reserved size must be a constant, so it is the
 * smallest of 4, 8, 16 or 32 events that holds them; user space reads n.
 */
#define REAP_REC_SIZE(n) (offsetof(struct aios_reap, ev) + (n) * sizeof(struct aios_io_event))

static __always_inline struct aios_reap *reap_reserve(__u32 cnt)
{
	if (cnt <= 4)
		return bpf_ringbuf_reserve(&events, REAP_REC_SIZE(4), 0);
	if (cnt <= 8)
		return bpf_ringbuf_reserve(&events, REAP_REC_SIZE(8), 0);
	if (cnt <= 16)
		return bpf_ringbuf_reserve(&events, REAP_REC_SIZE(16), 0);
	return bpf_ringbuf_reserve(&events, REAP_REC_SIZE(AIOS_REAP_BATCH), 0);
}

static long reap_rec_cb(__u32 i, void *data)
{
	struct reap_ctx *c = data;
	struct aios_reap *rec;
	__u32 cnt;

	if (i * AIOS_REAP_BATCH >= c->n)
		return 1;
	cnt = c->n - i * AIOS_REAP_BATCH;
	if (cnt > AIOS_REAP_BATCH)
		cnt = AIOS_REAP_BATCH;
	rec = reap_reserve(cnt);
	if (!rec) {
		drop(AIOS_DROP_RINGBUF);
		return 0;
	}
	rec->type = AIOS_REC_REAP;
	rec->ts = c->now;
	rec->ctx = c->ctx;
	rec->pid = c->tgid;
	if (bpf_probe_read_user(rec->ev, cnt * sizeof(struct aios_io_event),
				(void *)(c->events + (__u64)i * AIOS_REAP_BATCH *
					 sizeof(struct aios_io_event))))
		cnt = 0;
	rec->n = cnt;
	bpf_ringbuf_submit(rec, rb_flags());
	return 0;
}

/* The common case, one event: a small record written in place. */
struct aios_reap1 {
	__u32 type;
	__u32 n;
	__u64 ts;
	__u64 ctx;
	__u32 pid;
	__u32 pad;
	struct aios_io_event ev[1];
};

static __always_inline void reap_one(struct reap_ctx *c)
{
	struct aios_reap1 *rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);

	if (!rec) {
		drop(AIOS_DROP_RINGBUF);
		return;
	}
	rec->type = AIOS_REC_REAP;
	rec->n = 1;
	rec->ts = c->now;
	rec->ctx = c->ctx;
	rec->pid = c->tgid;
	if (bpf_probe_read_user(rec->ev, sizeof(rec->ev), (void *)c->events))
		rec->n = 0;
	bpf_ringbuf_submit(rec, rb_flags());
}

/*
 * A reaped event whose request is still pending: its completion was not seen (see
 * want_reconcile). Take the request out of the in-flight table and the queue depth.
 * Its latency is not known (the reap is later than the completion): it is counted,
 * not reported. A request the reap finds just being replaced by a new one on the same
 * kiocb may be taken instead of it; that one's completion then finds no record: the
 * queue depth stays right either way.
 */
static __always_inline void reconcile(struct aios_key *k)
{
	struct pend_ref *v = bpf_map_lookup_elem(&pend_obj, k);
	struct aios_key ik = {};
	struct aios_req *p, r;
	__u64 ts;

	if (!v)
		return;		/* the normal case: its completion was seen */
	ik.id = v->id;
	ts = v->ts;
	bpf_map_delete_elem(&pend_obj, k);
	p = inflight_find(&ik);
	if (!p || p->ts != ts || !inflight_take(&ik, &r))
		return;
	missed(&r);
}

/* Per event: kernel-side joins (hist --reap; syscalls mode; reconciliation). */
static long reap_ev_cb(__u32 i, void *data)
{
	struct reap_ctx *c = data;
	struct aios_io_event ev;
	struct aios_key k;

	if (i >= c->n)
		return 1;
	if (bpf_probe_read_user(&ev, sizeof(ev),
				(void *)(c->events + (__u64)i * sizeof(ev))))
		return 1;
	k.id = ev.obj;
	k.aux = aios_aux(c->ctx, c->tgid);
	if (mode_syscalls) {
		struct aios_req r;

		if (!inflight_take(&k, &r)) {
			drop(AIOS_DROP_UNMATCHED);
			return 0;
		}
		if (want_qd)
			qd_all(&r, -1);
		finish(&r, c->now, ev.res, true);
		return 0;
	}
	if (want_reconcile)
		reconcile(&k);
	if (want_hist_reap) {
		struct done_val *t = bpf_map_lookup_elem(&done, &k);

		if (!t) {
			drop(AIOS_DROP_REAP_UNMATCHED);
			return 0;
		}
		if (c->now >= t->ts)
			hist_add(AIOS_H_REAP, t->group, c->now - t->ts);
		bpf_map_delete_elem(&done, &k);
	}
	return 0;
}

static __always_inline void on_reap(__u64 ctx, __u64 events_ptr, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct reap_ctx c;

	if (ret <= 0)
		return;
	if (want_hist_syscalls)
		hist_add(AIOS_H_REAP_BATCH, 0, ret);
	if (!want_event_reap && !want_hist_reap && !want_reconcile && !mode_syscalls)
		return;
	c.now = bpf_ktime_get_ns();
	c.ctx = ctx;
	c.events = events_ptr;
	c.tgid = pid_tgid >> 32;
	c.n = ret;
	if (want_event_reap && !mode_syscalls) {
		if (c.n == 1)
			reap_one(&c);
		else if (c.n <= AIOS_REAP_BATCH)
			reap_rec_cb(0, &c);
		else
			bpf_loop((c.n + AIOS_REAP_BATCH - 1) / AIOS_REAP_BATCH, reap_rec_cb, &c,
				 0);
	}
	if (want_hist_reap || want_reconcile || mode_syscalls)
		bpf_loop(c.n, reap_ev_cb, &c, 0);
}

/* ---- fentry mode ---- */

/*
 * The kiocb address as a number (the verifier forbids hashing a BTF pointer);
 * bpf_get_func_arg is inlined by the verifier.
 */
static __always_inline __u64 arg0(void *ctx)
{
	__u64 v = 0;

	bpf_get_func_arg(ctx, 0, &v);
	return v;
}

/*
 * Submit and reap twins (fentry mode). The kernel skips a program while it is active
 * on the CPU, and fentry/fexit programs run with preemption enabled: on a
 * preemptible kernel (7.x boots "lazy" by default) a task preempted inside one makes
 * it skip for every other task there until it runs again; 57 of 81 submissions went
 * missing so in one round on 7.2. (Holding off preemption with bpf_preempt_disable()
 * does not close that window: the pending reschedule happens at bpf_preempt_enable(),
 * still inside the kernel's guard; and libbpf 1.1 cannot resolve a missing weak kfunc
 * without CAP_SYS_ADMIN, which 6.1 without the kfunc then needs.)
 * So each of these hooks has two programs (three on a preemptible kernel, where two
 * tasks preempted on one CPU, one inside each of a pair, still lose a call), run one
 * after the other by the same trampoline (in an order of the kernel's choosing: the
 * last attached runs first); exactly one of them handles each call. The task's token
 * holds a signature of the call and how many of the programs have seen it: a program
 * finding its signature seen by fewer than all of them leaves the call (it was taken)
 * and counts itself; any other finding (another call, or the same signature seen by
 * all: a new, identical call) takes the call. If some are skipped, the first to run
 * takes it; the only loss is a call all of them skip, or an identical call right
 * after one that some skipped. Per task, so another task's preempted run never
 * touches it. (kprobe.multi
 * submits were tried instead: they share one per-CPU guard with the kernel's own BPF
 * map syscalls, which top makes every 100 ms, and lost as many.)
 */
struct twin_token {
	__u64 sig;
	__u32 seen;	/* programs of the set that ran for this call */
	__u32 pad;
};

const volatile __u32 twin_n = 2;	/* programs in each set: 2, or 3 (preemptible) */

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct twin_token);
} twin_token SEC(".maps");

/* @pos: which program of the set (0 handles the call when there is no token) */
static __always_inline bool twin_turn(__u64 sig, __u32 pos)
{
	struct twin_token *t = bpf_task_storage_get(&twin_token, bpf_get_current_task_btf(), 0,
						    BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!t)
		return pos == 0;
	if (t->sig == sig && t->seen < twin_n) {
		t->seen++;
		return false;
	}
	t->sig = sig;
	t->seen = 1;
	return true;
}

/* A submission's signature: its kiocb, user iocb, user data and offset. */
static __always_inline __u64 submit_sig(__u64 id, const struct iocb *iocb)
{
	struct aio_kiocb *ak = (void *)id;

	return id ^ (BPF_CORE_READ(ak, ki_res.obj) * 0x9E3779B97F4A7C15ULL) ^
	       (BPF_CORE_READ(ak, ki_res.data) * 0xC2B2AE3D27D4EB4FULL) ^
	       ((__u64)BPF_CORE_READ(iocb, aio_offset) << 17);
}

static __always_inline int fentry_submit(void *ctx, struct kiocb *req, const struct iocb *iocb,
					 __u8 op, bool btf, __u32 pos)
{
	__u64 id = arg0(ctx);
	int ret = 0;

	if (twin_turn(submit_sig(id, iocb), pos))
		ret = on_submit(ctx, req, iocb, op, btf, id);
	return ret;
}

#define SUBMIT_TWINS(suffix, pos)							\
SEC("?fentry/aio_read")								\
int BPF_PROG(fentry_aio_read##suffix, struct kiocb *req, const struct iocb *iocb)	\
{										\
	return fentry_submit(ctx, req, iocb, AIOS_OP_READ, true, pos);	\
}										\
										\
SEC("?fentry/aio_write")							\
int BPF_PROG(fentry_aio_write##suffix, struct kiocb *req, const struct iocb *iocb)	\
{										\
	return fentry_submit(ctx, req, iocb, AIOS_OP_WRITE, true, pos);	\
}										\
										\
/* fsync_iocb is another member of the same union: not a BTF kiocb */		\
SEC("?fentry/aio_fsync")							\
int BPF_PROG(fentry_aio_fsync##suffix, struct fsync_iocb *req, const struct iocb *iocb,	\
	     bool datasync)								\
{										\
	return fentry_submit(ctx, (struct kiocb *)req, iocb,			\
			     datasync ? AIOS_OP_FDSYNC : AIOS_OP_FSYNC, false, pos);	\
}

SUBMIT_TWINS(, 0)
SUBMIT_TWINS(_twin, 1)
SUBMIT_TWINS(_twin2, 2)

/* bpf_get_func_ret: the same program for all three, whatever their arguments */
SEC("?fexit/aio_read")
int BPF_PROG(fexit_aio_read)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	on_submit_ret(arg0(ctx), (int)ret);
	return 0;
}

SEC("?fexit/aio_write")
int BPF_PROG(fexit_aio_write)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	on_submit_ret(arg0(ctx), (int)ret);
	return 0;
}

SEC("?fexit/aio_fsync")
int BPF_PROG(fexit_aio_fsync)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	on_submit_ret(arg0(ctx), (int)ret);
	return 0;
}

SEC("?fentry/aio_complete")
int BPF_PROG(fentry_aio_complete, struct aio_kiocb *iocb)
{
	on_complete(iocb, true, arg0(ctx), false, 0, complete_twin);
	return 0;
}

/*
 * aio_complete is static and a compiler may inline it into its callers (the
 * KASAN/lockdep build of tests/vm/debug.config does). aio_complete_rw, the
 * ki_complete of every read and write, is called through a pointer and always
 * exists: user space hooks it instead then, and leaves fsync out (its completion,
 * in aio_fsync_work, has no hook that sees the result before the request is freed).
 * The kiocb is the aio_kiocb's first member: the same id.
 */
SEC("?fentry/aio_complete_rw")
int BPF_PROG(fentry_aio_complete_rw, struct kiocb *kiocb, long res)
{
	on_complete((struct aio_kiocb *)kiocb, false, arg0(ctx), true, res, false);
	return 0;
}

static __always_inline int fexit_reap(void *ctx, aio_context_t ctx_id, long ret, __u32 pos)
{
	__u64 events = 0;

	/* as a number: the verifier forbids arithmetic on the BTF pointer */
	bpf_get_func_arg(ctx, 3, &events);
	if (ret <= 0)
		return 0;
	if ((targ_tgid || filter_cg) && !task_ok(bpf_get_current_pid_tgid() >> 32))
		return 0;
	/* twins: see SUBMIT_TWINS; a reap is its context, events array and count */
	if (twin_turn(events ^ ((__u64)ctx_id << 7) ^ ((__u64)ret << 45), pos))
		on_reap(ctx_id, events, ret);
	return 0;
}

SEC("?fexit/do_io_getevents")
int BPF_PROG(fexit_do_io_getevents, aio_context_t ctx_id, long min_nr, long nr,
	     struct io_event *events, struct timespec64 *ts, long ret)
{
	return fexit_reap(ctx, ctx_id, ret, 0);
}

SEC("?fexit/do_io_getevents")
int BPF_PROG(fexit_do_io_getevents_twin, aio_context_t ctx_id, long min_nr, long nr,
	     struct io_event *events, struct timespec64 *ts, long ret)
{
	return fexit_reap(ctx, ctx_id, ret, 1);
}

SEC("?fexit/do_io_getevents")
int BPF_PROG(fexit_do_io_getevents_twin2, aio_context_t ctx_id, long min_nr, long nr,
	     struct io_event *events, struct timespec64 *ts, long ret)
{
	return fexit_reap(ctx, ctx_id, ret, 2);
}

/*
 * Who asked for a cancellation, when, and what io_cancel returned: the syscall's
 * entry and return, hooked only when snoop prints requests; it costs nothing per
 * request. BPF_KSYSCALL and the ksyscall sections leave the architecture's syscall
 * wrapper (__x64_sys_io_cancel, __arm64_sys_io_cancel, ...) and how it passes the
 * arguments to libbpf.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);		/* pid_tgid */
	__type(value, struct aios_key);
} cancel_arg SEC(".maps");

/*
 * The call is recorded at entry: the driver's cancel work can complete the request,
 * and its DONE record look the call up, before io_cancel returns (under full
 * preemption it often does). The return fills in the entry if it is still there.
 */
SEC("?ksyscall/io_cancel")
int BPF_KSYSCALL(ksys_io_cancel, aio_context_t ctx_id, struct iocb *iocb)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct aios_cancel c = {
		.ts = bpf_ktime_get_ns(),
		.ret = AIOS_CANCEL_RET_PENDING,
		.pid = pid_tgid >> 32,
		.tid = (__u32)pid_tgid,
	};
	struct aios_key k;

	k.id = (__u64)iocb;
	k.aux = aios_aux(ctx_id, pid_tgid >> 32);
	bpf_map_update_elem(&cancels, &k, &c, BPF_ANY);
	bpf_map_update_elem(&cancel_arg, &pid_tgid, &k, BPF_ANY);
	return 0;
}

SEC("?kretsyscall/io_cancel")
int BPF_KRETPROBE(kretsys_io_cancel, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct aios_key *a = bpf_map_lookup_elem(&cancel_arg, &pid_tgid);
	struct aios_cancel *c;
	struct aios_key k;

	if (!a)
		return 0;
	k = *a;
	bpf_map_delete_elem(&cancel_arg, &pid_tgid);
	c = bpf_map_lookup_elem(&cancels, &k);
	/* this thread's call, not yet taken by the completion */
	if (c && c->tid == (__u32)pid_tgid && c->ret == AIOS_CANCEL_RET_PENDING)
		c->ret = ret;
	return 0;
}

/* ---- kprobe mode ---- */

/*
 * kprobe mode: the kretprobe no longer has the arguments; the entry probe leaves the
 * kiocb address by thread (only when the return probes are attached).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u64);
} submit_arg SEC(".maps");

const volatile bool want_submit_ret = false;

static __always_inline int kprobe_submit(void *ctx, struct kiocb *req, const struct iocb *iocb,
					 __u8 op)
{
	if (want_submit_ret) {
		__u64 pid_tgid = bpf_get_current_pid_tgid(), id = (__u64)req;

		bpf_map_update_elem(&submit_arg, &pid_tgid, &id, BPF_ANY);
	}
	return on_submit(ctx, req, iocb, op, false, (__u64)req);
}

static __always_inline int kretprobe_submit(long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 *id = bpf_map_lookup_elem(&submit_arg, &pid_tgid);

	if (!id)
		return 0;
	on_submit_ret(*id, ret);
	bpf_map_delete_elem(&submit_arg, &pid_tgid);
	return 0;
}

SEC("?kprobe/aio_read")
int BPF_KPROBE(kprobe_aio_read, struct kiocb *req, const struct iocb *iocb)
{
	return kprobe_submit(ctx, req, iocb, AIOS_OP_READ);
}

SEC("?kprobe/aio_write")
int BPF_KPROBE(kprobe_aio_write, struct kiocb *req, const struct iocb *iocb)
{
	return kprobe_submit(ctx, req, iocb, AIOS_OP_WRITE);
}

SEC("?kprobe/aio_fsync")
int BPF_KPROBE(kprobe_aio_fsync, struct fsync_iocb *req, const struct iocb *iocb, bool datasync)
{
	return kprobe_submit(ctx, (struct kiocb *)req, iocb,
			     datasync ? AIOS_OP_FDSYNC : AIOS_OP_FSYNC);
}

SEC("?kretprobe/aio_read")
int BPF_KRETPROBE(kretprobe_aio_read, int ret)
{
	return kretprobe_submit(ret);
}

SEC("?kretprobe/aio_write")
int BPF_KRETPROBE(kretprobe_aio_write, int ret)
{
	return kretprobe_submit(ret);
}

SEC("?kretprobe/aio_fsync")
int BPF_KRETPROBE(kretprobe_aio_fsync, int ret)
{
	return kretprobe_submit(ret);
}

SEC("?kprobe/aio_complete")
int BPF_KPROBE(kprobe_aio_complete, struct aio_kiocb *iocb)
{
	return on_complete(iocb, false, (__u64)iocb, false, 0, false);
}

SEC("?kprobe/aio_complete_rw")
int BPF_KPROBE(kprobe_aio_complete_rw, struct kiocb *kiocb, long res)
{
	return on_complete((struct aio_kiocb *)kiocb, false, (__u64)kiocb, true, res, false);
}

/* ---- syscall tracepoints: reap (kprobe and syscalls modes), batching, submit ---- */

static __always_inline int sc_enter(void *map, __u64 ctx, __u64 ptr, __s64 nr)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct sc_args a = { .ctx = ctx, .ptr = ptr, .nr = nr };

	if (!task_ok(pid_tgid >> 32))
		return 0;
	a.ts = bpf_ktime_get_ns();
	bpf_map_update_elem(map, &pid_tgid, &a, BPF_ANY);
	return 0;
}

/*
 * Records that only a reap removes (syscalls mode's in-flight entries, hist --reap's
 * done map) would stay forever for a process that exits, or destroys its context,
 * with events it never reaped; past the maps' size every new request would be
 * dropped. They are purged when the process's last thread exits (after exit_mm,
 * where exit_aio waited for its requests) and after io_destroy.
 */
struct purge_ctx {
	__u64 aux;	/* aios_aux(ctx, tgid) to match, or ... */
	__u64 mask;	/* ... only the bits of it this covers */
};

#define AUX_TGID_MASK (~0ULL << 40)

static long purge_inflight_cb(struct bpf_map *map, struct aios_key *key, struct aios_req *r,
			      struct purge_ctx *p)
{
	if ((key->aux & p->mask) != p->aux)
		return 0;
	stale(r);
	if (!bpf_map_delete_elem(map, key))
		__sync_fetch_and_add(&nhash, -1);
	return 0;
}

static long purge_done_cb(struct bpf_map *map, struct aios_key *key, struct done_val *v,
			  struct purge_ctx *p)
{
	if ((key->aux & p->mask) == p->aux)
		bpf_map_delete_elem(map, key);
	return 0;
}

/* a request of the exiting process (destroyed context) never reaped: see reconcile() */
static long purge_pend_cb(struct bpf_map *map, struct aios_key *key, struct pend_ref *v,
			  struct purge_ctx *p)
{
	if ((key->aux & p->mask) == p->aux)
		reconcile(key);
	return 0;
}

static __always_inline void purge(__u64 aux, __u64 mask)
{
	struct purge_ctx p = { .aux = aux & mask, .mask = mask };

	if (want_reconcile)
		bpf_for_each_map_elem(&pend_obj, purge_pend_cb, &p, 0);
	if (mode_syscalls)
		bpf_for_each_map_elem(&inflight, purge_inflight_cb, &p, 0);
	if (want_hist_reap)
		bpf_for_each_map_elem(&done, purge_done_cb, &p, 0);
}

SEC("?tracepoint/sched/sched_process_exit")
int tp_process_exit(void *ctx)
{
	struct task_struct *task = (void *)bpf_get_current_task();

	if (BPF_CORE_READ(task, signal, live.counter))
		return 0;	/* not the last thread */
	purge(aios_aux(0, bpf_get_current_pid_tgid() >> 32), AUX_TGID_MASK);
	return 0;
}

/* io_destroy's context, from its entry to its return (when its requests are over) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);		/* pid_tgid */
	__type(value, __u64);		/* aio_context_t */
} destroy_arg SEC(".maps");

SEC("?tracepoint/syscalls/sys_enter_io_destroy")
int tp_enter_destroy(struct trace_event_raw_sys_enter *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), c = ctx->args[0];

	bpf_map_update_elem(&destroy_arg, &pid_tgid, &c, BPF_ANY);
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_io_destroy")
int tp_exit_destroy(struct trace_event_raw_sys_exit *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 *c = bpf_map_lookup_elem(&destroy_arg, &pid_tgid);
	__u64 aux;

	if (!c)
		return 0;
	aux = aios_aux(*c, pid_tgid >> 32);
	bpf_map_delete_elem(&destroy_arg, &pid_tgid);
	if (!ctx->ret)
		purge(aux, ~0ULL);
	return 0;
}

SEC("?tracepoint/syscalls/sys_enter_io_getevents")
int tp_enter_getevents(struct trace_event_raw_sys_enter *ctx)
{
	return sc_enter(&sc_reap, ctx->args[0], ctx->args[3], ctx->args[2]);
}

SEC("?tracepoint/syscalls/sys_enter_io_pgetevents")
int tp_enter_pgetevents(struct trace_event_raw_sys_enter *ctx)
{
	return sc_enter(&sc_reap, ctx->args[0], ctx->args[3], ctx->args[2]);
}

static __always_inline int sc_exit_reap(long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct sc_args *a = bpf_map_lookup_elem(&sc_reap, &pid_tgid);
	__u64 ctx, ptr;

	if (!a)
		return 0;
	ctx = a->ctx;
	ptr = a->ptr;
	bpf_map_delete_elem(&sc_reap, &pid_tgid);
	on_reap(ctx, ptr, ret);
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_io_getevents")
int tp_exit_getevents(struct trace_event_raw_sys_exit *ctx)
{
	return sc_exit_reap(ctx->ret);
}

SEC("?tracepoint/syscalls/sys_exit_io_pgetevents")
int tp_exit_pgetevents(struct trace_event_raw_sys_exit *ctx)
{
	return sc_exit_reap(ctx->ret);
}

SEC("?tracepoint/syscalls/sys_enter_io_submit")
int tp_enter_submit(struct trace_event_raw_sys_enter *ctx)
{
	return sc_enter(&sc_submit, ctx->args[0], ctx->args[2], ctx->args[1]);
}

struct submit_ctx {
	struct sc_args a;
	__u64 pid_tgid;
	__u32 n;
};

static __always_inline struct file *fd_file(__u32 fd)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fda, *f = NULL;

	if (fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fda = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fda[fd]);
	return f;
}

static __always_inline __u8 op_of(__u16 opcode)
{
	switch (opcode) {
	case 0: /* IOCB_CMD_PREAD */
	case 7: /* IOCB_CMD_PREADV */
		return AIOS_OP_READ;
	case 1: /* IOCB_CMD_PWRITE */
	case 8: /* IOCB_CMD_PWRITEV */
		return AIOS_OP_WRITE;
	case 2:
		return AIOS_OP_FSYNC;
	case 3:
		return AIOS_OP_FDSYNC;
	case 5:
		return AIOS_OP_POLL;
	default:
		return AIOS_OP_OTHER;
	}
}

/* syscalls mode: one submitted iocb, read from the caller's memory */
static long submit_iocb_cb(__u32 i, void *data)
{
	struct submit_ctx *s = data;
	struct iocb *up = NULL;
	struct iocb cb;
	struct aios_key key;
	struct aios_req r = {};
	struct file *f;

	if (i >= s->n)
		return 1;
	if (bpf_probe_read_user(&up, sizeof(up), (void *)(s->a.ptr + (__u64)i * sizeof(up))))
		return 1;
	if (bpf_probe_read_user(&cb, sizeof(cb), up))
		return 0;
	f = fd_file(cb.aio_fildes);
	if (!f)
		return 0;
	r.ts = s->a.ts;
	r.id = (__u64)up;
	r.ctx = s->a.ctx;
	r.obj = (__u64)up;
	r.data = cb.aio_data;
	r.offset = cb.aio_offset;
	r.len = cb.aio_nbytes;
	r.op = op_of(cb.aio_lio_opcode);
	r.api = AIOS_API_AIO;
	r.kstack = -1;	/* no stacks in syscalls mode: this is the syscall's exit */
	r.ustack = -1;
	key.id = (__u64)up;
	key.aux = aios_aux(s->a.ctx, s->pid_tgid >> 32);
	submit_req(&key, &r, f, s->pid_tgid, false, false);
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_io_submit")
int tp_exit_submit(struct trace_event_raw_sys_exit *ctx)
{
	struct submit_ctx s;
	struct sc_args *a;
	long ret = ctx->ret;

	s.pid_tgid = bpf_get_current_pid_tgid();
	a = bpf_map_lookup_elem(&sc_submit, &s.pid_tgid);
	if (!a)
		return 0;
	s.a = *a;
	bpf_map_delete_elem(&sc_submit, &s.pid_tgid);
	if (ret <= 0)
		return 0;
	if (want_hist_syscalls)
		hist_add(AIOS_H_SUBMIT_BATCH, 0, ret);
	if (!mode_syscalls)
		return 0;
	s.n = ret;
	bpf_loop(s.n, submit_iocb_cb, &s, 0);
	return 0;
}

/* ---- io_uring ---- */

/*
 * io_uring's own tracepoints, as raw tracepoints (cheaper than classic ones, and
 * not skipped when another tracing program runs on the CPU). Their arguments are
 * read by position, the io_kiocb behind them with CO-RE:
 *   submit: io_uring_submit_req(req) since 6.4, io_uring_submit_sqe(req,
 *           force_nonblock) before: user space attaches whichever exists. It fires
 *           after the SQE is prepared, before the request is issued.
 *   complete: io_uring_complete(ctx, req, ...): the CQE is being written to the
 *           ring (req is NULL for CQEs that belong to no request).
 * The application reaps CQEs from the shared ring without a syscall: no reap time.
 * The request holds its file only once it is issued. Where pending requests are
 * shown (in-flight table, queue depth) the submit looks the file up from the SQE's
 * descriptor in the submitter's file table; a registered (fixed) file, and every
 * file elsewhere, is read at completion, and the file filters apply there.
 * A request submitted with IOSQE_CQE_SKIP_SUCCESS posts no CQE when it succeeds, so
 * its completion cannot be seen: it is not followed (it would look stuck). A CQE
 * that overflows the CQ ring is not traced either (the tracepoint fires once a ring
 * entry was found): its request stays pending until its io_kiocb is reused, when
 * inflight_put replaces the stale entry and releases its queue depth.
 */
const volatile bool want_uring = false;

/* io_kiocb flags that mirror the SQE's (IOSQE_*_BIT, ABI) */
#define URING_F_FIXED_FILE	(1U << 0)
#define URING_F_CQE_SKIP	(1U << 6)

/* IORING_OP_* numbers are ABI */
static __always_inline int uring_op(__u8 opcode, bool *vectored)
{
	*vectored = opcode == 1 || opcode == 2;
	switch (opcode) {
	case 1:		/* READV */
	case 4:		/* READ_FIXED */
	case 22:	/* READ */
		return AIOS_OP_READ;
	case 2:		/* WRITEV */
	case 5:		/* WRITE_FIXED */
	case 23:	/* WRITE */
		return AIOS_OP_WRITE;
	case 3:		/* FSYNC */
		return AIOS_OP_FSYNC;
	}
	return -1;
}

SEC("?raw_tp/io_uring_submit_req")
int raw_uring_submit(struct bpf_raw_tracepoint_args *ctx)
{
	struct io_kiocb *req = (void *)ctx->args[0];
	struct aios_key key = { .id = (__u64)req };
	struct aios_req r = {};
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct file *f = NULL;
	bool vectored;
	__u32 rflags;
	int op;

	if (!req)
		return 0;
	/*
	 * io_kiocb.flags grew from 32 to 64 bits (6.9): read at the running kernel's
	 * size (a CO-RE size relocation); the bits needed are in the low word.
	 */
	op = uring_op(BPF_CORE_READ(req, opcode), &vectored);
	rflags = (__u32)BPF_CORE_READ_BITFIELD_PROBED(req, flags);
	/* io_kiocbs are recycled at once: one not followed must not find a stale record */
	if (op < 0 || (rflags & URING_F_CQE_SKIP) ||
	    ((targ_tgid || filter_cg) && !task_ok(pid_tgid >> 32))) {
		forget(&key);
		return 0;
	}
	r.ts = bpf_ktime_get_ns();
	r.id = key.id;
	r.ctx = (__u64)BPF_CORE_READ(req, ctx);
	r.data = BPF_CORE_READ(req, cqe.user_data);
	r.op = op;
	r.api = AIOS_API_URING;
	r.kstack = targ_stacks ? stack_id(ctx, 0) : -1;
	r.ustack = targ_stacks ? stack_id(ctx, BPF_F_USER_STACK) : -1;
	if (op != AIOS_OP_FSYNC) {
		/*
		 * The io_rw command overlays the start of the io_kiocb (its cmd union).
		 * struct io_rw is io_uring's private type, in the kernel's BTF where
		 * io_uring is built in; without it, only the kiocb it starts with.
		 */
		if (bpf_core_type_exists(struct io_rw)) {
			r.offset = BPF_CORE_READ((struct io_rw *)req, kiocb.ki_pos);
			if (!vectored && bpf_core_field_exists(struct io_rw, len))
				r.len = BPF_CORE_READ((struct io_rw *)req, len);
		} else {
			r.offset = BPF_CORE_READ((struct kiocb *)req, ki_pos);
		}
	}
	/* the file the request will be issued on, for the per-device views */
	if ((want_ids || want_qd) && !(rflags & URING_F_FIXED_FILE))
		f = fd_file(BPF_CORE_READ(req, cqe.fd));
	submit_req(&key, &r, f, pid_tgid, false, true);
	return 0;
}

/*
 * io_uring_complete(ctx, req, ...): the request is the second argument in every
 * version; what follows it changed (6.1, 6.12: user_data, res, cflags, extra1,
 * extra2; newer kernels: one struct io_uring_cqe *), so the result is read from the
 * request's own cqe, where both fill it from. User space checks the argument's
 * place in the running kernel's BTF before attaching.
 */
SEC("?raw_tp/io_uring_complete")
int raw_uring_complete(struct bpf_raw_tracepoint_args *ctx)
{
	struct io_kiocb *req = (void *)ctx->args[1];
	struct aios_key key = { .id = (__u64)req };
	struct aios_req r;
	bool qd_done = false;

	/* not a request followed here (another opcode, a filtered submitter) */
	if (!req || !inflight_take(&key, &r) || r.api != AIOS_API_URING)
		return 0;
	/* a stale record (see on_complete): another request's */
	if (r.data != BPF_CORE_READ(req, cqe.user_data)) {
		missed(&r);
		drop(AIOS_DROP_UNMATCHED);
		return 0;
	}
	if (!r.dev && !r.ino) {
		/*
		 * File not known at submit: counted in the queue depth of "no device",
		 * released from there before the device is filled in.
		 */
		if (want_qd)
			qd_all(&r, -1);
		qd_done = true;
		file_ids(BPF_CORE_READ(req, file), &r.dev, &r.ino, false);
		if (!file_ok(r.dev, r.ino))
			return 0;
	}
	finish(&r, bpf_ktime_get_ns(), BPF_CORE_READ(req, cqe.res), qd_done);
	return 0;
}

/* ---- aiodev's tracepoints: the driver's own time, and its cancels ---- */

/*
 * Raw tracepoints rather than classic ones: a classic tracepoint program is skipped
 * silently when another kprobe/tracepoint program runs on the CPU (bpf_prog_active),
 * e.g. when the driver's hrtimer interrupts a syscall tracepoint program. Raw
 * tracepoint programs only skip their own recursion, and count it (recursion_misses).
 * Arguments: TP_PROTO(u64 id, s64 offset, u64 len, s64 res, u64 lat_ns, u32 minor,
 * u32 op, u32 api, u32 flags) of aiodev's event class (docs/design.md).
 */
static __always_inline int on_driver(__u64 id, __u64 lat_ns, __u32 api, bool cancel)
{
	struct aios_key key = { .id = id };
	struct aios_req *r;

	/* io_uring's kiocb is the first member of its io_kiocb: the same id */
	if (api != AIOS_API_AIO && !(api == AIOS_API_URING && want_uring))
		return 0;
	r = inflight_find(&key);
	if (!r)
		return 0;
	r->driver_ns = lat_ns;
	r->flags |= AIOS_F_DRIVER | (cancel ? AIOS_F_CANCELLED : 0);
	return 0;
}

SEC("?raw_tp/aiodev_complete")
int BPF_PROG(raw_aiodev_complete, __u64 id, __s64 offset, __u64 len, __s64 res, __u64 lat_ns,
	     __u32 minor, __u32 op, __u32 api)
{
	return on_driver(id, lat_ns, api, false);
}

SEC("?raw_tp/aiodev_cancel")
int BPF_PROG(raw_aiodev_cancel, __u64 id, __s64 offset, __u64 len, __s64 res, __u64 lat_ns,
	     __u32 minor, __u32 op, __u32 api)
{
	return on_driver(id, lat_ns, api, true);
}

char LICENSE[] SEC("license") = "GPL";
