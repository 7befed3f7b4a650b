// SPDX-License-Identifier: GPL-2.0
/*
 * tracer_attach.c - opening a tracer: which attach mode and which hooks this kernel
 * allows, the programs' load and attach in that mode, the readers of what was
 * attached (tracer_open), and close; what was attached, for -v and the JSON outputs
 * (tracer_describe, tracer_hooks_json).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "aioscope.h"
#include "core/json.h"
#include "parse.h"
#include "privs.h"
#include "tracer_int.h"

static const struct {
	const char *name;
	const char *feeds;	/* what is missing without it */
} hook_info[HK_NR] = {
	[HK_SUBMIT] = { "aio_submit", "libaio requests" },
	[HK_COMPLETE_RW] = { "aio_complete_rw", "read and write completions" },
	[HK_REAP] = { "io_getevents", "reap times" },
	[HK_COMPLETE] = { "aio_complete", "fsync completions" },
	[HK_SUBMIT_RET] = { "aio_submit_return", "cleanup of failed submits" },
	[HK_SUBMIT_BATCH] = { "io_submit", "submit batch sizes" },
	[HK_CANCEL] = { "io_cancel", "cancel details" },
	[HK_DRIVER] = { "aiodev", "driver time" },
	[HK_URING] = { "io_uring", "io_uring requests" },
	[HK_PURGE] = { "exit", "cleanup of requests never reaped" },
	[HK_STAGES] = { "block", "the block layer's stages" },
	[HK_IOWQ] = { "io-wq", "the io-wq stage" },
	[HK_URING_REAP] = { "io_uring_enter", "io_uring reap times" },
};


static bool g_verbose;
static bool g_probing;		/* tracer_open is trying attach modes and hooks */
static void watch_libbpf(const char *fmt, va_list args);

/*
 * libbpf's warnings always reach stderr, except while tracer_open tries what the
 * kernel allows: programs and hooks that fail there are expected, and aioscope says
 * itself what it left out (-v) or why it cannot trace. Info and debug need -v.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_WARN) {
		va_list copy;

		va_copy(copy, args);
		watch_libbpf(fmt, copy);
		va_end(copy);
		if (!g_verbose && g_probing)
			return 0;
		return vfprintf(stderr, fmt, args);
	}
	if (!g_verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void tracer_log_setup(bool verbose)
{
	g_verbose = verbose;
	libbpf_set_print(libbpf_print);
}

static const char *complete_hook(const struct tracer *t)
{
	if (t->mode == TRACER_MODE_SYSCALLS)
		return "none";
	if (t->complete_rw)
		return "aio_complete_rw (aio_complete unavailable: fsync not traced)";
	return t->mode == TRACER_MODE_FENTRY ? "aio_complete_rw + aio_complete (twins)" :
	       "aio_complete";
}

static const char *submit_hooks(const struct tracer *t)
{
	switch (t->mode) {
	case TRACER_MODE_FENTRY:
		return t->preemptible ? "fentry (3 twins: the kernel preempts programs)" :
					"fentry";
	case TRACER_MODE_KPROBE:
		return "kprobe";
	default:
		return "io_submit tracepoint";
	}
}

/* @h is one of the hooks in use: wanted by the mode and options, and attached */
static bool hook_in_place(const struct tracer *t, enum hook_id h)
{
	return (t->hooks_wanted & HK(h)) && !(t->hooks_missing & HK(h));
}

static bool driver_attached(const struct tracer *t)
{
	return hook_in_place(t, HK_DRIVER);
}

void tracer_describe(const struct tracer *t, FILE *f)
{
	const char *name, *feeds;
	int err;

	fprintf(f, "aioscope: attach mode %s, aiodev tracepoints %s, io_uring %s\n",
		tracer_mode_name(t),
		driver_attached(t) ? "attached" :
		t->hooks_missing & HK(HK_DRIVER) ? "missing" : "absent",
		t->uring ? "traced" : "not traced");
	fprintf(f, "aioscope: submit hooks %s, completion hook %s\n", submit_hooks(t),
		complete_hook(t));
	fprintf(f, "aioscope: hooks attached:");
	for (int h = 0; h < HK_NR; h++)
		if (hook_in_place(t, h))
			fprintf(f, " %s", hook_info[h].name);
	fprintf(f, "\n");
	if (!tracer_missing_hook(t, 0, NULL, NULL))
		fprintf(f, "aioscope: hooks missing: none\n");
	for (int i = 0; (name = tracer_missing_hook(t, i, &feeds, &err)); i++)
		fprintf(f, "aioscope: hook %s missing (no %s): %s\n", name, feeds, strerror(-err));
}

const char *tracer_missing_hook(const struct tracer *t, int i, const char **feeds, int *err)
{
	for (int h = 0; h < HK_NR; h++) {
		if (!(t->hooks_missing & HK(h)) || i--)
			continue;
		if (feeds)
			*feeds = hook_info[h].feeds;
		if (err)
			*err = t->hook_err[h] ? t->hook_err[h] : -ENOENT;
		return hook_info[h].name;
	}
	return NULL;
}

void tracer_hooks_json(const struct tracer *t, struct aio_json *j)
{
	const char *name, *feeds;
	int err;

	aio_json_name(j, "hooks");
	aio_json_start_array(j);
	for (int h = 0; h < HK_NR; h++)
		if (hook_in_place(t, h))
			aio_json_string(j, hook_info[h].name);
	aio_json_end_array(j);
	aio_json_name(j, "missing_hooks");
	aio_json_start_array(j);
	for (int i = 0; (name = tracer_missing_hook(t, i, &feeds, &err)); i++) {
		aio_json_start_object(j);
		aio_json_string_field(j, "hook", name);
		aio_json_string_field(j, "feeds", feeds);
		aio_json_string_field(j, "error", strerror(-err));
		aio_json_end_object(j);
	}
	aio_json_end_array(j);
}

