// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope report FILE VIEW: a recording (aioscope record, docs/record-format.md)
 * shown by a live command's view. VIEW snoop: the lines live snoop prints, by
 * snoop's own line writer, with the recording's clock.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "core/json.h"
#include "request/recfile.h"
#include "snoop_line.h"

struct report_env {
	const char *file;
	bool json;
};

static const struct argp_option report_snoop_options[] = {
	{ "json", 'j', NULL, 0, "One JSON object per line, as snoop --json", 0 },
	{ 0 },
};

static const char report_snoop_doc[] =
	"Print the requests of a recording as snoop prints them live: one line per\n"
	"request (TIME is seconds since the recording started), or with --json the\n"
	"JSON lines (ts_ns is wall-clock time). A summary (events, lost events) ends the\n"
	"output on stderr. A truncated or corrupted recording: every request before the\n"
	"damage is printed, then a one-line error with its byte offset, exit status 1.\n"
	"\v"
	"Examples:\n"
	"  aioscope report io.rec snoop\n"
	"  aioscope report io.rec snoop --json | jq .lat_ns\n";

static error_t report_snoop_parse(int key, char *arg, struct argp_state *state)
{
	struct report_env *env = state->input;

	switch (key) {
	case 'j':
		env->json = true;
		break;
	case ARGP_KEY_ARG:
		opt_unexpected(state, arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void summary(struct report_env *env, const struct recfile_reader *r, uint64_t events,
		    const struct recfile_lost *l)
{
	fprintf(stderr, "%llu events, %llu lost events (ring buffer %llu, in-flight map full %llu, "
		"join %llu, program misses %llu, reaps unread %llu); mode %s; recorded on %s "
		"(%s)%s\n",
		(unsigned long long)events, (unsigned long long)recfile_lost_total(l),
		(unsigned long long)l->ringbuf, (unsigned long long)l->inflight_full,
		(unsigned long long)l->join, (unsigned long long)l->prog_misses,
		(unsigned long long)l->reap_unread, r->hdr.mode, r->hdr.host, r->hdr.kernel,
		r->complete ? "" : "; the recording is incomplete");
	if (env->json) {
		struct aio_json j;

		aio_json_init(&j, stdout, false);
		aio_json_start_object(&j);
		aio_json_name(&j, "summary");
		aio_json_start_object(&j);
		aio_json_string_field(&j, "mode", r->hdr.mode);
		aio_json_u64_field(&j, "events", events);
		aio_json_u64_field(&j, "lost", recfile_lost_total(l));
		aio_json_u64_field(&j, "ringbuf_lost", l->ringbuf);
		aio_json_u64_field(&j, "inflight_full", l->inflight_full);
		aio_json_u64_field(&j, "join_lost", l->join);
		aio_json_u64_field(&j, "prog_misses", l->prog_misses);
		aio_json_u64_field(&j, "reap_unread", l->reap_unread);
		aio_json_bool_field(&j, "complete", r->complete);
		aio_json_end_object(&j);
		aio_json_end_object(&j);
	}
}

static int report_snoop(const char *file, int argc, char **argv)
{
	static const struct argp argp = { report_snoop_options, report_snoop_parse, NULL,
					  report_snoop_doc, NULL, NULL, NULL };
	struct report_env env = { .file = file };
	struct recfile_reader r;
	struct recfile_lost lost = { 0 };
	struct recfile_rec rec;
	uint64_t events = 0, mono_to_real;
	FILE *f;
	int rc;

	if (argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	f = fopen(file, "re");
	if (!f) {
		p_err("%s: %s", file, strerror(errno));
		return EXIT_RUNTIME;
	}
	rc = recfile_open(&r, f);
	if (rc) {
		p_err("%s: %s", file, r.err);
		recfile_close(&r);
		fclose(f);
		return EXIT_RUNTIME;
	}
	setvbuf(stdout, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, 1 << 16);
	mono_to_real = r.hdr.start_real_ns - r.hdr.start_mono_ns;
	if (!env.json)
		snoop_header(stdout);
	while ((rc = recfile_next(&r, &rec)) == 1) {
		char line[SNOOP_LINE_MAX];
		size_t n;

		if (rec.type == RECFILE_LOST) {
			lost = rec.lost;
		} else if (rec.type == RECFILE_EVENT) {
			n = snoop_line(line, sizeof(line), &rec.ev, env.json, mono_to_real,
				       r.hdr.start_mono_ns);
			fwrite(line, 1, n, stdout);
			events++;
		}
	}
	fflush(stdout);
	summary(&env, &r, events, &lost);
	if (rc < 0)
		p_err("%s: %s", file, r.err);
	recfile_close(&r);
	fclose(f);
	return rc < 0 ? EXIT_RUNTIME : EXIT_OK;
}

static const struct {
	const char *name;
	int (*fn)(const char *file, int argc, char **argv);
} views[] = {
	{ "snoop", report_snoop },
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "Usage: %s FILE VIEW [OPTION...]\n"
		"Show a recording of aioscope record (FILE) by a view of a live command.\n\n"
		"Views:\n"
		"  snoop    one line per request, as aioscope snoop ('%s FILE snoop --help')\n\n"
		"Exit status: 0 ok, 1 the file cannot be read (truncated, corrupted, not a\n"
		"recording, a newer format: the error names the byte), 2 usage error.\n\n"
		"Examples:\n"
		"  %s io.rec snoop --json\n", prog, prog, prog);
}

int cmd_report(int argc, char **argv)
{
	char prog[96];

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-?") ||
			  !strcmp(argv[1], "--usage"))) {
		usage(stdout, argv[0]);
		return EXIT_OK;
	}
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("aioscope %s\n", AIOSCOPE_VERSION);
		return EXIT_OK;
	}
	if (argc < 3) {
		p_err("%s: a recording and a view are needed (try '%s --help')",
		      argv[0], argv[0]);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		if (strcmp(argv[2], views[i].name))
			continue;
		/* argp messages read "aioscope report snoop: ..." */
		snprintf(prog, sizeof(prog), "%s %s", argv[0], views[i].name);
		argv[2] = prog;
		return views[i].fn(argv[1], argc - 2, argv + 2);
	}
	p_err("%s: unknown view '%s' (one of: snoop)", argv[0], argv[2]);
	return EXIT_USAGE;
}
