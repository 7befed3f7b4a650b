// SPDX-License-Identifier: GPL-2.0
/*
 * Pending-request sources shared by `aioscope stuck` and the dashboard's stuck
 * panel: the aiodev debugfs listing (sees requests pending from before aioscope
 * started, needs no BPF) and helpers over struct stuck_list.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "parse.h"
#include "stuck_src.h"
#include "tracer.h"

#define AIODEV_DEBUGFS "/sys/kernel/debug/aiodev"

void stuck_list_reset(struct stuck_list *l)
{
	l->n = 0;
	l->nindexed = 0;
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
	/* not the stacks: 512 of the entry's 800 bytes, read only up to nr_*stack */
	memset(r, 0, offsetof(struct stuck_req, ustack));
	r->req.kstack_id = -1;
	r->req.ustack_id = -1;
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

	return c ? c : cmp_u64(a->req.id, b->req.id);
}

void stuck_list_sort(struct stuck_list *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), stuck_cmp);
	l->nindexed = 0;
}

static int key_cmp_id(const void *pa, const void *pb)
{
	const struct stuck_req *a = pa, *b = pb;

	return cmp_u64(a->req.id, b->req.id);
}

static int key_cmp_obj(const void *pa, const void *pb)
{
	const struct stuck_req *a = pa, *b = pb;

	return cmp_u64(a->req.obj, b->req.obj);
}

void stuck_list_index(struct stuck_list *l, bool by_user_iocb)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), by_user_iocb ? key_cmp_obj : key_cmp_id);
	l->nindexed = l->n;
	l->index_by_obj = by_user_iocb;
}

void stuck_list_filter_age(struct stuck_list *l, uint64_t older_than_ns)
{
	size_t i, j = 0;

	for (i = 0; i < l->n; i++)
		if (l->v[i].age_ns >= older_than_ns && j++ != i)
			l->v[j - 1] = l->v[i];
	l->n = j;
	l->nindexed = 0;
}

void stuck_list_filter_pid(struct stuck_list *l, int32_t pid)
{
	size_t i, j = 0;

	for (i = 0; i < l->n; i++)
		if (l->v[i].req.pid == pid && j++ != i)
			l->v[j - 1] = l->v[i];
	l->n = j;
	l->nindexed = 0;
}

static int read_one(const char *file, const char *devname, struct stuck_list *l)
{
	char line[512];
	FILE *f = fopen(file, "re");
	uint64_t now;

	if (!f)
		return -errno;
	/* the listing's ages are from its open (aiodev's clock is the tracer's):
	 * a submit time from a later now is never earlier than the true one */
	now = tracer_now_ns();
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
		r->req.submit_ns = now > r->age_ns ? now - r->age_ns : 0;
		r->src = STUCK_SRC_DEBUGFS;
		snprintf(r->path, sizeof(r->path), "/dev/%.100s", devname);
	}
	fclose(f);
	return 0;
}

/* The next directory entry of the debugfs root that is a device (aiodevN), or NULL. */
static struct dirent *next_aiodev(DIR *d)
{
	struct dirent *de;

