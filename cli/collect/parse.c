// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - parsers of text from outside aioscope (parse.h): numbers and modes on
 * the command line, the aiodev debugfs listing, /proc/kallsyms, /proc/PID/maps.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "request/event.h"
#include "parse.h"

/* ---------------- command line ---------------- */

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_int(const char *s, int min, int max, int *out)
{
	long v;
	char *end;

	if (!s || !*s || (*s != '-' && (*s < '0' || *s > '9')))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int parse_seconds(const char *s, bool allow_zero, double *out)
{
	double v;
	char *end;

	/* decimal only: strtod also reads hexadecimal ("0x10" is 16 s) */
	if (!s || !*s || ((*s < '0' || *s > '9') && *s != '.') || strpbrk(s, "xX"))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0 || (!allow_zero && v == 0) || v > 1e6)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_mode(const char *s, enum tracer_mode *m)
{
	if (!strcmp(s, "fentry"))
		*m = TRACER_MODE_FENTRY;
	else if (!strcmp(s, "kprobe"))
		*m = TRACER_MODE_KPROBE;
	else if (!strcmp(s, "syscalls"))
		*m = TRACER_MODE_SYSCALLS;
	else if (!strcmp(s, "auto"))
		*m = TRACER_MODE_AUTO;
	else
		return -EINVAL;
	return 0;
}

/* ---------------- the aiodev debugfs listing ---------------- */

/* Strict unsigned parse of [s, end): decimal, or hex with 0x. */
static int field_u64(const char *s, size_t len, uint64_t *out)
{
	char buf[32];
	char *end;

	if (!len || len >= sizeof(buf) || s[0] == '-' || s[0] == '+')
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtoull(buf, &end, 0);
	if (errno || *end)
		return -1;
	return 0;
}

/*
 * An op or api word of the listing: the value tracer_*_parse() gives it, or
 * AIOS_*_OTHER for a word this build does not know (a driver may add some).
 */
static int word_enum(int (*parse)(const char *, size_t), const char *s, size_t len, int other)
{
	int v = parse(s, len);

	return v < 0 ? other : v;
}

/*
 * id=0x.. api=aio pid=N tid=N comm=C op=read off=N len=N age_ns=N stalled=0|1
 * ctx=0x.. obj=0x..  (docs/design.md). Unknown keys are ignored so the driver
 * may add fields at the end; op and api become enum aios_op / aios_api. C has every byte that is not printable ASCII, and
 * space and backslash, as \xHH, so no name can add or hide a field or a line.
 */
int aiodev_pending_parse_line(const char *line, struct stuck_req *r)
{
	enum { F_ID = 1, F_PID = 2, F_TID = 4, F_OP = 8, F_OFF = 16, F_LEN = 32, F_AGE = 64 };
	unsigned int seen = 0;
	const char *p = line;

	while (*p) {
		const char *k, *eq, *v, *e;
		size_t klen, vlen;
		uint64_t x = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		k = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		e = p;
		eq = memchr(k, '=', e - k);
		if (!eq)
			return -1;
		klen = eq - k;
		v = eq + 1;
		vlen = e - v;

#define KEY(s) (klen == sizeof(s) - 1 && !memcmp(k, s, klen))
		if (KEY("comm")) {	/* the driver writes \xHH for unsafe bytes */
			aio_unescape_hex(r->req.comm, sizeof(r->req.comm), v, vlen);
			continue;
		}
		if (KEY("api")) {
			r->req.api = word_enum(tracer_api_parse, v, vlen, AIOS_API_OTHER);
			r->has_api = vlen != 0;	/* "api=": none named, as no api= */
			continue;
		}
		if (KEY("op")) {
			r->req.op = word_enum(tracer_op_parse, v, vlen, AIOS_OP_OTHER);
			seen |= F_OP;
			continue;
		}
		if (!KEY("id") && !KEY("pid") && !KEY("tid") && !KEY("off") &&
		    !KEY("len") && !KEY("age_ns") && !KEY("stalled") &&
		    !KEY("ctx") && !KEY("obj"))
			continue;	/* a field added later */
		if (field_u64(v, vlen, &x))
			return -1;
		if (KEY("id")) {
			r->req.id = x;
			seen |= F_ID;
		} else if (KEY("pid")) {
			r->req.pid = (int32_t)x;
			seen |= F_PID;
		} else if (KEY("tid")) {
			r->req.tid = (int32_t)x;
			seen |= F_TID;
		} else if (KEY("off")) {
			r->req.offset = (int64_t)x;
			seen |= F_OFF;
		} else if (KEY("len")) {
			r->req.bytes = x;
			seen |= F_LEN;
		} else if (KEY("age_ns")) {
			r->age_ns = x;
			seen |= F_AGE;
		} else if (KEY("stalled")) {
			r->stalled = x ? 1 : 0;
		} else if (KEY("ctx")) {
			r->req.ctx = x;
		} else if (KEY("obj")) {
			r->req.obj = x;
		}
#undef KEY
	}
	if ((seen & (F_ID | F_PID | F_OP | F_AGE)) != (F_ID | F_PID | F_OP | F_AGE))
		return -1;
	if (!(seen & F_TID))
		r->req.tid = r->req.pid;
	return 0;
}

/*
 * fgets(), except that what is left of a line longer than @len - 1 bytes is dropped,
 * never read as a line of its own: in maps that rest is a file name's tail, which
 * anyone can make look like a mapping.
 */
static char *read_line(char *buf, int len, FILE *f)
{
	size_t n;
	int c;

	if (!fgets(buf, len, f))
		return NULL;
	n = strlen(buf);
	if (n == (size_t)len - 1 && buf[n - 1] != '\n')
		while ((c = getc(f)) != EOF && c != '\n')
			;
	return buf;
}

/* ---------------- symbols: /proc/kallsyms ---------------- */

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

int ksym_parse_line(const char *line, uint64_t *addr, char name[KSYM_NAME_MAX])
{
	unsigned long long a;
	char type;

	if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 || !a)
		return 0;
	*addr = a;
	return 1;
}

