/* SPDX-License-Identifier: GPL-2.0 */
/* libaio_tp.bpf.h - syscall tracepoints (reap in kprobe mode, the syscalls mode) and purges at exit (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_LIBAIO_TP_BPF_H
#define AIOSCOPE_LIBAIO_TP_BPF_H

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

/* aios_aux's and uring_aux's tgid bits */
#define AUX_TGID_MASK ((~0ULL << 40) & ~(1ULL << 63))

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

static long purge_unreaped_cb(struct bpf_map *map, struct aios_key *key,
			      struct aios_unreaped *v, struct purge_ctx *p)
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
		reconcile(key, false, 0);
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
	/* after the reconciliation above, which may have finished some into it */
	if (want_unreaped)
		bpf_for_each_map_elem(&unreaped, purge_unreaped_cb, &p, 0);
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

#endif /* AIOSCOPE_LIBAIO_TP_BPF_H */
