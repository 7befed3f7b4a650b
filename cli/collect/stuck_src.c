// SPDX-License-Identifier: GPL-2.0
/*
 * Pending-request sources shared by `aioscope stuck` and the dashboard's stuck
 * panel: the aiodev debugfs listing (sees requests pending from before aioscope
 * started, needs no BPF) and helpers over struct stuck_list.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "parse.h"
#include "stuck_src.h"

#define AIODEV_DEBUGFS "/sys/kernel/debug/aiodev"

void stuck_list_reset(struct stuck_list *l)
{
	l->n = 0;
	l->devices = 0;
	l->debugfs_err = 0;
}

void stuck_list_free(struct stuck_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct stuck_req *stuck_list_add(struct stuck_list *l)
{
	struct stuck_req *r;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct stuck_req *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	r = &l->v[l->n++];
	memset(r, 0, sizeof(*r));
	r->stalled = -1;
	r->nr_ustack = -1;
	r->nr_kstack = -1;
	return r;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int stuck_cmp(const void *pa, const void *pb)
{
	const struct stuck_req *a = pa, *b = pb;
	int c = cmp_u64(b->age_ns, a->age_ns);	/* oldest first */

	return c ? c : cmp_u64(a->id, b->id);
}

void stuck_list_sort(struct stuck_list *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), stuck_cmp);
}

void stuck_list_filter_age(struct stuck_list *l, uint64_t older_than_ns)
{
	size_t i, j = 0;

	for (i = 0; i < l->n; i++)
		if (l->v[i].age_ns >= older_than_ns)
			l->v[j++] = l->v[i];
	l->n = j;
}

void stuck_list_filter_pid(struct stuck_list *l, int32_t pid)
{
	size_t i, j = 0;

	for (i = 0; i < l->n; i++)
		if (l->v[i].pid == pid)
			l->v[j++] = l->v[i];
	l->n = j;
}

static int read_one(const char *file, const char *devname, struct stuck_list *l)
{
	char line[512];
	FILE *f = fopen(file, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct stuck_req *r = stuck_list_add(l);

		if (!r) {
			fclose(f);
			return -ENOMEM;
		}
		if (aiodev_pending_parse_line(line, r)) {
			l->n--;		/* skip a malformed line */
			continue;
		}
		r->src = STUCK_SRC_DEBUGFS;
		snprintf(r->path, sizeof(r->path), "/dev/%.100s", devname);
	}
	fclose(f);
	return 0;
}

int aiodev_pending_read(const char *root, struct stuck_list *l)
{
	struct dirent *de;
	int ndev = 0, err = -ENOENT;
	DIR *d;

	if (!root)
		root = AIODEV_DEBUGFS;
	d = opendir(root);
	if (!d) {
		l->debugfs_err = errno;
		return -errno;
	}
	while ((de = readdir(d))) {
		char file[512];
		int rc;

		if (strncmp(de->d_name, "aiodev", 6))
			continue;
		snprintf(file, sizeof(file), "%s/%s/pending", root, de->d_name);
		rc = read_one(file, de->d_name, l);
		if (rc) {
			err = rc;
			continue;
		}
		ndev++;
	}
	closedir(d);
	l->devices = ndev;
	if (!ndev) {
		l->debugfs_err = -err;
		return err;
	}
	return ndev;
}

static void fmt_age(char *buf, size_t sz, uint64_t ns)
{
	if (ns >= 100ULL * 1000000000ULL)
		snprintf(buf, sz, "%.0fs", ns / 1e9);
	else if (ns >= 1000000000ULL)
		snprintf(buf, sz, "%.3fs", ns / 1e9);
	else
		snprintf(buf, sz, "%.1fms", ns / 1e6);
}

/* ---------------- symbolizing stacks ---------------- */

/* /proc/kallsyms, loaded once, on the first kernel frame */
static struct ksyms ksyms;
static bool ksyms_tried;