/*
 * aio_complete is static: a kernel built with other options may have inlined it
 * (then it has no BTF function and no kprobe). AIOSCOPE_HOOK_COMPLETE_RW=1 forces
 * the fallback, so that tests can run it on any kernel. (A clone with BTF but no
 * symbol of that name is found when its hook fails to load or attach.)
 */
static bool aio_complete_inlined(const struct btf *btf)
{
	const char *e = getenv("AIOSCOPE_HOOK_COMPLETE_RW");

	if (e && *e && strcmp(e, "0"))
		return true;
	if (!btf)
		return false;	/* no BTF: the attach attempts will say what is wrong */
	return btf__find_by_name_kind(btf, "aio_complete", BTF_KIND_FUNC) < 0;
}

/*
 * Argument @arg (0: the first after the tracepoint's data pointer) of raw
 * tracepoint @tp in the kernel's BTF (its btf_trace_<tp> typedef): its type after
 * modifiers, or NULL when the tracepoint or the argument does not exist.
 */
static const struct btf_type *tp_arg(const struct btf *btf, const char *tp, unsigned int arg)
{
	char name[96];
	const struct btf_type *t;
	const struct btf_param *pp;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return NULL;
	id = btf__resolve_type(btf, id);	/* the typedef's pointer */
	if (id < 0)
		return NULL;
	t = btf__type_by_id(btf, id);
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < arg + 2)
		return NULL;
	pp = btf_params(t) + arg + 1;
	id = btf__resolve_type(btf, pp->type);
	return id < 0 ? NULL : btf__type_by_id(btf, id);
}

/* is argument @arg of @tp a pointer (to a struct named @sname, if given)? */
static bool tp_arg_ptr(const struct btf *btf, const char *tp, unsigned int arg,
		       const char *sname)
{
	const struct btf_type *a = tp_arg(btf, tp, arg);

	if (!a || !btf_is_ptr(a))
		return false;
	if (!sname)
		return true;
	a = btf__type_by_id(btf, a->type);
	return a && btf_is_struct(a) && !strcmp(btf__name_by_offset(btf, a->name_off), sname);
}

static uint32_t kdev(dev_t d)
{
	return (major(d) << 20) | (minor(d) & 0xfffff);
}

/* a tracepoint, "system/event", listed by tracefs at either of its places */
static bool have_event(const char *name)
{
	char p[160];

	snprintf(p, sizeof(p), "/sys/kernel/tracing/events/%s", name);
	if (!access(p, F_OK))
		return true;
	snprintf(p, sizeof(p), "/sys/kernel/debug/tracing/events/%s", name);
	return !access(p, F_OK);
}

static bool have_aiodev_tracepoints(void)
{
	return have_event("aiodev/aiodev_complete");
}

/*
 * io_uring's tracepoints, checked in the kernel's BTF: the submit one was renamed
 * in 6.4 (io_uring_submit_sqe(req, force_nonblock) before, io_uring_submit_req(req)
 * since), and io_uring_complete's arguments after the request changed; the
 * programs read the request, the first argument of the one and the second of the
 * other: both must be where the programs look. NULL with *err when not usable.
 */
static const char *uring_submit_tp(const struct btf *btf, int *err)
{
	static const char *const submit[] = { "io_uring_submit_req", "io_uring_submit_sqe" };

	*err = -ENOENT;
	if (!btf) {	/* no BTF: no tracer either; keep what tracefs lists */
		if (!have_event("io_uring/io_uring_complete"))
			return NULL;
		for (size_t i = 0; i < 2; i++) {
			char ev[64];

			snprintf(ev, sizeof(ev), "io_uring/%s", submit[i]);
			if (have_event(ev))
				return submit[i];
		}
		return NULL;
	}
	if (!tp_arg(btf, "io_uring_complete", 0))
		return NULL;
	if (!tp_arg_ptr(btf, "io_uring_complete", 1, NULL)) {
		*err = -EPROTO;	/* its request is no longer its second argument */
		return NULL;
	}
	for (size_t i = 0; i < 2; i++) {
		if (!tp_arg(btf, submit[i], 0))
			continue;
		if (tp_arg_ptr(btf, submit[i], 0, "io_kiocb"))
			return submit[i];
		*err = -EPROTO;
	}
	return NULL;
}

/*
 * Classic tracepoints need tracefs. Mount it at its standard place when nothing
 * is mounted there (what systemd does at boot); harmless if it fails.
 */
static void ensure_tracefs(bool verbose)
{
	if (!access("/sys/kernel/tracing/events", F_OK) ||
	    !access("/sys/kernel/debug/tracing/events", F_OK))
		return;
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) && verbose)
		fprintf(stderr, "aioscope: cannot mount tracefs on /sys/kernel/tracing: %s\n",
			strerror(errno));
	else if (verbose)
		fprintf(stderr, "aioscope: mounted tracefs on /sys/kernel/tracing\n");
}

/* modes a program runs in */
#define M_F (1U << TRACER_MODE_FENTRY)
#define M_K (1U << TRACER_MODE_KPROBE)
#define M_S (1U << TRACER_MODE_SYSCALLS)

/* conditions of one attempt a program needs */
enum {
	C_COMPLETE = 1 << 2,	/* aio_complete is hooked (fsync traced) */
	C_RW_ONLY = 1 << 3,	/* aio_complete_rw alone */
	C_SUBMIT_RET = 1 << 4,
	C_REAP_FEXIT = 1 << 5,
	C_REAP_TP = 1 << 6,
	C_SUBMIT_TP = 1 << 7,
	C_CANCEL = 1 << 8,
	C_DRIVER = 1 << 9,
	C_URING = 1 << 10,
	C_PURGE = 1 << 11,	/* records only a reap removes: purge them at exit */
	C_TWINS = 1 << 12,	/* submit/reap twins: the kernel preempts programs */
	C_STAGES = 1 << 13,	/* --stages */
	C_URING_REAP = 1 << 14,	/* io_uring's reaps (want_uring_reap) */
};

