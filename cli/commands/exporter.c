// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope exporter: Prometheus metrics over HTTP (libmicrohttpd), read at each
 * scrape from the kernel maps: the histograms grouped by device, op, api and result
 * (AIOS_BY_METRIC), the queue depth counters, the in-flight table and the drop
 * counters. No per-event work in user space: between scrapes the exporter sleeps.
 */
#include <argp.h>
#include <errno.h>
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "commands.h"
#include "core/hist.h"
#include "core/prom.h"
#include "collect/tracer.h"

#define MAX_DEVS 256

/* le edges of the exported histograms: 2^k - 1 ns, k = 10 .. 36 (1.023 us .. 68.7 s) */
#define EDGE_MIN_LOG2 10
#define EDGE_MAX_LOG2 36
#define NEDGES (EDGE_MAX_LOG2 - EDGE_MIN_LOG2 + 1)

enum { BY_DEV = 1, BY_OP = 2, BY_API = 4 };

/* One exported series: a histogram kind and the labels kept by --by. */
struct series {
	enum aios_hist_kind kind;
	uint32_t dev;
	int op, api, state;		/* -1: summed over (label not kept) */
	__u64 cum[NEDGES];
	__u64 count;
	__u64 sum;
};

struct devinfo {
	uint32_t dev;
	char name[64];
	int64_t inflight;
	int64_t inflight_prev;		/* at the previous scrape: the interval's start */
	uint64_t inflight_max;
	uint64_t stuck;
	uint64_t oldest_ns;
};

/*
 * A process with counters in the kernel (--top-pids). Its series, while it is in the
 * top N, counts from the moment it entered (base); everything else is "other":
 *   other = folded (processes that exited) + the counts of processes outside the top
 *           + the bases of those in it,
 * so every series, "other" included, only grows, and all of them sum to the total.
 */
struct proc {
	int32_t pid;
	uint64_t req, bytes;		/* cumulative, from the kernel */
	uint64_t prev_req;		/* at the previous scrape: the rate */
	uint64_t base_req, base_bytes;	/* at entering the top N */
	bool top;
	char comm[17];
};

struct exporter {
	struct tracer_opts o;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char listen[80];
	unsigned int by;
	unsigned int top_pids;
	uint64_t stuck_ns;
	struct tracer *t;
	char kernel[65];
	__u64 edges[NEDGES];
	/* per scrape (the daemon has one thread: scrapes do not overlap) */
	struct series *s;
	size_t ns, caps;
	struct devinfo dev[MAX_DEVS];
	size_t ndev;
	uint64_t now;
	uint64_t scrapes;
	/* --top-pids: sorted by pid */
	struct proc *pr, *npr;
	size_t npr_n, pr_n, pr_cap;
	uint64_t folded_req, folded_bytes;	/* processes that exited */
};

static struct exporter ex;

enum { OPT_LISTEN = OPT_CMD_BASE, OPT_BY, OPT_TOP_PIDS, OPT_STUCK_MS };

static const struct argp_option exporter_options[] = {
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0,
	  "Serve on ADDR:PORT (default 127.0.0.1:9476; [ADDR]:PORT for IPv6)", 0 },
	{ "by", OPT_BY, "LABELS", 0,
	  "Labels of the request series: a comma list of dev, op, api (default all three)", 0 },
	{ "top-pids", OPT_TOP_PIDS, "N", 0,
	  "Per-process series for the N busiest processes (default 0: none)", 0 },
	{ "stuck-ms", OPT_STUCK_MS, "MS", 0,
	  "A request pending longer than MS milliseconds is stuck (default 1000)", 0 },
	{ "mode", OPT_FILTER_MODE, "MODE", 0, "Force the attach mode: fentry, kprobe or syscalls", 0 },
	{ "verbose", 'v', NULL, 0, "Print the attach mode and libbpf debug output", 0 },
	{ 0 },
};

static const char exporter_doc[] =
	"Serve Prometheus metrics of asynchronous I/O (libaio and io_uring) over\n"
	"HTTP: /metrics in the text format 0.0.4, or OpenMetrics 1.0.0 when the\n"
	"scraper's Accept header asks for application/openmetrics-text, and / a page\n"
	"linking to it. Every number is read from the kernel's maps at the scrape\n"
	"(request counts and latency histograms by device, op, api and result, queue\n"
	"depth, stuck requests, lost events): the exporter costs what 'hist' costs.\n"
	"It binds to loopback unless --listen names another address. Port 9476 is\n"
	"in the range Prometheus's port allocation list gives exporters. It needs\n"
	"CAP_BPF and CAP_PERFMON (or root), nothing else.\n"