	while ((de = readdir(d)) && strncmp(de->d_name, "aiodev", 6))
		;
	return de;
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
	while ((de = next_aiodev(d))) {
		char file[512];
		int rc;

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

/*
 * The devices' listing generations as one string: "NAME GEN INODE;" for each device of
 * the debugfs root (aiodev bumps pending_gen, under its lock, at every change of
 * the list the listing shows). false when one cannot be read (an aiodev without
 * it) or the string would not fit: the listing is then read every time.
 */
static bool listing_sig(char *sig, size_t len)
{
	size_t used = 0;
	struct dirent *de;
	DIR *d;
	bool ok;

	sig[0] = '\0';
	d = opendir(AIODEV_DEBUGFS);
	if (!d)
		return true;	/* no listing at all: "" until one appears */
	while ((de = next_aiodev(d))) {
		unsigned long long gen;
		char file[512];
		struct stat st;
		FILE *f;
		int n = -1;

		snprintf(file, sizeof(file), AIODEV_DEBUGFS "/%s/pending_gen", de->d_name);
		f = fopen(file, "re");
		if (!f)
			break;
		/* the file's inode too: a reloaded aiodev counts from 0 again */
		if (fscanf(f, "%llu", &gen) == 1 && !fstat(fileno(f), &st))
			n = snprintf(sig + used, len - used, "%s %llu %llu;", de->d_name, gen,
				     (unsigned long long)st.st_ino);
		fclose(f);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	ok = !de;	/* every device's generation read */
	closedir(d);
	return ok;
}

int aiodev_listing_refresh(struct aiodev_listing *c, uint64_t now_ns)
{
	char sig[sizeof(c->sig)];
	bool have = listing_sig(sig, sizeof(sig));
	int rc;

	if (have && c->valid && !strcmp(sig, c->sig)) {
		for (size_t i = 0; i < c->l.n; i++) {
			struct stuck_req *r = &c->l.v[i];

			r->age_ns = now_ns > r->req.submit_ns ? now_ns - r->req.submit_ns : 0;
		}
		return 0;
	}
	/* read after the generations: if they still hold next time, nothing changed since */
	stuck_list_reset(&c->l);
	rc = aiodev_pending_read(NULL, &c->l);
	c->valid = have;
	memcpy(c->sig, sig, sizeof(sig));
	return rc < 0 ? rc : 1;
}

int aiodev_listing_error(const struct aiodev_listing *c)
{
	return !c->l.devices && c->l.debugfs_err ? -c->l.debugfs_err : 0;
}

int stuck_list_add_listing(struct stuck_list *l, const struct aiodev_listing *c)
{
	for (size_t i = 0; i < c->l.n; i++) {
		struct stuck_req *r = stuck_list_add(l);

		if (!r)
			return -ENOMEM;
		memcpy(r, &c->l.v[i], offsetof(struct stuck_req, ustack));
	}
	l->devices = c->l.devices;
	l->debugfs_err = c->l.debugfs_err;
	return 0;
}

void aiodev_listing_free(struct aiodev_listing *c)
{
	stuck_list_free(&c->l);
	c->valid = false;
}

/* ---------------- naming devices and files ---------------- */

#include <sys/sysmacros.h>
#include <unistd.h>

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
static void add_stacks(struct tracer *t, struct stuck_req *r, const struct pending_req *q)
{
	int n = tracer_stack_read(t, q->kstack_id, r->kstack, STUCK_STACK_MAX);

	if (n == -EOPNOTSUPP)
		return;
	r->nr_kstack = n < 0 ? 0 : n;
	n = tracer_stack_read(t, q->ustack_id, r->ustack, STUCK_STACK_MAX);
	r->nr_ustack = n < 0 ? 0 : n;
}

/* The debugfs entry of @l for the tracer's request @q, or NULL. */
static struct stuck_req *debugfs_twin(struct stuck_list *l, const struct pending_req *q,
				      bool by_user_iocb)
{
	size_t lo = 0, hi = l->nindexed;

	if (l->nindexed && l->index_by_obj == by_user_iocb) {
		while (lo < hi) {	/* the first entry whose key is not below q's */
			size_t mid = lo + (hi - lo) / 2;

			if ((by_user_iocb ? l->v[mid].req.obj : l->v[mid].req.id) < q->id)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < l->nindexed; lo++) {
			if ((by_user_iocb ? l->v[lo].req.obj : l->v[lo].req.id) != q->id)
				return NULL;
			if (stuck_same_request(&l->v[lo], q->id, q->pid, by_user_iocb))
				return &l->v[lo];
		}
		return NULL;
	}
	for (size_t i = 0; i < l->n; i++) {
		struct stuck_req *o = &l->v[i];

		if (o->src == STUCK_SRC_DEBUGFS &&
		    stuck_same_request(o, q->id, q->pid, by_user_iocb))
			return o;
	}
	return NULL;
}

/*
 * How long @q, pending @age_ns, has been in its stage: the time from its submit to
 * the stage, by the tracer's clock, taken from an age (the tracer's, or the debugfs
 * listing's when the entry is the listing's: its times are those of that read).
 */
static uint64_t stage_age(const struct pending_req *q, uint64_t age_ns)
{
	uint64_t in;	/* submit -> the stage */

	if (!q->stage_ns || q->stage_ns < q->submit_ns)
		return 0;
	in = q->stage_ns - q->submit_ns;
	return in <= age_ns ? age_ns - in : 0;
}

int stuck_add_tracer(struct stuck_list *l, struct tracer *t, const struct pending_req *q,
		     uint64_t age_ns, bool by_user_iocb)
{
	/* the listing has only requests the driver still holds */
	struct stuck_req *r = q->stage == PEND_STAGE_UNREAPED ? NULL :
			      debugfs_twin(l, q, by_user_iocb);

	/*
	 * aiodev requests: the debugfs listing already has them (with more detail);
	 * the tracer adds only their stacks
	 */
	if (r) {
		add_stacks(t, r, q);
		r->req.stage = q->stage;
		r->req.stage_ns = q->stage_ns;
		r->stage_age_ns = stage_age(q, r->age_ns);
		return 0;
	}
	r = stuck_list_add(l);
	if (!r)
		return -ENOMEM;
	r->req = *q;
	add_stacks(t, r, q);
	r->src = STUCK_SRC_TRACER;
	r->age_ns = age_ns;
	r->stage_age_ns = stage_age(q, age_ns);
	r->has_api = true;
	top_file_name(q->pid, q->dev, q->ino, r->path, sizeof(r->path));
	return 0;
}

const char *recorded_file_name(uint32_t kdev, uint64_t ino, char *buf, size_t len)
{
	if (ino)
		snprintf(buf, len, "%u:%u ino %llu", kdev >> 20, kdev & 0xfffff,
			 (unsigned long long)ino);
	else
		snprintf(buf, len, "%u:%u", kdev >> 20, kdev & 0xfffff);
	return buf;
}

int stuck_add_recorded(struct stuck_list *l, const struct pending_req *q, uint64_t age_ns)
{
	struct stuck_req *s = stuck_list_add(l);

	if (!s)
		return -ENOMEM;
	memset(s, 0, sizeof(*s));
	s->req = *q;
	s->age_ns = age_ns;
	s->stalled = -1;
	s->src = STUCK_SRC_TRACER;
	s->has_api = true;
	s->nr_kstack = s->nr_ustack = -1;
	recorded_file_name(q->dev, q->ino, s->path, sizeof(s->path));
	return 0;
}

bool stuck_by_user_iocb(const struct tracer *t)
{
	return !strcmp(tracer_mode_name(t), "syscalls");
}

/* reaping_now()'s answers in one snapshot, so /proc is read once per context */
#define REAPING_MEMO 64

struct reaping_memo {
	int32_t pid;
	enum aios_api api;
	uint64_t ctx;
	bool yes;
};

struct from_tracer {
	struct tracer *t;
	struct stuck_list *l;
	uint64_t now, min_age;
	bool by_user_iocb;	/* syscalls mode: ids are user iocb pointers */
	struct reaping_memo memo[REAPING_MEMO];
	size_t nmemo;
};

#define URING_ENTER_GETEVENTS 1UL	/* IORING_ENTER_GETEVENTS (ABI) */

/* One thread's /proc/PID/task/TID/syscall: in a syscall taking @api's completions? */
static bool thread_reaping(const char *path, enum aios_api api, uint64_t ctx)
{
	unsigned long a[4];
	long nr;
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return false;
	n = fscanf(f, "%ld %lx %lx %lx %lx", &nr, &a[0], &a[1], &a[2], &a[3]);
	fclose(f);
	if (n != 5)
		return false;	/* "running", or not in a syscall */
	if (api == AIOS_API_AIO)
		return (nr == SYS_io_getevents || nr == SYS_io_pgetevents) && a[0] == ctx;
	return nr == SYS_io_uring_enter && (a[3] & URING_ENTER_GETEVENTS);
}

/*
 * Is a thread of @pid blocked in a syscall that takes completions of @api (libaio:
 * io_getevents on context @ctx; io_uring: io_uring_enter waiting for completions)?
 * Its finished requests are then being reaped, not forgotten: aio's read_events
 * moves the ring's events into the caller's buffer while it waits for min_nr more,
 * and an io_uring waiter takes its CQEs when it returns. Neither is the
 * application's bug, so such requests are not listed as unreaped.
 */
static bool reaping_now(int32_t pid, enum aios_api api, uint64_t ctx)
{
	char path[64];
	struct dirent *d;
	bool yes = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!yes && (d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/syscall", pid, d->d_name);
		yes = thread_reaping(path, api, ctx);
	}
	closedir(dir);
	return yes;
}

/* reaping_now(), asked once per (process, API, context) in a snapshot */
static bool reaping_memo(struct from_tracer *ft, const struct pending_req *q)
{
	uint64_t ctx = q->api == AIOS_API_AIO ? q->ctx : 0;	/* io_uring: any ring */
	struct reaping_memo *m;

	for (size_t i = 0; i < ft->nmemo; i++) {
		m = &ft->memo[i];
		if (m->pid == q->pid && m->api == q->api && m->ctx == ctx)
			return m->yes;
	}
	if (ft->nmemo == REAPING_MEMO)
		return reaping_now(q->pid, q->api, ctx);
	m = &ft->memo[ft->nmemo++];
	*m = (struct reaping_memo){ q->pid, q->api, ctx, reaping_now(q->pid, q->api, ctx) };
	return m->yes;
}

static int add_inflight(void *ctx, const struct pending_req *q)
{
	struct from_tracer *ft = ctx;
	uint64_t age = ft->now > q->submit_ns ? ft->now - q->submit_ns : 0;

	if (age < ft->min_age)
		return 0;
	if (q->stage == PEND_STAGE_UNREAPED && reaping_memo(ft, q))
		return 0;
	return stuck_add_tracer(ft->l, ft->t, q, age, ft->by_user_iocb);
}

int stuck_from_tracer(struct tracer *t, struct stuck_list *l, uint64_t older_than_ns)
{
	struct from_tracer ft = { .t = t, .l = l, .now = tracer_now_ns(), .min_age = older_than_ns,
				  .by_user_iocb = stuck_by_user_iocb(t) };
	int rc;

	stuck_list_index(l, ft.by_user_iocb);	/* the debugfs listing, read just before */
	rc = tracer_inflight_foreach(t, add_inflight, &ft);
	/* and, where the tracer keeps them, those completed but not reaped */
	if (rc >= 0)
		rc = tracer_unreaped_foreach(t, add_inflight, &ft);
	return rc < 0 && rc != -EOPNOTSUPP ? rc : 0;
}