/*
 * Mode -> programs, in attach order: the completion side first, the submit side
 * last, so that a request submitted while only the submit hooks were attached
 * cannot have its completion missed and stay pending for good. Completions of
 * requests submitted before the submit hooks are merely "not seen submitted".
 */
struct prog_use {
	size_t prog;		/* offsetof(struct aioscope_bpf, progs.X) */
	size_t link;		/* offsetof(struct aioscope_bpf, links.X) */
	unsigned int modes;
	unsigned int need;	/* C_* */
	enum hook_id hook;
};

static const struct prog_use prog_table[] = {
#define U(name, modes, need, hook) { offsetof(struct aioscope_bpf, progs.name), \
				     offsetof(struct aioscope_bpf, links.name), modes, need, hook }
	U(fentry_aio_complete, M_F, C_COMPLETE, HK_COMPLETE),
	U(kprobe_aio_complete, M_K, C_COMPLETE, HK_COMPLETE),
	U(raw_uring_complete, M_F | M_K | M_S, C_URING, HK_URING),
	U(fentry_aio_complete_rw, M_F, 0, HK_COMPLETE_RW),
	U(kprobe_aio_complete_rw, M_K, C_RW_ONLY, HK_COMPLETE_RW),
	U(raw_aiodev_complete, M_F | M_K, C_DRIVER, HK_DRIVER),
	U(raw_aiodev_cancel, M_F | M_K, C_DRIVER, HK_DRIVER),
	U(raw_aiodev_submit, M_F | M_K, C_DRIVER | C_STAGES, HK_DRIVER),
	U(raw_block_rq_complete, M_F | M_K, C_STAGES, HK_STAGES),
	U(raw_block_rq_issue, M_F | M_K, C_STAGES, HK_STAGES),
	U(raw_block_bio_queue, M_F | M_K, C_STAGES, HK_STAGES),
	U(fentry_iowq_start, M_F, C_STAGES | C_URING, HK_IOWQ),
	U(kprobe_iowq_start, M_K, C_STAGES | C_URING, HK_IOWQ),
	U(raw_uring_punt, M_F | M_K, C_STAGES | C_URING, HK_IOWQ),
	U(fexit_aio_read, M_F, C_SUBMIT_RET, HK_SUBMIT_RET),
	U(fexit_aio_write, M_F, C_SUBMIT_RET, HK_SUBMIT_RET),
	U(fexit_aio_fsync, M_F, C_SUBMIT_RET | C_COMPLETE, HK_SUBMIT_RET),
	U(kretprobe_aio_read, M_K, C_SUBMIT_RET, HK_SUBMIT_RET),
	U(kretprobe_aio_write, M_K, C_SUBMIT_RET, HK_SUBMIT_RET),
	U(kretprobe_aio_fsync, M_K, C_SUBMIT_RET | C_COMPLETE, HK_SUBMIT_RET),
	U(fexit_do_io_getevents, M_F, C_REAP_FEXIT, HK_REAP),
	U(fexit_do_io_getevents_twin, M_F, C_REAP_FEXIT | C_TWINS, HK_REAP),
	U(fexit_do_io_getevents_twin2, M_F, C_REAP_FEXIT | C_TWINS, HK_REAP),
	U(tp_enter_getevents, M_F | M_K | M_S, C_REAP_TP, HK_REAP),
	U(tp_exit_getevents, M_F | M_K | M_S, C_REAP_TP, HK_REAP),
	U(tp_enter_pgetevents, M_F | M_K | M_S, C_REAP_TP, HK_REAP),
	U(tp_exit_pgetevents, M_F | M_K | M_S, C_REAP_TP, HK_REAP),
	U(ksys_uring_enter, M_F | M_K, C_URING_REAP, HK_URING_REAP),
	U(kretsys_io_cancel, M_F, C_CANCEL, HK_CANCEL),
	U(ksys_io_cancel, M_F, C_CANCEL, HK_CANCEL),
	/* the syscalls mode's submits: HK_SUBMIT there (see prog_hook) */
	U(tp_exit_submit, M_F | M_K | M_S, C_SUBMIT_TP, HK_SUBMIT_BATCH),
	U(tp_enter_submit, M_F | M_K | M_S, C_SUBMIT_TP, HK_SUBMIT_BATCH),
	/* with their twins where the kernel preempts programs: see SUBMIT_TWINS in the BPF */
	U(fentry_aio_read, M_F, 0, HK_SUBMIT),
	U(fentry_aio_write, M_F, 0, HK_SUBMIT),
	U(fentry_aio_fsync, M_F, C_COMPLETE, HK_SUBMIT),
	U(fentry_aio_read_twin, M_F, C_TWINS, HK_SUBMIT),
	U(fentry_aio_write_twin, M_F, C_TWINS, HK_SUBMIT),
	U(fentry_aio_fsync_twin, M_F, C_COMPLETE | C_TWINS, HK_SUBMIT),
	U(fentry_aio_read_twin2, M_F, C_TWINS, HK_SUBMIT),
	U(fentry_aio_write_twin2, M_F, C_TWINS, HK_SUBMIT),
	U(fentry_aio_fsync_twin2, M_F, C_COMPLETE | C_TWINS, HK_SUBMIT),
	U(kprobe_aio_read, M_K, 0, HK_SUBMIT),
	U(kprobe_aio_write, M_K, 0, HK_SUBMIT),
	U(kprobe_aio_fsync, M_K, C_COMPLETE, HK_SUBMIT),
	U(raw_uring_submit, M_F | M_K | M_S, C_URING, HK_URING),
	U(tp_process_exit, M_F | M_K | M_S, C_PURGE, HK_PURGE),
	U(tp_enter_destroy, M_F | M_K | M_S, C_PURGE, HK_PURGE),
	U(tp_exit_destroy, M_F | M_K | M_S, C_PURGE, HK_PURGE),