void ksyms_read(FILE *f, struct ksyms *k)
{
	size_t cap = k->n;
	char line[512];

	while (read_line(line, sizeof(line), f)) {
		char name[KSYM_NAME_MAX];
		uint64_t addr;
		struct ksym *v;

		if (!ksym_parse_line(line, &addr, name))
			continue;
		if (k->n == cap) {
			cap = cap ? cap * 2 : 4096;
			v = realloc(k->v, cap * sizeof(*v));
			if (!v)
				break;
			k->v = v;
		}
		k->v[k->n].addr = addr;
		k->v[k->n].name = strdup(name);
		if (!k->v[k->n].name)
			break;
		k->n++;
	}
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), ksym_cmp);
}

size_t ksyms_lookup(FILE *f, const char *const *names, uint64_t *addrs, size_t n)
{
	size_t found = 0;
	char line[512];

	for (size_t i = 0; i < n; i++)
		addrs[i] = 0;
	while (found < n && read_line(line, sizeof(line), f)) {
		char name[KSYM_NAME_MAX];
		uint64_t addr;

		if (strchr(line, '[') || !ksym_parse_line(line, &addr, name))
			continue;	/* a module's, or hidden */
		for (size_t i = 0; i < n; i++) {
			if (!addrs[i] && !strcmp(name, names[i])) {
				addrs[i] = addr;
				found++;
			}
		}
	}
	return found;
}

void ksyms_free(struct ksyms *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	k->v = NULL;
	k->n = 0;
}

const char *ksyms_fmt(const struct ksyms *k, uint64_t ip, char *buf, size_t len)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {	/* first symbol above ip */
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		snprintf(buf, len, "0x%" PRIx64, ip);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, k->v[lo - 1].name, ip - k->v[lo - 1].addr);
	return buf;
}

/* ---------------- symbols: /proc/PID/maps ---------------- */

int umap_parse_line(const char *line, struct umap *m)
{
	unsigned long long start, end, off;
	char perms[8];
	int pos = 0;
	const char *file;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off,
		   &pos) != 4 || !pos)
		return 0;
	file = line + pos;
	if (file[0] != '/')
		return 0;
	m->start = start;
	m->end = end;
	m->off = off;
	snprintf(m->path, sizeof(m->path), "%.*s", (int)strcspn(file, "\n"), file);
	return 1;
}

struct umap *umaps_read(FILE *f, size_t *n)
{
	struct umap *v = NULL, m;
	size_t cap = 0;
	char line[512];

	*n = 0;
	while (read_line(line, sizeof(line), f)) {
		if (!umap_parse_line(line, &m))
			continue;
		if (*n == cap) {
			struct umap *nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*nv));
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = m;
	}
	return v;
}

const char *umaps_fmt(const struct umap *m, size_t n, uint64_t ip, char *buf, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		if (ip >= m[i].start && ip < m[i].end) {
			const char *base = strrchr(m[i].path, '/');
			char name[STUCK_PATH_LEN];

			aio_fmt_term(name, sizeof(name), base ? base + 1 : m[i].path);
			snprintf(buf, len, "0x%016" PRIx64 " %s+0x%" PRIx64, ip, name,
				 ip - m[i].start + m[i].off);
			return buf;
		}
	}
	snprintf(buf, len, "0x%016" PRIx64 " ?", ip);
	return buf;
}