static const char *ksym_fmt(uint64_t ip, char *buf, size_t len)
{
	if (!ksyms_tried) {
		FILE *f = fopen("/proc/kallsyms", "re");

		ksyms_tried = true;
		if (f) {
			ksyms_read(f, &ksyms);
			fclose(f);
		}
	}
	return ksyms_fmt(&ksyms, ip, buf, len);
}

/* The file-backed mappings of @pid (executable or not): *n of them. */
static struct umap *umaps_load(int32_t pid, size_t *n)
{
	char path[64];
	struct umap *v;
	FILE *f;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	v = umaps_read(f, n);
	fclose(f);
	return v;
}

static void print_stacks(FILE *f, const struct stuck_req *r)
{
	char buf[STUCK_PATH_LEN + 64];
	struct umap *m = NULL;
	size_t nm = 0;

	if (r->nr_kstack < 0 && r->nr_ustack < 0) {
		/* debugfs-only requests say so on their own line */
		if (r->src != STUCK_SRC_DEBUGFS)
			fprintf(f, "    no stack: not recorded in this attach mode\n");
		return;
	}
	fprintf(f, "    kernel stack:%s\n", r->nr_kstack > 0 ? "" : " not recorded");
	for (int j = 0; j < r->nr_kstack; j++)
		fprintf(f, "      0x%016" PRIx64 " %s\n", r->kstack[j],
			ksym_fmt(r->kstack[j], buf, sizeof(buf)));
	fprintf(f, "    user stack:%s\n", r->nr_ustack > 0 ? "" : " not recorded");
	if (r->nr_ustack > 0)
		m = umaps_load(r->pid, &nm);
	for (int j = 0; j < r->nr_ustack; j++)
		fprintf(f, "      %s\n", umaps_fmt(m, nm, r->ustack[j], buf, sizeof(buf)));
	free(m);
}

void stuck_print_plain(FILE *f, const struct stuck_list *l, bool stacks)
{
	fprintf(f, "%-9s %7s %7s %-15s %-5s %-6s %-16s %12s %8s %s\n",
		"AGE", "PID", "TID", "COMM", "API", "OP", "DEVICE/FILE",
		"OFFSET", "BYTES", "REQUEST");
	for (size_t i = 0; i < l->n; i++) {
		const struct stuck_req *r = &l->v[i];
		char age[32], comm[sizeof(r->comm) * 4], path[STUCK_PATH_LEN * 4];

		fmt_age(age, sizeof(age), r->age_ns);
		/* names chosen by other users reach the terminal escaped */
		aio_fmt_term(comm, sizeof(comm), r->comm);
		aio_fmt_term(path, sizeof(path), r->path);
		fprintf(f, "%-9s %7d %7d %-15s %-5s %-6s %-16s %12" PRIu64 " %8" PRIu64
			" 0x%" PRIx64 "%s%s\n", age, r->pid, r->tid, comm,
			r->has_api ? stuck_api_name(r) : "-", stuck_op_name(r), path, r->offset,
			r->bytes, r->id, r->stalled == 1 ? " stalled" : "",
			stacks && r->src == STUCK_SRC_DEBUGFS && r->nr_kstack < 0 &&
			r->nr_ustack < 0 ? " (no stack: pending before aioscope started)" : "");
		if (stacks)
			print_stacks(f, r);
	}
}

/* ---------------- naming devices and files ---------------- */

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tracer.h"

#define KDEV_MAJOR(d) ((unsigned int)((d) >> 20))
#define KDEV_MINOR(d) ((unsigned int)((d) & 0xfffff))

struct name_cache_ent {
	uint32_t kdev;
	uint64_t ino;
	int32_t pid;
	char name[STUCK_PATH_LEN];
};

#define NAME_CACHE 256
static struct name_cache_ent name_cache[NAME_CACHE];
static unsigned int name_cache_next;

static const char *cache_find(uint32_t kdev, uint64_t ino, int32_t pid)
{
	for (unsigned int i = 0; i < NAME_CACHE; i++) {
		const struct name_cache_ent *e = &name_cache[i];

		if (e->name[0] && e->kdev == kdev && e->ino == ino && e->pid == pid)
			return e->name;
	}
	return NULL;
}