#undef U
};

#define NPROGS (sizeof(prog_table) / sizeof(prog_table[0]))

static struct bpf_program *prog_of(struct aioscope_bpf *s, size_t i)
{
	return *(struct bpf_program **)((char *)s + prog_table[i].prog);
}

static struct bpf_link **link_of(struct aioscope_bpf *s, size_t i)
{
	return (struct bpf_link **)((char *)s + prog_table[i].link);
}

static enum hook_id prog_hook(enum tracer_mode mode, size_t i)
{
	if (prog_table[i].hook == HK_SUBMIT_BATCH && mode == TRACER_MODE_SYSCALLS)
		return HK_SUBMIT;
	return prog_table[i].hook;
}

/*
 * The program libbpf names in its first warning while loading (which program the
 * kernel or libbpf refused): libbpf unloads the whole object on a failure, and its
 * messages are the only place that says which program it was.
 */
static char g_bad_prog[64];
static bool g_watch_load;

static void watch_libbpf(const char *fmt, va_list args)
{
	char msg[256];
	const char *p;
	size_t n;

	if (!g_watch_load || g_bad_prog[0])
		return;
	vsnprintf(msg, sizeof(msg), fmt, args);
	p = strstr(msg, "prog '");
	if (!p)
		return;
	p += strlen("prog '");
	n = strcspn(p, "'");
	if (!n || n >= sizeof(g_bad_prog) || p[n] != '\'')
		return;
	memcpy(g_bad_prog, p, n);
	g_bad_prog[n] = '\0';
}

