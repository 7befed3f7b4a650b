// SPDX-License-Identifier: GPL-2.0
/*
 * floor: the least a tracer of aioscope's hooks can cost (tests/bench/peer-bench).
 *
 *   floor list AIOSCOPE_OBJ     while aioscope runs: the attach points of the aioscope
 *                               programs attached now, one per line: SECTION, or
 *                               SECTION@TARGET where aioscope chose the target at run
 *                               time (io_uring's submit tracepoint is io_uring_submit_sqe
 *                               before 6.4 and io_uring_submit_req since)
 *   floor run FLOOR_OBJ HOOK... load the empty program of each hook's section (the
 *                               object tests/bench/floor/gen-floor makes) on its target,
 *                               attach, print "Tracing" on stderr, wait for SIGINT/SIGTERM
 *
 * The kernel keeps only the first 15 characters of a program's name
 * (fentry_aio_complete and fentry_aio_complete_rw look the same), so the full name is
 * read from the program's BTF, as newer bpftool does.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static int quiet(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	return lvl == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static const char *strip_opt(const char *sec)
{
	return sec[0] == '?' ? sec + 1 : sec;
}

/* The full name of program @fd from its BTF into @buf; false if it has none. */
static bool prog_full_name(int fd, char *buf, size_t len)
{
	struct bpf_prog_info info = {};
	struct bpf_func_info fi[1];
	__u32 ilen = sizeof(info);
	const struct btf_type *t;
	struct btf *btf;

	if (bpf_obj_get_info_by_fd(fd, &info, &ilen) || !info.btf_id || !info.nr_func_info)
		return false;
	memset(&info, 0, sizeof(info));
	info.nr_func_info = 1;
	info.func_info_rec_size = sizeof(fi[0]);
	info.func_info = (__u64)(unsigned long)fi;
	ilen = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
		return false;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf)
		return false;
	t = btf__type_by_id(btf, fi[0].type_id);
	snprintf(buf, len, "%s", t ? btf__name_by_offset(btf, t->name_off) : "");
	btf__free(btf);
	return buf[0];
}

/*
 * The target of link @fd into @buf: a raw tracepoint's name, or the name of the
 * kernel function a tracing link is on; "" when the link does not say (kprobes: the
 * section names them).
 */
static void link_target(int fd, const struct btf *vmlinux, char *buf, size_t len)
{
	struct bpf_link_info info = {};
	__u32 ilen = sizeof(info);
	const struct btf_type *t;

	buf[0] = 0;
	info.raw_tracepoint.tp_name = (__u64)(unsigned long)buf;
	info.raw_tracepoint.tp_name_len = len;
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen)) {
		buf[0] = 0;
		return;
	}
	if (info.type == BPF_LINK_TYPE_RAW_TRACEPOINT)
		return;
	buf[0] = 0;
	if (info.type == BPF_LINK_TYPE_TRACING && vmlinux &&
	    (t = btf__type_by_id(vmlinux, info.tracing.target_btf_id)))
		snprintf(buf, len, "%s", btf__name_by_offset(vmlinux, t->name_off));
}

static int cmd_list(const char *objpath)
{
	struct bpf_object *obj = bpf_object__open_file(objpath, NULL);
	struct btf *vmlinux = btf__load_vmlinux_btf();
	char name[256], target[128], hook[300], seen[64][300];
	int nseen = 0;
	__u32 id = 0;

	if (!obj) {
		fprintf(stderr, "floor: cannot open %s: %s\n", objpath, strerror(errno));
		return 1;
	}
	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info info = {};
		__u32 ilen = sizeof(info);
		struct bpf_program *p = NULL;
		int fd = bpf_link_get_fd_by_id(id), pfd, i;
		const char *sec;

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &ilen) &&
		    (pfd = bpf_prog_get_fd_by_id(info.prog_id)) >= 0) {
			if (prog_full_name(pfd, name, sizeof(name)))
				p = bpf_object__find_program_by_name(obj, name);
			close(pfd);
		}
		if (p)
			link_target(fd, vmlinux, target, sizeof(target));
		close(fd);
		if (!p)
			continue;
		sec = strip_opt(bpf_program__section_name(p));
		if (target[0] && !strstr(sec, target))
			snprintf(hook, sizeof(hook), "%s@%s", sec, target);
		else
			snprintf(hook, sizeof(hook), "%s", sec);
		for (i = 0; i < nseen && strcmp(seen[i], hook); i++)
			;
		if (i < nseen || nseen == 64)
			continue;
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", hook);
		printf("%s\n", hook);
	}
	btf__free(vmlinux);
	bpf_object__close(obj);
	return nseen ? 0 : 1;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The hook of @p among @hooks ("SECTION" or "SECTION@TARGET"), NULL if none. */
static const char *hook_of(struct bpf_program *p, char **hooks, int n)
{
	const char *sec = strip_opt(bpf_program__section_name(p));
	size_t len = strlen(sec);

	for (int i = 0; i < n; i++) {
		const char *h = strip_opt(hooks[i]);

		if (!strncmp(h, sec, len) && (h[len] == 0 || h[len] == '@'))
			return h;
	}
	return NULL;
}

static int cmd_run(const char *objpath, char **hooks, int nhooks)
{
	struct bpf_object *obj = bpf_object__open_file(objpath, NULL);
	struct bpf_program *p;
	int n = 0, err;

	if (!obj) {
		fprintf(stderr, "floor: cannot open %s: %s\n", objpath, strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, obj) {
		const char *h = hook_of(p, hooks, nhooks), *at = h ? strchr(h, '@') : NULL;

		bpf_program__set_autoload(p, h != NULL);
		n += h != NULL;
		/* a tracing program's target is its BTF function, set before the load */
		if (at && bpf_program__type(p) == BPF_PROG_TYPE_TRACING)
			bpf_program__set_attach_target(p, 0, at + 1);
	}
	if (n != nhooks) {
		fprintf(stderr, "floor: %d of the %d hooks are in %s\n", n, nhooks, objpath);
		return 1;
	}
	err = bpf_object__load(obj);
	bpf_object__for_each_program(p, obj) {
		const char *h, *at;
		struct bpf_link *l;

		if (err || !bpf_program__autoload(p))
			continue;
		h = hook_of(p, hooks, nhooks);
		at = strchr(h, '@');
		if (at && bpf_program__type(p) == BPF_PROG_TYPE_RAW_TRACEPOINT)
			l = bpf_program__attach_raw_tracepoint(p, at + 1);
		else
			l = bpf_program__attach(p);
		if (!l) {
			err = -errno;
			fprintf(stderr, "floor: cannot attach %s\n", h);
		}
	}
	if (err) {
		fprintf(stderr, "floor: load/attach failed: %s\n", strerror(-err));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "Tracing %d hooks with empty programs\n", n);
	while (!stop)
		pause();
	bpf_object__close(obj);	/* detaches: the links are the object's */
	return 0;
}

int main(int argc, char **argv)
{
	libbpf_set_print(quiet);
	if (argc == 3 && !strcmp(argv[1], "list"))
		return cmd_list(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "run"))
		return cmd_run(argv[2], argv + 3, argc - 3);
	fprintf(stderr, "usage: floor list AIOSCOPE_OBJ | floor run FLOOR_OBJ HOOK...\n");
	return 2;
}
