// SPDX-License-Identifier: GPL-2.0
/*
 * The views of pending ("stuck") requests that `aioscope stuck` and top's batch
 * view print: a table of plain text (with the submit stacks, symbolized) and one
 * JSON object a request. Here, and in top's curses panel, a request's op and api
 * become words.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "core/format.h"
#include "core/json.h"
#include "collect/parse.h"
#include "stuck_view.h"

/* "512s", "1.204s", "37.5ms"; in integers: two ages a line, thousands of lines a
 * snapshot, and floating-point formatting was a tenth of stuck --watch's CPU */
static void fmt_age(char *buf, size_t sz, uint64_t ns)
{
	uint64_t q;

	if (ns >= 100ULL * 1000000000ULL) {
		snprintf(buf, sz, "%" PRIu64 "s", (ns + 500000000) / 1000000000);
	} else if (ns >= 1000000000ULL) {
		q = (ns + 500000) / 1000000;	/* ms, rounded */
		snprintf(buf, sz, "%" PRIu64 ".%03us", q / 1000, (unsigned int)(q % 1000));
	} else {
		q = (ns + 50000) / 100000;	/* tenths of a ms, rounded */
		snprintf(buf, sz, "%" PRIu64 ".%ums", q / 10, (unsigned int)(q % 10));
	}
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
		m = umaps_load(r->req.pid, &nm);
	for (int j = 0; j < r->nr_ustack; j++)
		fprintf(f, "      %s\n", umaps_fmt(m, nm, r->ustack[j], buf, sizeof(buf)));
	free(m);
}

/* "device 1.204s": the stage and how long it has been in it; "-" unknown */
static void fmt_stage(char *buf, size_t sz, const struct stuck_req *r)
{
	const char *name = pending_stage_name(r->req.stage);
	char age[32];

	if (!name || !r->req.stage_ns) {
		snprintf(buf, sz, "-");
		return;
	}
	fmt_age(age, sizeof(age), r->stage_age_ns);
	snprintf(buf, sz, "%s %s", name, age);
}

void stuck_print_plain(FILE *f, const struct stuck_list *l, bool stacks)
{
	fprintf(f, "%-9s %-18s %7s %7s %-15s %-5s %-6s %-16s %12s %8s %s\n",
		"AGE", "STAGE", "PID", "TID", "COMM", "API", "OP", "DEVICE/FILE",
		"OFFSET", "BYTES", "REQUEST");
	for (size_t i = 0; i < l->n; i++) {
		const struct stuck_req *r = &l->v[i];
		const struct pending_req *q = &r->req;
		char age[32], stage[48], comm[sizeof(q->comm) * 4], path[STUCK_PATH_LEN * 4];

		fmt_age(age, sizeof(age), r->age_ns);
		fmt_stage(stage, sizeof(stage), r);
		/* names chosen by other users reach the terminal escaped */
		aio_fmt_term(comm, sizeof(comm), q->comm);
		aio_fmt_term(path, sizeof(path), r->path);
		fprintf(f, "%-9s %-18s %7d %7d %-15s %-5s %-6s %-16s %12" PRIu64 " %8" PRIu64
			" 0x%" PRIx64 "%s%s\n", age, stage, q->pid, q->tid, comm,
			r->has_api ? stuck_api_name(r) : "-", stuck_op_name(r), path,
			(uint64_t)q->offset, q->bytes, q->id, r->stalled == 1 ? " stalled" : "",
			stacks && r->src == STUCK_SRC_DEBUGFS && r->nr_kstack < 0 &&
			r->nr_ustack < 0 ? " (no stack: pending before aioscope started)" : "");
		if (stacks)
			print_stacks(f, r);
	}
}

void stuck_json_req(struct aio_json *j, const struct stuck_req *r, bool stacks)
{
	const struct pending_req *q = &r->req;

	aio_json_start_object(j);
	aio_json_hex_field(j, "id", q->id);
	aio_json_s64_field(j, "pid", q->pid);
	aio_json_s64_field(j, "tid", q->tid);
	aio_json_string_field(j, "comm", q->comm);
	aio_json_string_field(j, "api", stuck_api_name(r));
	aio_json_string_field(j, "op", stuck_op_name(r));
	aio_json_string_field(j, "dev", r->path);
	aio_json_u64_field(j, "offset", (uint64_t)q->offset);
	aio_json_u64_field(j, "bytes", q->bytes);
	aio_json_u64_field(j, "age_ns", r->age_ns);
	if (pending_stage_name(q->stage) && q->stage_ns) {
		aio_json_string_field(j, "stage", pending_stage_name(q->stage));
		aio_json_u64_field(j, "stage_age_ns", r->stage_age_ns);
	} else {
		aio_json_null_field(j, "stage");
		aio_json_null_field(j, "stage_age_ns");
	}
	if (r->stalled < 0)
		aio_json_null_field(j, "stalled");
	else
		aio_json_bool_field(j, "stalled", r->stalled);
	aio_json_hex_field(j, "ctx", q->ctx);
	aio_json_hex_field(j, "obj", q->obj);
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
