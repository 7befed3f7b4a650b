/* SPDX-License-Identifier: GPL-2.0 */
/* libaio_fentry.bpf.h - fentry mode: fentry/fexit programs on fs/aio.c, io_cancel (part of aioscope.bpf.c) */
#ifndef AIOSCOPE_LIBAIO_FENTRY_BPF_H
#define AIOSCOPE_LIBAIO_FENTRY_BPF_H

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
 * So on such a kernel each of these hooks has three programs (with two, two tasks
 * preempted on one CPU, one inside each of the pair, still lost a call), run one
 * after the other by the same trampoline (in an order of the kernel's choosing: the
 * last attached runs first); exactly one of them handles each call. The task's token
 * holds a signature of the call and how many of the programs have seen it: a program
 * finding its signature seen by fewer than all of them leaves the call (it was taken)
 * and counts itself; any other finding (another call, or the same signature seen by
 * all: a new, identical call) takes the call. If some are skipped, the first to run
 * takes it; the only loss is a call all of them skip, or an identical call right
 * after one that some skipped. Per task, so another task's preempted run never
 * touches it. A kernel that never preempts a program (voluntary or no preemption:
 * Debian's 6.1 and 6.12) cannot skip one for another task, and nothing calls these
 * functions from an interrupt: there each hook has one program and no token, half
 * the submit side's program runs of a pair. (kprobe.multi
 * submits were tried instead: they share one per-CPU guard with the kernel's own BPF
 * map syscalls, which top makes every 100 ms, and lost as many.)
 */
struct twin_token {
	__u64 sig;
	__u32 seen;	/* programs of the set that ran for this call */
	__u32 pad;
};

const volatile __u32 twin_n = 1;	/* programs in each set: 1, or 3 (preemptible) */

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

	if (twin_n == 1 || twin_turn(submit_sig(id, iocb), pos))
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
	if (twin_n == 1 || twin_turn(events ^ ((__u64)ctx_id << 7) ^ ((__u64)ret << 45), pos))
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

#endif /* AIOSCOPE_LIBAIO_FENTRY_BPF_H */