/* Test hook: AIOSCOPE_HOOK_FAIL=name[,name] makes those hooks' attach fail (ENOENT). */
static bool hook_forced_fail(enum hook_id h)
{
	const char *e = getenv("AIOSCOPE_HOOK_FAIL"), *p;
	size_t n = strlen(hook_info[h].name);

	if (!e)
		return false;
	for (p = e; (p = strstr(p, hook_info[h].name)); p += n)
		if ((p == e || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

static void hook_missing(struct tracer *t, enum hook_id h, int err)
{
	t->hooks_missing |= HK(h);
	t->hook_err[h] = err;
	if (t->opts.verbose)
		fprintf(stderr, "aioscope: %s mode: hook %s unavailable (%s): %s\n",
			tracer_mode_name(t), hook_info[h].name, hook_info[h].feeds,
			strerror(-err));
}

/*
 * Attach the loaded programs in table order. A plain optional hook that fails is
 * detached as a whole and marked missing; any other failure is returned with the
 * program's index in *@bad.
 */
static int attach_ordered(struct tracer *t, struct aioscope_bpf *s, enum tracer_mode mode,
			  size_t *bad)
{
	for (size_t i = 0; i < NPROGS; i++) {
		struct bpf_program *p = prog_of(s, i);
		enum hook_id h = prog_hook(mode, i);
		struct bpf_link *l;
		int err;

		if (!bpf_program__autoload(p) || (t->hooks_missing & HK(h)))
			continue;
		errno = 0;
		if (hook_forced_fail(h)) {
			l = NULL;
			errno = ENOENT;
		} else if (p == s->progs.raw_uring_submit) {	/* its name varies */
			l = bpf_program__attach_raw_tracepoint(p, t->uring_tp);
		} else {
			l = bpf_program__attach(p);
		}
		if (l) {
			*link_of(s, i) = l;
			continue;
		}
		err = -errno ?: -EINVAL;
		if (!(HK(h) & HK_PLAIN_OPTIONAL)) {
			*bad = i;
			return err;
		}
		/* the hook's programs attached so far come off again */
		for (size_t j = 0; j < i; j++) {
			if (prog_hook(mode, j) == h && *link_of(s, j)) {
				bpf_link__destroy(*link_of(s, j));
				*link_of(s, j) = NULL;
			}
		}
		hook_missing(t, h, err);
	}
	return 0;
}

/* Which reap hooks an attempt uses. */
enum reap_via { REAP_NONE, REAP_FEXIT, REAP_TP };

/* --dev resolved: a device, or a file on one (then its inode too) */
struct dev_filter {
	uint32_t dev;		/* kdev() of the device */
	bool file;		/* a regular file: filter on its inode as well */
	uint64_t ino;
};

/* The filters the programs apply before recording a request. */
static void set_filters(struct aioscope_bpf *s, const struct tracer_opts *o,
			const struct dev_filter *df)
{
	s->rodata->targ_tgid = o->pid > 0 ? (uint32_t)o->pid : 0;
	s->rodata->filter_cg = o->cgroup != NULL;
	if (o->dev) {
		s->rodata->filter_dev = true;
		s->rodata->targ_dev = df->dev;
		s->rodata->filter_ino = df->file;
		s->rodata->targ_ino = df->ino;
	}
	if (o->comm) {
		s->rodata->filter_comm = true;
		strncpy((char *)s->rodata->targ_comm, o->comm, AIOS_COMM_LEN - 1);
	}
	s->rodata->min_lat_ns = o->min_lat_ns;
	s->rodata->sample_n = o->sample;
}

/* the joins' bio completion functions, then that of a split's front part */
static const char *const end_io_sym[TRACER_END_IO_NR] = {
	[TRACER_JOIN_BLKDEV_ASYNC] = "blkdev_bio_end_io_async",
	[TRACER_JOIN_BLKDEV] = "blkdev_bio_end_io",
	[TRACER_JOIN_IOMAP] = "iomap_dio_bio_end_io",
	[TRACER_END_IO_CHAIN] = "bio_chain_endio",
};

const char *tracer_join_name(enum tracer_join j)
{
	static const char *const name[TRACER_JOIN_NR] = {
		[TRACER_JOIN_BLKDEV_ASYNC] = "blkdev-async",
		[TRACER_JOIN_BLKDEV] = "blkdev",
		[TRACER_JOIN_IOMAP] = "iomap",
		[TRACER_JOIN_IOWQ] = "io-wq",
		[TRACER_JOIN_URING_REAP] = "io_uring-reap",
	};

	return (unsigned int)j < TRACER_JOIN_NR ? name[j] : "?";
}

unsigned int tracer_stage_joins(const struct tracer *t)
{
	unsigned int m = 0;

	if (!t->opts.stages)
		return 0;
	for (int j = 0; j <= TRACER_JOIN_IOMAP && hook_in_place(t, HK_STAGES); j++)
		if (t->end_io[j])
			m |= 1U << j;
	if (hook_in_place(t, HK_IOWQ))
		m |= 1U << TRACER_JOIN_IOWQ;
	if (hook_in_place(t, HK_URING_REAP))
		m |= 1U << TRACER_JOIN_URING_REAP;
	return m;
}

/*
 * --stages: the bio completion functions that tell a bio's direct-I/O path (see
 * bpf/stages.bpf.h), from kallsyms, once.
 */
static void stage_symbols(struct tracer *t, struct aioscope_bpf *s)
{
	if (!t->end_io_read) {
		FILE *f = fopen("/proc/kallsyms", "re");

		t->end_io_read = true;
		if (f) {
			ksyms_lookup(f, end_io_sym, t->end_io, TRACER_END_IO_NR);
			fclose(f);
		}
		for (int j = 0; j <= TRACER_JOIN_IOMAP && t->opts.verbose; j++)
			if (!t->end_io[j])
				fprintf(stderr, "aioscope: --stages: %s not in /proc/kallsyms: "
					"%s requests show no block stages\n", end_io_sym[j],
					tracer_join_name((enum tracer_join)j));
	}
	s->rodata->end_io_blkdev_async = t->end_io[TRACER_JOIN_BLKDEV_ASYNC];
	s->rodata->end_io_blkdev = t->end_io[TRACER_JOIN_BLKDEV];
	s->rodata->end_io_iomap = t->end_io[TRACER_JOIN_IOMAP];
	s->rodata->end_io_chain = t->end_io[TRACER_END_IO_CHAIN];
}

/*
 * What the programs record, from the options and the mode; decides t->uring from
 * the hooks missing so far (attach_ordered may still take it away).
 */
static void set_wants(struct tracer *t, struct aioscope_bpf *s, enum tracer_mode mode)
{
	const struct tracer_opts *o = &t->opts;
	bool sysc = mode == TRACER_MODE_SYSCALLS;

	s->rodata->want_events = o->events;
	s->rodata->want_event_reap = o->events && o->event_reap && !sysc;
	s->rodata->want_hist = o->hist;
	s->rodata->hist_by = o->hist_by;
	s->rodata->want_hist_reap = o->hist && o->hist_reap && !sysc;
	s->rodata->want_hist_syscalls = o->hist && o->hist_syscalls;
	s->rodata->want_comm = o->events || o->inflight;
	s->rodata->want_qd = o->qd || (o->hist && o->hist_by == AIOS_BY_QD);
	s->rodata->mode_syscalls = sysc;
	s->rodata->want_ids = o->inflight || s->rodata->want_qd;
	/* pending requests are shown: a completion the kernel skipped is settled at the reap */
	s->rodata->want_reconcile = s->rodata->want_ids && !sysc;
	s->rodata->want_pid_counts = o->pid_counts;
	s->rodata->want_cancel = mode == TRACER_MODE_FENTRY && o->events &&
				 !(t->hooks_missing & HK(HK_CANCEL));
	t->uring = t->uring_tp && !(t->hooks_missing & HK(HK_URING));
	s->rodata->want_uring = t->uring;
	s->rodata->want_unreaped = o->unreaped && !sysc;
	s->rodata->want_uring_reap = t->uring && !sysc &&
				     (s->rodata->want_event_reap || s->rodata->want_hist_reap ||
				      s->rodata->want_unreaped) &&
				     !(t->hooks_missing & HK(HK_URING_REAP));
	s->rodata->targ_stacks = o->stacks && !sysc;
	s->rodata->want_stages = o->stages && !sysc;
	if (s->rodata->want_stages)
		stage_symbols(t, s);
	/* test hook: lose the completions of libaio requests with this user data or more */
	if (getenv("AIOSCOPE_FAULT_LOSE_DATA"))
		s->rodata->fault_lose_data = strtoull(getenv("AIOSCOPE_FAULT_LOSE_DATA"), NULL, 0);
	s->rodata->lean = o->hist && !o->events && !o->inflight && !o->stacks && !o->stages &&
			  !s->rodata->want_qd &&
			  !s->rodata->want_hist_reap && !o->dev && !o->comm && !sysc &&
			  (o->hist_by == AIOS_BY_NONE || o->hist_by == AIOS_BY_OP);
}

/* Histograms: a per-CPU array for few, known groups, else a hash. */
static void size_hists(struct tracer *t, struct aioscope_bpf *s)
{
	const struct tracer_opts *o = &t->opts;

	t->hist_ngroups = 0;
	if (o->hist) {
		/* few, known groups: a per-CPU array, if it fits in 64 MiB */
		unsigned int ng = o->hist_by == AIOS_BY_NONE ? 1 :
				  o->hist_by == AIOS_BY_OP ? AIOS_OP_OTHER + 1 :
				  o->hist_by == AIOS_BY_QD ? HIST_QD_GROUPS :
				  o->hist_by == AIOS_BY_STAGE ? AIOS_SG_NR : 0;
		size_t bytes = (size_t)ng * AIOS_H_NR * sizeof(struct aios_hist) * t->ncpus;
		/* other groups: a hash within a 16 MiB budget, 16..1024 entries */
		long n = (16L << 20) / ((long)sizeof(struct aios_hist) * t->ncpus);

		if (ng && bytes <= (64UL << 20)) {
			t->hist_ngroups = ng;
			s->rodata->hist_direct = true;
			s->rodata->hist_ngroups = ng;
			bpf_map__set_max_entries(s->maps.hist_arr, ng * AIOS_H_NR);
			bpf_map__set_max_entries(s->maps.hists, 1);
		} else {
			bpf_map__set_max_entries(s->maps.hists,
						 n < 16 ? 16 : n > 1024 ? 1024 : n);
		}
	} else {
		bpf_map__set_max_entries(s->maps.hists, 1);
	}
}

/* Map sizes from what set_wants chose: a map nothing uses keeps one entry. */
static void size_maps(struct tracer *t, struct aioscope_bpf *s)
{
	const struct tracer_opts *o = &t->opts;

	if (!s->rodata->want_reconcile)
		bpf_map__set_max_entries(s->maps.pend_obj, 1);
	if (!o->pid_counts)
		bpf_map__set_max_entries(s->maps.pidc, 1);
	/* ids are hashes of the stacks: room against collisions (about 4.5 MiB) */
	bpf_map__set_max_entries(s->maps.stacks, s->rodata->targ_stacks ? 16384 : 1);
	bpf_map__set_max_entries(s->maps.events,
				 o->events ? (o->ringbuf_mb ? o->ringbuf_mb : 16) << 20 : 4096);
	bpf_map__set_max_entries(s->maps.inflight, o->max_inflight ? o->max_inflight : 16384);
	bpf_map__set_max_entries(s->maps.slots, TRACER_SLOTS);
	s->rodata->slot_mask = TRACER_SLOTS - 1;
	if (!s->rodata->want_hist_reap)
		bpf_map__set_max_entries(s->maps.done, 1);
	if (!s->rodata->want_uring_reap)
		bpf_map__set_max_entries(s->maps.cq_seen, 1);
	if (!s->rodata->want_unreaped)
		bpf_map__set_max_entries(s->maps.unreaped, 1);
	size_hists(t, s);
}

/* The C_* conditions of this attempt: which rows of prog_table it loads. */
static unsigned int attach_conditions(const struct tracer *t, const struct aioscope_bpf *s,
				      enum tracer_mode mode, enum reap_via reap)
{
	const struct tracer_opts *o = &t->opts;
	uint32_t miss = t->hooks_missing;
	bool sysc = mode == TRACER_MODE_SYSCALLS;
	bool submit_tp = sysc || o->hist_syscalls;
	bool reap_tp = sysc || reap == REAP_TP;
	bool driver = !sysc && t->driver && !(miss & HK(HK_DRIVER));
	/*
	 * A submit that fails before reaching the file (-EBADF, -EFAULT, ...) never
	 * completes: it must be forgotten at its return only when pending requests are
	 * shown (in-flight listing, queue depth). Elsewhere its record is overwritten
	 * when the kiocb is reused, and the return hook would cost every request a
	 * second program run and a heavier trampoline.
	 */
	bool submit_ret = s->rodata->want_ids && !(miss & HK(HK_SUBMIT_RET));

	return (t->complete_rw ? C_RW_ONLY : C_COMPLETE) |
	       (submit_ret ? C_SUBMIT_RET : 0) |
	       (mode == TRACER_MODE_FENTRY && reap == REAP_FEXIT ? C_REAP_FEXIT : 0) |
	       (reap_tp ? C_REAP_TP : 0) |
	       (submit_tp && !(!sysc && (miss & HK(HK_SUBMIT_BATCH))) ? C_SUBMIT_TP : 0) |
	       (s->rodata->want_cancel ? C_CANCEL : 0) | (driver ? C_DRIVER : 0) |
	       (t->uring ? C_URING : 0) |
	       (sysc || s->rodata->want_hist_reap || s->rodata->want_reconcile ||
		s->rodata->want_unreaped ? C_PURGE : 0) |
	       (t->preemptible ? C_TWINS : 0) |
	       (o->stages && !sysc && !(miss & HK(HK_STAGES)) ? C_STAGES : 0) |
	       (s->rodata->want_uring_reap ? C_URING_REAP : 0);
}

/*
 * Autoload the programs of @mode whose conditions @cond meets, note their hooks in
 * t->hooks_wanted, and set what depends on that choice.
 */
static int choose_programs(struct tracer *t, struct aioscope_bpf *s, enum tracer_mode mode,
			   unsigned int cond)
{
	struct bpf_program *p;
	size_t n = 0;

	/* every program of the object has its row in prog_table (a new one must be added) */
	bpf_object__for_each_program(p, s->obj)
		n++;
	if (n != NPROGS) {
		fprintf(stderr, "aioscope: internal error: %zu programs, %zu in the hook table\n",
			n, NPROGS);
		return -EINVAL;
	}
	t->hooks_wanted = 0;
	for (size_t i = 0; i < NPROGS; i++) {
		/* a hook left out (its program failed to load or attach) stays out */
		bool on = (prog_table[i].modes & (1U << mode)) &&
			  (prog_table[i].need & cond) == prog_table[i].need &&
			  !(t->hooks_missing & HK(prog_hook(mode, i)));

		bpf_program__set_autoload(prog_of(s, i), on);
		if (on)
			t->hooks_wanted |= HK(prog_hook(mode, i));
	}
	s->rodata->twin_n = t->preemptible ? 3 : 1;
	/* both when aio_complete is hooked: twins, see complete_twin in the BPF */
	s->rodata->complete_twin = mode == TRACER_MODE_FENTRY && !t->complete_rw;
	s->rodata->want_submit_ret = mode == TRACER_MODE_KPROBE && (cond & C_SUBMIT_RET);
	if (!s->rodata->want_submit_ret)
		bpf_map__set_max_entries(s->maps.submit_arg, 1);
	if (!(cond & C_CANCEL))
		bpf_map__set_max_entries(s->maps.cancel_arg, 1);
	if (!(cond & C_PURGE))
		bpf_map__set_max_entries(s->maps.destroy_arg, 1);
	return 0;
}

/*
 * Load the object (naming the program that failed in *@bad when libbpf said which),
 * hand it the cgroup to filter on, and attach in table order.
 */
static int load_and_attach(struct tracer *t, struct aioscope_bpf *s, enum tracer_mode mode,
			   size_t *bad)
{
	int err;

	g_bad_prog[0] = '\0';
	g_watch_load = true;
	err = aioscope_bpf__load(s);
	g_watch_load = false;
	if (err) {
		for (size_t i = 0; i < NPROGS && g_bad_prog[0]; i++)
			if (!strcmp(bpf_program__name(prog_of(s, i)), g_bad_prog))
				*bad = i;
		return err;
	}
	if (t->cgroup_fd >= 0) {
		uint32_t k = 0;

		err = bpf_map_update_elem(bpf_map__fd(s->maps.cgroup_map), &k, &t->cgroup_fd,
					  BPF_ANY);
		if (err)
			return -errno;
	}
	return attach_ordered(t, s, mode, bad);
}

/*
 * One attempt: open the skeleton, configure for @mode, load and attach. Hooks in
 * t->hooks_missing are left out. Returns 0 with t->skel set, or -errno with the
 * index of the program that failed in *@bad (NPROGS when not known).
 */
static int try_once(struct tracer *t, enum tracer_mode mode, enum reap_via reap,
		    const struct dev_filter *df, size_t *bad)
{
	struct aioscope_bpf *s;
	int err;

	*bad = NPROGS;
	s = aioscope_bpf__open();
	if (!s)
		return -errno ?: -ENOMEM;
	set_filters(s, &t->opts, df);
	set_wants(t, s, mode);
	size_maps(t, s);
	err = choose_programs(t, s, mode, attach_conditions(t, s, mode, reap));
	if (!err)
		err = load_and_attach(t, s, mode, bad);
	if (err) {
		aioscope_bpf__destroy(s);
		t->uring = false;
		return err < 0 ? err : -EINVAL;
	}
	t->uring = t->uring && !(t->hooks_missing & HK(HK_URING));
	t->skel = s;
	return 0;
}

/*
 * After a failed attempt, what the next one leaves out or falls back to; false when
 * nothing is left to try.
 */
static bool fall_back(struct tracer *t, enum tracer_mode mode, int rc, size_t bad,
		      enum reap_via *reap, bool *last_resort)
{
	enum hook_id h;

	/* not allowed (lockdown, no privilege): the mode, not one hook */
	if (rc == -EPERM)
		return false;
	if (bad < NPROGS) {
		h = prog_hook(mode, bad);
		if (HK(h) & HK_PLAIN_OPTIONAL) {
			hook_missing(t, h, rc);
			return true;
		}
		if (h == HK_COMPLETE && !t->complete_rw) {
			t->complete_rw = true;
			hook_missing(t, h, rc);
			return true;
		}
		if (h == HK_REAP && *reap == REAP_FEXIT) {
			*reap = REAP_TP;
			return true;
		}
	}
	/* not attributable, or a required hook: the coarse fallbacks */
	if (*reap == REAP_FEXIT) {
		*reap = REAP_TP;
		return true;
	}
	if (!*last_resort) {
		*last_resort = true;
		for (h = 0; h < HK_NR; h++)
			if ((HK(h) & HK_PLAIN_OPTIONAL & t->hooks_wanted) &&
			    !(t->hooks_missing & HK(h)))
				hook_missing(t, h, rc);
		return true;
	}
	return false;
}

/*
 * One attach mode: attempts until every program it keeps loads and attaches. A
 * failing program is attributed to its hook: an optional hook is left out and named
 * missing, a hook with a fallback takes it; a required hook, or a failure no program
 * is named for, ends with every optional hook left out as a last resort.
 */
static int try_mode(struct tracer *t, enum tracer_mode mode, bool need_reap,
		    const struct dev_filter *df)
{
	enum reap_via reap = !need_reap ? REAP_NONE :
			     mode == TRACER_MODE_FENTRY ? REAP_FEXIT : REAP_TP;
	bool last_resort = false;
	int rc = -ENOTSUP;

	t->mode = mode;
	t->hooks_missing = 0;
	memset(t->hook_err, 0, sizeof(t->hook_err));
	t->complete_rw = mode != TRACER_MODE_SYSCALLS && t->complete_inlined;
	if (t->complete_rw)
		hook_missing(t, HK_COMPLETE, -ENOENT);
	if (!t->uring_tp)
		hook_missing(t, HK_URING, t->uring_err);

	for (int tries = 0; tries < 2 * HK_NR + 4; tries++) {
		size_t bad;

		rc = try_once(t, mode, reap, df, &bad);
		if (!rc || !fall_back(t, mode, rc, bad, &reap, &last_resort))
			break;
	}
	return rc;
}

/*
 * A PREEMPT_DYNAMIC kernel told nothing on its command line runs in its build's
 * default model: 1 preempts, 0 does not, -1 unknown (no /boot/config-RELEASE).
 */
static int build_default_preempts(const char *release)
{
	char path[300], line[128];
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (ret < 0 && fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "CONFIG_PREEMPT=y\n") || !strcmp(line, "CONFIG_PREEMPT_LAZY=y\n"))
			ret = 1;
		else if (!strcmp(line, "CONFIG_PREEMPT_VOLUNTARY=y\n") ||
			 !strcmp(line, "CONFIG_PREEMPT_NONE=y\n"))
			ret = 0;
	}
	fclose(f);
	return ret;
}

/*
 * Does the kernel preempt a task inside a BPF program (full, lazy or RT preemption)?
 * A PREEMPT_DYNAMIC kernel says which model it runs in debugfs (with
 * CONFIG_SCHED_DEBUG), or was told on its command line, or runs its build's default;
 * a kernel that cannot say is taken to preempt: two more twins cost two program runs
 * per call, a lost call costs a wrong count. tests/tracer/run decides the same way.
 */
static bool kernel_preempts_programs(void)
{
	char buf[4096] = "";	/* the command line is up to 2048 bytes on x86 */
	struct utsname u;
	FILE *f;

	f = fopen("/sys/kernel/debug/sched/preempt", "r");
	if (f) {
		bool got = fgets(buf, sizeof(buf), f) != NULL;

		fclose(f);
		if (got)
			return strstr(buf, "(full)") || strstr(buf, "(lazy)") || strstr(buf, "(rt)");
	}
	if (uname(&u))
		return true;
	if (strstr(u.version, "PREEMPT_RT") || strstr(u.version, "PREEMPT "))
		return true;
	if (!strstr(u.version, "PREEMPT_DYNAMIC"))
		return false;	/* built without preemption of kernel code */
	f = fopen("/proc/cmdline", "r");
	if (f) {
		bool got = fgets(buf, sizeof(buf), f) != NULL;

		fclose(f);
		if (got && (strstr(buf, "preempt=none") || strstr(buf, "preempt=voluntary")))
			return false;
		if (got && (strstr(buf, "preempt=full") || strstr(buf, "preempt=lazy")))
			return true;
	}
	return build_default_preempts(u.release) != 0;
}

/* --comm checked, --dev resolved: a device, or a file (its device and inode). */
static int tracer_resolve_filters(const struct tracer_opts *opts, struct dev_filter *df,
				  char *err, size_t errlen)
{
	struct stat st;

	if (opts->comm && strlen(opts->comm) >= AIOS_COMM_LEN)
		return tracer_fail(err, errlen, -EINVAL, "--comm '%s' is longer than %d characters",
			    opts->comm, AIOS_COMM_LEN - 1);
	if (!opts->dev)
		return 0;
	if (stat(opts->dev, &st))
		return tracer_fail(err, errlen, -EINVAL, "--dev %s: %s", opts->dev, strerror(errno));
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		df->dev = kdev(st.st_rdev);
	} else if (S_ISREG(st.st_mode)) {
		df->dev = kdev(st.st_dev);
		df->ino = st.st_ino;
		df->file = true;
	} else {
		df->dev = kdev(st.st_dev);	/* a directory: its filesystem */
	}
	return 0;
}

