// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope - trace asynchronous I/O requests from submission to reap.
 * main.c: command dispatch (bpftool style table; exact names or unique prefixes).
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"

const char *argp_program_version = "aioscope " AIOSCOPE_VERSION;
const char *argp_program_bug_address = "<https://github.com/aioscope/aioscope/issues>";

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd cmds[] = {
	{ "snoop", cmd_snoop, "one line per finished request" },
	{ "hist", cmd_hist, "latency histograms aggregated in the kernel" },
	{ "top", cmd_top, "live dashboard of asynchronous I/O (also: aiotop)" },
	{ "stuck", cmd_stuck, "pending requests older than a threshold" },
	{ "exporter", cmd_exporter, "Prometheus metrics over HTTP (default 127.0.0.1:9476)" },
	{ "record", cmd_record, "every finished request into a recording file" },
	{ "report", cmd_report, "a recording shown by a live command's view (snoop, hist)" },
	{ "profile", cmd_profile, "a recording's latency distribution as an aiodev profile" },
	{ "export", cmd_export, "a recording as a Perfetto / chrome://tracing trace" },
	{ "heatmap", cmd_heatmap, "a recording's latency heatmap as SVG" },
	{ 0 },
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s COMMAND [OPTIONS]\n"
		"       %s --help | --version\n\n"
		"Trace asynchronous I/O requests (libaio and io_uring) from submission\n"
		"through the driver to completion and reap.\n\nCommands:\n", prog, prog);
	for (const struct cmd *c = cmds; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->help);
	fprintf(f, "\nCommands may be abbreviated to a unique prefix. '%s COMMAND --help'\n"
		"shows each command's options and examples.\n", prog);
}

static const struct cmd *select_cmd(const char *name, int *ambiguous)
{
	const struct cmd *found = NULL;
	size_t len = strlen(name);
	int n = 0;

	*ambiguous = 0;
	for (const struct cmd *c = cmds; c->name; c++) {
		if (!strcmp(c->name, name))
			return c;
		if (len && !strncmp(c->name, name, len)) {
			found = c;
			n++;
		}
	}
	if (n > 1) {
		*ambiguous = 1;
		return NULL;
	}
	return found;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const struct cmd *c;
	char prog[64];
	int amb;

	base = base ? base + 1 : argv[0];
	argp_err_exit_status = EXIT_USAGE;
	if (!strcmp(base, "aiotop"))
		return cmd_top(argc, argv);

	if (argc < 2) {
		usage(stderr, base);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout, base);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("aioscope %s\n", AIOSCOPE_VERSION);
		return EXIT_OK;
	}
	if (argv[1][0] == '-') {
		p_err("unknown option '%s' (try '%s --help')", argv[1], base);
		return EXIT_USAGE;
	}
	c = select_cmd(argv[1], &amb);
	if (!c) {
		if (amb)
			p_err("ambiguous command '%s' (try '%s --help')", argv[1], base);
		else
			p_err("unknown command '%s' (try '%s --help')", argv[1], base);
		return EXIT_USAGE;
	}
	/* argp messages read "aioscope snoop: ..." */
	snprintf(prog, sizeof(prog), "%s %s", base, c->name);
	argv[1] = prog;
	return c->fn(argc - 1, argv + 1);
}