"\v"
	"EXAMPLES:\n"
	"  aioscope exporter                         # http://127.0.0.1:9476/metrics\n"
	"  aioscope exporter --listen 0.0.0.0:9476   # reachable from other hosts\n"
	"  aioscope exporter --by dev --stuck-ms 5000\n"
	"  curl http://127.0.0.1:9476/metrics\n"
	"\n"
	"Metrics: aioscope_requests_total{dev,op,api,result}, aioscope_bytes_total{dev,op},\n"
	"aioscope_request_duration_seconds{dev,op,api} (histogram),\n"
	"aioscope_reap_delay_seconds{dev,op,api}, aioscope_driver_duration_seconds{dev,op,api},\n"
	"aioscope_inflight_requests{dev}, aioscope_inflight_requests_max{dev},\n"
	"aioscope_stuck_requests{dev}, aioscope_oldest_pending_seconds{dev},\n"
	"aioscope_lost_events_total{reason}, aioscope_exporter_scrape_duration_seconds,\n"
	"aioscope_bpf_program_run_seconds_total{program} and\n"
	"aioscope_bpf_program_runs_total{program} (kernel.bpf_stats_enabled=1),\n"
	"aioscope_build_info{version,mode,kernel}; with --top-pids:\n"
	"aioscope_process_requests_total{pid,comm}, aioscope_process_bytes_total{pid,comm}\n"
	"(pid=\"other\": every other process, exited ones included).\n";

static int parse_listen(const char *s, struct exporter *e)
{
	char host[64];
	const char *colon;
	uint64_t port;
	size_t hl;

	memset(&e->addr, 0, sizeof(e->addr));
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (!rb || rb[1] != ':')
			return -EINVAL;
		hl = (size_t)(rb - s - 1);
		if (hl >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, hl);
		host[hl] = 0;
		colon = rb + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		hl = (size_t)(colon - s);
		if (hl >= sizeof(host))
			return -EINVAL;
		memcpy(host, s, hl);
		host[hl] = 0;
	}
	if (parse_u64(colon + 1, 1, 65535, &port))
		return -EINVAL;
	if (s[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&e->addr;

		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return -EINVAL;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		e->addrlen = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&e->addr;

		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -EINVAL;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		e->addrlen = sizeof(*a);
	}
	snprintf(e->listen, sizeof(e->listen), "%s", s);
	return 0;
}

static int parse_by(const char *s, unsigned int *by)
{
	char buf[64], *tok, *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", s);
	*by = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "dev"))
			*by |= BY_DEV;
		else if (!strcmp(tok, "op"))
			*by |= BY_OP;
		else if (!strcmp(tok, "api"))
			*by |= BY_API;
		else
			return -EINVAL;
	}
	return *by ? 0 : -EINVAL;
}

static error_t exporter_parse(int key, char *arg, struct argp_state *state)
{
	struct exporter *e = state->input;

	switch (key) {
	case OPT_LISTEN:
		if (parse_listen(arg, e))
			opt_invalid(state, "--listen", arg, "ADDR:PORT, [ADDR6]:PORT");
		break;
	case OPT_BY:
		if (parse_by(arg, &e->by))
			opt_invalid(state, "--by", arg, "a comma list of dev, op, api");
		break;
	case OPT_TOP_PIDS:
		e->top_pids = (unsigned int)opt_u64(state, "--top-pids", arg, 0, 1000, NULL);
		break;
	case OPT_STUCK_MS:
		e->stuck_ns = opt_u64(state, "--stuck-ms", arg, 1, 1000ULL * 86400 * 365,
				      "milliseconds") * 1000000ULL;
		break;
	case ARGP_KEY_ARG:
		opt_unexpected(state, arg);
		break;
	default:
		return filter_opt_parse(key, arg, state, &e->o);
	}
	return 0;
}

/* ---- collection (one scrape) ---- */

static struct devinfo *dev_get(struct exporter *e, uint32_t dev)
{
	char path[96], line[128];
	struct devinfo *d;
	FILE *f;