static const char *cache_put(uint32_t kdev, uint64_t ino, int32_t pid, const char *name)
{
	struct name_cache_ent *e = &name_cache[name_cache_next++ % NAME_CACHE];

	e->kdev = kdev;
	e->ino = ino;
	e->pid = pid;
	snprintf(e->name, sizeof(e->name), "%s", name);
	return e->name;
}

/* "aiodev0" for a char/block device number, or "maj:min" when sysfs has no name. */
const char *top_dev_name(uint32_t kdev, char *buf, size_t len)
{
	static const char *const kinds[] = { "char", "block" };
	const char *c = cache_find(kdev, 0, -1);
	char path[96], line[160];

	if (c) {
		snprintf(buf, len, "%s", c);
		return buf;
	}
	snprintf(buf, len, "%u:%u", KDEV_MAJOR(kdev), KDEV_MINOR(kdev));
	for (size_t k = 0; k < 2; k++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/dev/%s/%u:%u/uevent", kinds[k],
			 KDEV_MAJOR(kdev), KDEV_MINOR(kdev));
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "DEVNAME=", 8)) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(buf, len, "%s", line + 8);
				break;
			}
		}
		fclose(f);
		break;
	}
	cache_put(kdev, 0, -1, buf);
	return buf;
}

/*
 * Path of the file (kdev, ino) as process @pid has it open, found through
 * /proc/PID/fd; for device nodes "/dev/NAME"; else "dev M:m ino N".
 */