/* What the kernel offers besides the attach modes, asked once before trying them. */
static void probe_kernel(struct tracer *t)
{
	struct btf *btf;

	ensure_tracefs(t->opts.verbose);
	t->driver = have_aiodev_tracepoints();
	t->preemptible = kernel_preempts_programs();
	btf = btf__load_vmlinux_btf();
	t->uring_tp = uring_submit_tp(btf, &t->uring_err);
	/* the syscalls mode hooks neither function */
	t->complete_inlined = t->opts.mode != TRACER_MODE_SYSCALLS && aio_complete_inlined(btf);
	btf__free(btf);
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0)
		t->ncpus = 1;
}

/* pending requests shown (in-flight table, queue depth): reconciled at the reap */
static bool needs_reap(const struct tracer_opts *o)
{
	return (o->events && o->event_reap) || (o->hist && o->hist_reap) ||
	       (o->hist && o->hist_syscalls) || o->inflight || o->qd || o->unreaped ||
	       (o->hist && o->hist_by == AIOS_BY_QD);
}

/*
 * Best mode first (or only the one asked for); within a mode, hook by hook what the
 * kernel allows (try_mode). The syscalls mode always reaps: it sees no completions.
 */
static int try_modes(struct tracer *t, bool need_reap, const struct dev_filter *df)
{
	static const enum tracer_mode order[] = {
		TRACER_MODE_FENTRY, TRACER_MODE_KPROBE, TRACER_MODE_SYSCALLS,
	};
	int rc = -ENOTSUP;

	g_probing = true;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]) && rc; i++) {
		if (t->opts.mode != TRACER_MODE_AUTO && t->opts.mode != order[i])
			continue;
		rc = try_mode(t, order[i], need_reap || order[i] == TRACER_MODE_SYSCALLS, df);
		if (t->opts.verbose && rc)
			fprintf(stderr, "aioscope: %s mode unavailable: %s\n",
				tracer_mode_name(t), strerror(-rc));
	}
	g_probing = false;
	return rc;
}

static int cannot_trace(enum tracer_mode want, int rc, char *err, size_t errlen)
{
	const char *what = want == TRACER_MODE_FENTRY ? "fentry (BPF trampolines)" :
			   want == TRACER_MODE_KPROBE ? "kprobes" :
			   want == TRACER_MODE_SYSCALLS ? "syscall tracepoints" :
			   "fentry, kprobes or syscall tracepoints";

	return tracer_fail(err, errlen, rc == -EINVAL ? -ENOTSUP : rc,
		    "cannot trace: this kernel does not allow %s for BPF (%s; -v for details)",
		    what, strerror(-rc));
}


static int tracer_attach(struct tracer *t, const struct dev_filter *df, char *err,
			 size_t errlen)
{
	int rc;

	probe_kernel(t);
	rc = try_modes(t, needs_reap(&t->opts), df);
	return rc ? cannot_trace(t->opts.mode, rc, err, errlen) : 0;
}

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
		t->rx.join_uring = t->skel->rodata->want_uring_reap;
		t->rx.sampling = t->opts.sample > 1;
		t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), tracer_on_record, t, NULL);
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
	map_batch_free(&t->ub);
	free(t->seen);
	free(t);
}