	for (size_t i = 0; i < e->ndev; i++)
		if (e->dev[i].dev == dev)
			return &e->dev[i];
	if (e->ndev == MAX_DEVS)
		return NULL;
	d = &e->dev[e->ndev++];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	/* the name udev gives it, from sysfs; else maj:min */
	tracer_dev_str(dev, d->name, sizeof(d->name));
	for (int blk = 0; blk < 2; blk++) {
		snprintf(path, sizeof(path), "/sys/dev/%s/%u:%u/uevent", blk ? "block" : "char",
			 dev >> 20, dev & 0xfffff);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "DEVNAME=", 8)) {
				line[strcspn(line, "\n")] = 0;
				line[8 + sizeof(d->name) - 1] = 0;
				memcpy(d->name, line + 8, strlen(line + 8) + 1);
				break;
			}
		}
		fclose(f);
		break;
	}
	return d;
}

static struct series *series_get(struct exporter *e, enum aios_hist_kind kind, uint32_t dev,
				 int op, int api, int state)
{
	struct series *s;

	for (size_t i = 0; i < e->ns; i++) {
		s = &e->s[i];
		if (s->kind == kind && s->dev == dev && s->op == op && s->api == api &&
		    s->state == state)
			return s;
	}
	if (e->ns == e->caps) {
		size_t nc = e->caps ? e->caps * 2 : 32;
		void *p = realloc(e->s, nc * sizeof(*e->s));

		if (!p)
			return NULL;
		e->s = p;
		e->caps = nc;
	}
	s = &e->s[e->ns++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->dev = dev;
	s->op = op;
	s->api = api;
	s->state = state;
	return s;
}

static void series_add(struct series *s, const struct tracer_hist *h)
{
	__u64 total = 0;
	size_t k = 0;

	/* bucket b is below edge k when its inclusive upper edge is <= 2^k - 1 */
	for (size_t b = 0; b < h->nbuckets; b++) {
		__u64 up = aio_bucket_upper((__u32)b);

		while (k < NEDGES && up > ex.edges[k])
			k++;
		for (size_t j = k; j < NEDGES; j++)
			s->cum[j] += h->buckets[b];
		total += h->buckets[b];
	}
	/* the buckets, not h->count: the two are read apart, +Inf must be the sum */
	s->count += total;
	s->sum += h->sum;
}

static int on_hist(void *ctx, const struct tracer_hist *h)
{
	struct exporter *e = ctx;
	struct tracer_metric_key k = tracer_metric_group(h->group);
	struct series *s;
	int op = k.op, api = k.api;
	uint32_t dev = k.dev;

	if (h->kind != AIOS_H_LAT && h->kind != AIOS_H_REAP &&
	    h->kind != AIOS_H_DRIVER && h->kind != AIOS_H_BYTES)
		return 0;
	dev_get(e, k.dev);
	/* requests by result, and bytes (dev, op): kept before --by folds them */
	if (h->kind == AIOS_H_LAT) {
		s = series_get(e, AIOS_H_NR, e->by & BY_DEV ? dev : 0,
			       e->by & BY_OP ? op : -1, e->by & BY_API ? api : -1, k.state);
		if (!s)
			return -ENOMEM;
		series_add(s, h);
	}
	if (h->kind == AIOS_H_BYTES) {
		s = series_get(e, AIOS_H_BYTES, e->by & BY_DEV ? dev : 0,
			       e->by & BY_OP ? op : -1, -1, -1);
		if (!s)
			return -ENOMEM;
		series_add(s, h);
		return 0;
	}
	s = series_get(e, h->kind, e->by & BY_DEV ? dev : 0, e->by & BY_OP ? op : -1,
		       e->by & BY_API ? api : -1, -1);
	if (!s)
		return -ENOMEM;
	series_add(s, h);
	return 0;
}

static int on_qd(void *ctx, const struct tracer_qd *q)
{
	struct exporter *e = ctx;
	struct devinfo *d;

	if (q->kind != AIOS_QD_DEV)
		return 0;
	d = dev_get(e, (uint32_t)q->key);
	if (d) {
		uint64_t now = q->now > 0 ? (uint64_t)q->now : 0;

		d->inflight = (int64_t)now;
		/* the kernel's max covers raises since the last reset; the interval
		 * also held the depth it started with and the one it ends with */
		d->inflight_max = q->max;
		if (now > d->inflight_max)
			d->inflight_max = now;
		if (d->inflight_prev > 0 && (uint64_t)d->inflight_prev > d->inflight_max)
			d->inflight_max = (uint64_t)d->inflight_prev;
	}
	return 0;
}

static int on_inflight(void *ctx, const struct pending_req *r)
{
	struct exporter *e = ctx;
	struct devinfo *d = dev_get(e, r->dev);
	uint64_t age = e->now > r->submit_ns ? e->now - r->submit_ns : 0;

	if (!d)
		return 0;
	if (age > d->oldest_ns)
		d->oldest_ns = age;
	if (age >= e->stuck_ns)
		d->stuck++;
	return 0;
}

/* ---- --top-pids ---- */

static int on_pid(void *ctx, const struct tracer_pid_count *c)
{
	struct exporter *e = ctx;

	if (e->npr_n == e->pr_cap) {
		size_t nc = e->pr_cap ? e->pr_cap * 2 : 64;
		void *a = realloc(e->npr, nc * sizeof(*e->npr));
		void *b;

		if (!a)
			return -ENOMEM;
		e->npr = a;
		b = realloc(e->pr, nc * sizeof(*e->pr));
		if (!b)
			return -ENOMEM;
		e->pr = b;
		e->pr_cap = nc;
	}
	memset(&e->npr[e->npr_n], 0, sizeof(e->npr[0]));
	e->npr[e->npr_n].pid = c->pid;
	e->npr[e->npr_n].req = c->requests;
	e->npr[e->npr_n].bytes = c->bytes;
	e->npr_n++;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* busiest first (requests since the previous scrape), then by pid */
static int cmp_rate(const void *a, const void *b)
{
	const struct proc *x = *(struct proc *const *)a, *y = *(struct proc *const *)b;
	uint64_t rx = x->req - x->prev_req, ry = y->req - y->prev_req;

	if (rx != ry)
		return rx > ry ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static bool pid_alive(int32_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

static void read_comm(struct proc *p)
{
	char path[40];
	FILE *f;

	snprintf(p->comm, sizeof(p->comm), "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", p->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(p->comm, sizeof(p->comm), f))
		p->comm[strcspn(p->comm, "\n")] = 0;
	fclose(f);
}

/* Carry the state of the processes seen before into the new reading (both sorted by pid). */
static void carry_pids(struct exporter *e)
{
	size_t i, j;

	for (i = 0, j = 0; i < e->npr_n; i++) {
		struct proc *c = &e->npr[i];

		while (j < e->pr_n && e->pr[j].pid < c->pid)
			j++;
		if (j < e->pr_n && e->pr[j].pid == c->pid && c->req >= e->pr[j].req) {
			c->prev_req = e->pr[j].req;
			c->base_req = e->pr[j].base_req;
			c->base_bytes = e->pr[j].base_bytes;
			c->top = e->pr[j].top;
			memcpy(c->comm, e->pr[j].comm, sizeof(c->comm));
		} else {
			c->prev_req = 0;	/* new (or forgotten and counted again) */
		}
	}
}

/* Exited processes go into "other" for good and out of the kernel map; the rest is the state. */
static void fold_exited(struct exporter *e)
{
	struct proc *tmp;
	size_t i, j;

	for (i = 0, j = 0; i < e->npr_n; i++) {
		struct proc *c = &e->npr[i];

		if (!pid_alive(c->pid)) {
			e->folded_req += c->req;
			e->folded_bytes += c->bytes;
			tracer_pid_forget(e->t, c->pid);
			continue;
		}
		e->npr[j++] = *c;
	}
	e->npr_n = j;
	/* swap: npr is now the state */
	tmp = e->pr;
	e->pr = e->npr;
	e->npr = tmp;
	e->pr_n = e->npr_n;
}

/* Busiest first, idle members demoted while a busier process waits outside. */
static int choose_top(struct exporter *e)
{
	struct proc **rank;
	size_t i, j, n = 0, ntop = 0;

	rank = malloc(e->pr_n * sizeof(*rank));
	if (!rank)
		return -ENOMEM;
	for (i = 0; i < e->pr_n; i++) {
		rank[n++] = &e->pr[i];
		ntop += e->pr[i].top;
	}
	qsort(rank, n, sizeof(*rank), cmp_rate);
	for (i = 0; i < n; i++) {
		struct proc *out = rank[i];
		struct proc *idle = NULL;

		if (out->top || out->req == out->prev_req)
			continue;
		if (ntop < e->top_pids) {
			ntop++;
		} else {
			for (j = n; j-- > 0;)
				if (rank[j]->top && rank[j]->req == rank[j]->prev_req) {
					idle = rank[j];
					break;
				}
			if (!idle)
				break;
			idle->top = false;
		}
		out->top = true;
		out->base_req = out->req;
		out->base_bytes = out->bytes;
		read_comm(out);
	}
	free(rank);
	return 0;
}

/*
 * Read the per-process counters, fold and forget the processes that exited, and
 * choose the top N: a process stays in while it submits; an idle one gives its
 * place to a busier process outside (its series then ends; if it enters again,
 * its series starts again from 0).
 */
static int collect_pids(struct exporter *e)
{
	int rc;

	e->npr_n = 0;
	rc = tracer_pid_foreach(e->t, on_pid, e);
	if (rc < 0)
		return rc;
	qsort(e->npr, e->npr_n, sizeof(*e->npr), cmp_pid);
	carry_pids(e);
	fold_exited(e);
	if (!e->pr_n)
		return 0;
	return choose_top(e);
}

static void write_pids(struct aio_prom *p, bool bytes)
{
	uint64_t other = bytes ? ex.folded_bytes : ex.folded_req;
	struct aio_prom_label l[2] = { { "pid", NULL }, { "comm", NULL } };
	char pid[16];

	for (size_t i = 0; i < ex.pr_n; i++) {
		const struct proc *c = &ex.pr[i];

		if (!c->top) {
			other += bytes ? c->bytes : c->req;
			continue;
		}
		other += bytes ? c->base_bytes : c->base_req;
		snprintf(pid, sizeof(pid), "%d", c->pid);
		l[0].value = pid;
		l[1].value = c->comm;
		aio_prom_u64(p, l, 2, bytes ? c->bytes - c->base_bytes : c->req - c->base_req);
	}
	l[0].value = "other";
	l[1].value = "";
	aio_prom_u64(p, l, 2, other);
}

/* ---- writing ---- */

static int cmp_series(const void *a, const void *b)
{
	const struct series *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	if (x->api != y->api)
		return x->api < y->api ? -1 : 1;
	return (x->state > y->state) - (x->state < y->state);
}

static size_t series_labels(const struct series *s, struct aio_prom_label *l, bool with_api)
{
	size_t n = 0;

	if (ex.by & BY_DEV) {
		/* past MAX_DEVS devices: no name cached, maj:min (used before the next call) */
		static char mm[32];
		struct devinfo *d = dev_get(&ex, s->dev);

		l[n].name = "dev";
		l[n++].value = d ? d->name : tracer_dev_str(s->dev, mm, sizeof(mm));
	}
	if (s->op >= 0) {
		l[n].name = "op";
		l[n++].value = tracer_op_name((enum aios_op)s->op);
	}
	if (with_api && s->api >= 0) {
		l[n].name = "api";
		l[n++].value = tracer_api_name((enum aios_api)s->api);
	}
	return n;
}

static void write_hists(struct aio_prom *p, enum aios_hist_kind kind, const char *name,
			const char *help)
{
	bool any = false;

	for (size_t i = 0; i < ex.ns; i++) {
		const struct series *s = &ex.s[i];
		struct aio_prom_label l[4];
		size_t n;

		if (s->kind != kind)
			continue;
		if (!any)
			aio_prom_family(p, name, AIO_PROM_HISTOGRAM, help);
		any = true;
		n = series_labels(s, l, true);
		aio_prom_histogram(p, l, n, ex.edges, s->cum, NEDGES, s->count, s->sum);
	}
	if (!any)
		aio_prom_family(p, name, AIO_PROM_HISTOGRAM, help);
}

static const char *result_name(int state)
{
	switch (state) {
	case AIOS_DONE:
		return "done";
	case AIOS_ERROR:
		return "error";
	default:
		return "cancelled";
	}
}

static int prog_time_cb(void *ctx, const struct tracer_prog_stats *st)
{
	struct aio_prom_label l = { "program", st->name };

	aio_prom_ns(ctx, &l, 1, st->run_time_ns);
	return 0;
}

static int prog_runs_cb(void *ctx, const struct tracer_prog_stats *st)
{
	struct aio_prom_label l = { "program", st->name };

	aio_prom_u64(ctx, &l, 1, st->run_cnt);
	return 0;
}

static bool bpf_stats_on(void)
{
	char c = 0;
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");

	if (!f)
		return false;
	if (fread(&c, 1, 1, f) != 1)
		c = 0;
	fclose(f);
	return c == '1';
}

/*
 * Everything a scrape reports, read from the kernel maps: the series (sorted), the
 * per-device gauges, the drop counters and, with --top-pids, the processes.
 */
static int read_maps(struct exporter *e, struct tracer_drops *dr)
{
	int rc;

	e->ns = 0;
	for (size_t i = 0; i < e->ndev; i++) {
		e->dev[i].inflight_prev = e->dev[i].inflight;
		e->dev[i].inflight = 0;
		e->dev[i].stuck = 0;
		e->dev[i].oldest_ns = 0;
		e->dev[i].inflight_max = 0;
	}
	rc = tracer_hist_foreach(e->t, on_hist, e);
	if (rc < 0)
		return rc;
	rc = tracer_qd_foreach(e->t, on_qd, e);
	if (rc < 0)
		return rc;
	/* the maximum over the last scrape interval */
	tracer_qd_reset_max(e->t);
	e->now = tracer_now_ns();
	rc = tracer_inflight_foreach(e->t, on_inflight, e);
	if (rc < 0)
		return rc;
	rc = tracer_drops(e->t, dr);
	if (rc < 0)
		return rc;
	if (e->top_pids) {
		rc = collect_pids(e);
		if (rc < 0)
			return rc;
	}
	if (e->ns)
		qsort(e->s, e->ns, sizeof(*e->s), cmp_series);
	return 0;
}

/* Request counts, bytes and the three latency histograms. */
static void write_requests(struct aio_prom *p)
{
	aio_prom_family(p, "aioscope_requests", AIO_PROM_COUNTER,
			"Asynchronous I/O requests finished, by result (done, error, cancelled).");
	for (size_t i = 0; i < ex.ns; i++) {
		const struct series *s = &ex.s[i];
		struct aio_prom_label l[4];
		size_t n;

		if (s->kind != AIOS_H_NR)
			continue;
		n = series_labels(s, l, true);
		l[n].name = "result";
		l[n++].value = result_name(s->state);
		aio_prom_u64(p, l, n, s->count);
	}
	aio_prom_family(p, "aioscope_bytes", AIO_PROM_COUNTER,
			"Bytes transferred by finished asynchronous I/O requests.");
	for (size_t i = 0; i < ex.ns; i++) {
		const struct series *s = &ex.s[i];
		struct aio_prom_label l[4];
		size_t n;

		if (s->kind != AIOS_H_BYTES)
			continue;
		n = series_labels(s, l, false);
		aio_prom_u64(p, l, n, s->sum);
	}
	write_hists(p, AIOS_H_LAT, "aioscope_request_duration_seconds",
		    "Request latency, submit to completion (syscalls mode: to reap).");
	write_hists(p, AIOS_H_REAP, "aioscope_reap_delay_seconds",
		    "Time a completed request waited until its application reaped it (io_uring: "
		    "seen at the next io_uring_enter on the ring).");
	write_hists(p, AIOS_H_DRIVER, "aioscope_driver_duration_seconds",
		    "Time requests spent in the aiodev driver (aiodev's tracepoints).");
}

/* The per-device gauges: in flight now and at most, stuck, the oldest pending. */
static void write_devices(struct aio_prom *p)
{
	aio_prom_family(p, "aioscope_inflight_requests", AIO_PROM_GAUGE,
			"Requests in flight per device now.");
	for (size_t i = 0; i < ex.ndev; i++) {
		struct aio_prom_label l = { "dev", ex.dev[i].name };

		aio_prom_u64(p, &l, 1, (uint64_t)ex.dev[i].inflight);
	}
	aio_prom_family(p, "aioscope_inflight_requests_max", AIO_PROM_GAUGE,
			"Most requests in flight per device since the previous scrape.");
	for (size_t i = 0; i < ex.ndev; i++) {
		struct aio_prom_label l = { "dev", ex.dev[i].name };

		aio_prom_u64(p, &l, 1, ex.dev[i].inflight_max);
	}
	aio_prom_family(p, "aioscope_stuck_requests", AIO_PROM_GAUGE,
			"Requests pending longer than --stuck-ms per device.");
	for (size_t i = 0; i < ex.ndev; i++) {
		struct aio_prom_label l = { "dev", ex.dev[i].name };

		aio_prom_u64(p, &l, 1, ex.dev[i].stuck);
	}
	aio_prom_family(p, "aioscope_oldest_pending_seconds", AIO_PROM_GAUGE,
			"Age of the oldest pending request per device (0: none pending).");
	for (size_t i = 0; i < ex.ndev; i++) {
		struct aio_prom_label l = { "dev", ex.dev[i].name };

		aio_prom_ns(p, &l, 1, ex.dev[i].oldest_ns);
	}
}

static void write_lost_events(struct aio_prom *p, const struct tracer_drops *dr)
{
	static const char *const reasons[] = {
		"ringbuf_full", "inflight_map_full", "hist_map_full", "qd_map_full",
		"reap_map_full", "join_table_full", "program_misses", "stack_map_full",
		"pid_map_full", "reap_unread",
	};
	const uint64_t v[] = {
		dr->ringbuf_lost, dr->inflight_full, dr->hist_full, dr->qd_full,
		dr->reap_full, dr->join_lost, dr->prog_misses, dr->stack_lost,
		dr->pid_full, dr->reap_unread,
	};

	aio_prom_family(p, "aioscope_lost_events", AIO_PROM_COUNTER,
			"Requests or updates the tracer could not record, by reason.");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct aio_prom_label l = { "reason", reasons[i] };

		aio_prom_u64(p, &l, 1, v[i]);
	}
}

static void write_processes(struct aio_prom *p)
{
	aio_prom_family(p, "aioscope_process_requests", AIO_PROM_COUNTER,
			"Requests finished per process, for the --top-pids busiest "
			"(counted from when each entered); pid=\"other\": the rest.");
	write_pids(p, false);
	aio_prom_family(p, "aioscope_process_bytes", AIO_PROM_COUNTER,
			"Bytes transferred per process, as aioscope_process_requests_total.");
	write_pids(p, true);
}

/* Requests the tracer saw one end of: a completion, or a submit whose completion it missed. */
static void write_unpaired(struct aio_prom *p, const struct tracer_drops *dr)
{
	aio_prom_family(p, "aioscope_unmatched_completions", AIO_PROM_COUNTER,
			"Completions of requests submitted before the tracer attached.");
	aio_prom_u64(p, NULL, 0, dr->unmatched_complete);
	aio_prom_family(p, "aioscope_reconciled_requests", AIO_PROM_COUNTER,
			"Pending requests whose completion the kernel did not show the tracer "
			"(a skipped program run), taken out of the in-flight gauges when their "
			"kiocb was reused, at their reap, process exit or io_destroy.");
	aio_prom_u64(p, NULL, 0, dr->reconciled);
}

/* What the programs cost, when the kernel counts it (kernel.bpf_stats_enabled=1). */
static void write_prog_stats(struct aio_prom *p)
{
	aio_prom_family(p, "aioscope_bpf_program_run_seconds", AIO_PROM_COUNTER,
			"Time the kernel spent running each BPF program "
			"(kernel.bpf_stats_enabled=1).");
	tracer_prog_stats_foreach(ex.t, prog_time_cb, p);
	aio_prom_family(p, "aioscope_bpf_program_runs", AIO_PROM_COUNTER,
			"Runs of each BPF program (kernel.bpf_stats_enabled=1).");
	tracer_prog_stats_foreach(ex.t, prog_runs_cb, p);
}

static void write_build_info(struct aio_prom *p)
{
	struct aio_prom_label l[3] = {
		{ "version", AIOSCOPE_VERSION },
		{ "mode", tracer_mode_name(ex.t) },
		{ "kernel", ex.kernel },
	};

	aio_prom_family(p, "aioscope_build_info", AIO_PROM_GAUGE,
			"aioscope's version, the tracer's attach mode and the kernel.");
	aio_prom_u64(p, l, 3, 1);
}

static int scrape(FILE *f, bool om)
{
	uint64_t t0 = tracer_now_ns();
	struct tracer_drops dr;
	struct aio_prom p;
	int rc;

	rc = read_maps(&ex, &dr);
	if (rc < 0)
		return rc;
	aio_prom_init(&p, f, om);
	write_requests(&p);
	write_devices(&p);
	write_lost_events(&p, &dr);
	if (ex.top_pids)
		write_processes(&p);
	write_unpaired(&p, &dr);
	if (bpf_stats_on())
		write_prog_stats(&p);
	write_build_info(&p);
	aio_prom_family(&p, "aioscope_exporter_scrape_duration_seconds", AIO_PROM_GAUGE,
			"Time this scrape took to read the kernel maps and format them.");
	aio_prom_ns(&p, NULL, 0, tracer_now_ns() - t0);
	aio_prom_finish(&p);
	ex.scrapes++;
	return aio_prom_error(&p);
}

/* ---- HTTP ---- */

static const char index_html[] =
	"<!DOCTYPE html>\n<html><head><title>aioscope exporter</title></head>\n"
	"<body><h1>aioscope exporter</h1>\n"
	"<p>Asynchronous I/O metrics of this host: <a href=\"/metrics\">/metrics</a></p>\n"
	"</body></html>\n";

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *ctype,
			     void *buf, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, buf, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_len, void **con_cls)
{
	static const char nf[] = "404 page not found\n";
	static const char na[] = "405 method not allowed\n";
	static int first;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	bool om;
	int rc;

	(void)cls;
	(void)version;
	(void)upload;
	/* the first call only has the headers: answer on the second */
	if (*con_cls != &first) {
		*con_cls = &first;
		return MHD_YES;
	}
	if (*upload_len) {
		*upload_len = 0;	/* a body is read and ignored */
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
			     (void *)na, sizeof(na) - 1, MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)index_html,
			     sizeof(index_html) - 1, MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", (void *)nf,
			     sizeof(nf) - 1, MHD_RESPMEM_PERSISTENT);
	om = aio_prom_accept_openmetrics(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								     MHD_HTTP_HEADER_ACCEPT));
	f = open_memstream(&buf, &len);
	if (!f)
		return MHD_NO;
	rc = scrape(f, om);
	if (fclose(f) || rc) {
		static const char ie[] = "500 reading the kernel maps failed\n";

		free(buf);
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8",
			     (void *)ie, sizeof(ie) - 1, MHD_RESPMEM_PERSISTENT);
	}
	return reply(c, MHD_HTTP_OK, om ? AIO_PROM_CT_OPENMETRICS : AIO_PROM_CT_TEXT, buf, len,
		     MHD_RESPMEM_MUST_FREE);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	if (!ex.o.verbose)
		return;
	fputs("exporter: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* What the tracer collects for the metrics: nothing per event, all in the maps. */
static void want_metrics(struct tracer_opts *o, unsigned int top_pids)
{
	o->hist = true;
	o->hist_by = AIOS_BY_METRIC;
	o->hist_reap = true;
	o->qd = true;
	o->inflight = true;
	o->pid_counts = top_pids > 0;
}

/* The HTTP daemon on its own polling thread; NULL (and errno) when it cannot listen. */
static struct MHD_Daemon *start_http(void)
{
	unsigned int flags;
	struct rlimit rl;

	/* idle scrapers hold a descriptor each: allow what the hard limit allows */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	if (ex.addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	return MHD_start_daemon(flags, 0, NULL, NULL, handle, NULL,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ex.addr,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)4000,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				MHD_OPTION_END);
}

int cmd_exporter(int argc, char **argv)
{
	static const struct argp argp = { exporter_options, exporter_parse, NULL, exporter_doc,
					  NULL, NULL, NULL };
	struct MHD_Daemon *d;
	struct utsname u;
	char err[256];
	sigset_t sigs;
	int rc, sig;

	ex.by = BY_DEV | BY_OP | BY_API;
	ex.stuck_ns = 1000ULL * 1000000ULL;
	parse_listen("127.0.0.1:9476", &ex);
	rc = argp_parse(&argp, argc, argv, 0, NULL, &ex);
	if (rc)
		return EXIT_USAGE;
	for (int k = 0; k < NEDGES; k++)
		ex.edges[k] = (1ULL << (EDGE_MIN_LOG2 + k)) - 1;
	if (uname(&u) == 0)
		snprintf(ex.kernel, sizeof(ex.kernel), "%s", u.release);
	want_metrics(&ex.o, ex.top_pids);

	/* blocked in every thread (the daemon's inherits the mask): sigwait below */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	rc = tracer_open(&ex.t, &ex.o, err, sizeof(err));
	if (rc) {
		p_err("%s", err);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (ex.o.verbose)
		tracer_describe(ex.t, stderr);
	d = start_http();
	if (!d) {
		p_err("cannot listen on %s: %s", ex.listen, strerror(errno ? errno : EADDRINUSE));
		tracer_close(ex.t);
		return EXIT_RUNTIME;
	}
	fprintf(stderr, "Serving http://%s/metrics (mode %s)... Hit Ctrl-C to end.\n",
		ex.listen, tracer_mode_name(ex.t));
	sig = 0;
	while (sigwait(&sigs, &sig) == 0 && sig == SIGPIPE)
		;
	MHD_stop_daemon(d);
	tracer_close(ex.t);
	free(ex.s);
	free(ex.pr);
	free(ex.npr);
	return EXIT_OK;
}