const char *top_file_name(int32_t pid, uint32_t kdev, uint64_t ino, char *buf, size_t len)
{
	dev_t want = makedev(KDEV_MAJOR(kdev), KDEV_MINOR(kdev));
	const char *c = cache_find(kdev, ino, pid);
	char dir[64], lnk[320], target[STUCK_PATH_LEN];
	struct dirent *de;
	DIR *d;

	if (c) {
		snprintf(buf, len, "%s", c);
		return buf;
	}
	snprintf(buf, len, "dev %u:%u ino %" PRIu64, KDEV_MAJOR(kdev), KDEV_MINOR(kdev), ino);
	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = pid > 0 ? opendir(dir) : NULL;
	while (d && (de = readdir(d))) {
		struct stat st;
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(lnk, sizeof(lnk), "%s/%s", dir, de->d_name);
		if (stat(lnk, &st))
			continue;
		if ((S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) ? st.st_rdev != want
		    : (st.st_dev != want || st.st_ino != ino))
			continue;
		n = readlink(lnk, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		snprintf(buf, len, "%s", target);
		break;
	}
	if (d)
		closedir(d);
	else if (ino == 0 || pid <= 0) {
		char name[64];

		top_dev_name(kdev, name, sizeof(name));
		snprintf(buf, len, "/dev/%s", name);
	}
	cache_put(kdev, ino, pid, buf);
	return buf;
}

/* The submit stacks of @q, when the tracer records them (else they stay -1). */
static void add_stacks(struct tracer *t, struct stuck_req *r, const struct tracer_inflight *q)
{
	int n = tracer_stack_read(t, q->kstack_id, r->kstack, STUCK_STACK_MAX);

	if (n == -EOPNOTSUPP)
		return;
	r->nr_kstack = n < 0 ? 0 : n;
	n = tracer_stack_read(t, q->ustack_id, r->ustack, STUCK_STACK_MAX);
	r->nr_ustack = n < 0 ? 0 : n;
}

int stuck_add_tracer(struct stuck_list *l, struct tracer *t, const struct tracer_inflight *q,
		     uint64_t age_ns, bool by_user_iocb)
{
	struct stuck_req *r;

	/*
	 * aiodev requests: the debugfs listing already has them (with more detail);
	 * the tracer adds only their stacks
	 */
	for (size_t i = 0; i < l->n; i++) {
		struct stuck_req *o = &l->v[i];

		if (o->src != STUCK_SRC_DEBUGFS)
			continue;
		if (stuck_same_request(o, q->id, q->pid, by_user_iocb)) {
			add_stacks(t, o, q);
			return 0;
		}
	}
	r = stuck_list_add(l);
	if (!r)
		return -ENOMEM;
	add_stacks(t, r, q);
	r->src = STUCK_SRC_TRACER;
	r->id = q->id;
	r->age_ns = age_ns;
	r->offset = (uint64_t)q->offset;
	r->bytes = q->bytes;
	r->ctx = q->ctx;
	r->obj = q->obj;
	r->pid = q->pid;
	r->tid = q->tid;
	snprintf(r->comm, sizeof(r->comm), "%s", q->comm);
	_Static_assert((int)TRACER_OP_OTHER == AIOS_OP_OTHER &&
		       (int)TRACER_API_OTHER == AIOS_API_OTHER, "event.h names aioscope.h's values");
	r->op = (enum aios_op)q->op;
	r->api = (enum aios_api)q->api;
	r->has_api = true;
	top_file_name(q->pid, q->dev, q->ino, r->path, sizeof(r->path));
	return 0;
}

bool stuck_by_user_iocb(const struct tracer *t)
{
	return !strcmp(tracer_mode_name(t), "syscalls");
}

struct from_tracer {
	struct tracer *t;
	struct stuck_list *l;
	uint64_t now, min_age;
	bool by_user_iocb;	/* syscalls mode: ids are user iocb pointers */
};

static int add_inflight(void *ctx, const struct tracer_inflight *q)
{
	struct from_tracer *ft = ctx;
	uint64_t age = ft->now > q->submit_ns ? ft->now - q->submit_ns : 0;

	if (age < ft->min_age)
		return 0;
	return stuck_add_tracer(ft->l, ft->t, q, age, ft->by_user_iocb);
}

int stuck_from_tracer(struct tracer *t, struct stuck_list *l, uint64_t older_than_ns)
{
	struct from_tracer ft = { .t = t, .l = l, .now = tracer_now_ns(), .min_age = older_than_ns,
				  .by_user_iocb = stuck_by_user_iocb(t) };
	int rc = tracer_inflight_foreach(t, add_inflight, &ft);

	return rc < 0 ? rc : 0;
}

#include "core/json.h"

void stuck_json_req(struct aio_json *j, const struct stuck_req *r, bool stacks)
{
	aio_json_start_object(j);
	aio_json_hex_field(j, "id", r->id);
	aio_json_s64_field(j, "pid", r->pid);
	aio_json_s64_field(j, "tid", r->tid);
	aio_json_string_field(j, "comm", r->comm);
	aio_json_string_field(j, "api", stuck_api_name(r));
	aio_json_string_field(j, "op", stuck_op_name(r));
	aio_json_string_field(j, "dev", r->path);
	aio_json_u64_field(j, "offset", r->offset);
	aio_json_u64_field(j, "bytes", r->bytes);
	aio_json_u64_field(j, "age_ns", r->age_ns);
	if (r->stalled < 0)
		aio_json_null_field(j, "stalled");
	else
		aio_json_bool_field(j, "stalled", r->stalled);
	aio_json_hex_field(j, "ctx", r->ctx);
	aio_json_hex_field(j, "obj", r->obj);
	aio_json_string_field(j, "source", r->src == STUCK_SRC_DEBUGFS ? "debugfs" : "tracer");
	if (stacks) {
		const uint64_t *st[2] = { r->kstack, r->ustack };
		const int n[2] = { r->nr_kstack, r->nr_ustack };
		const char *names[2] = { "kernel_stack", "user_stack" };

		for (int k = 0; k < 2; k++) {
			if (n[k] < 0) {
				aio_json_null_field(j, names[k]);
				continue;
			}
			aio_json_name(j, names[k]);
			aio_json_start_array(j);
			for (int i = 0; i < n[k]; i++)
				aio_json_hex(j, st[k][i]);
			aio_json_end_array(j);
		}
	}
	aio_json_end_object(j);
}
