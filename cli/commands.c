// SPDX-License-Identifier: GPL-2.0
/*
 * commands.c - what the subcommands share: the filter options' parser and the
 * one-line error message (commands.h). main.c only dispatches.
 */
#include <argp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "tracer.h"

int filter_opt_parse(int key, char *arg, struct argp_state *state, struct tracer_opts *o)
{
	uint64_t v;
	int i;

	switch (key) {
	case 'p':
		if (parse_int(arg, 1, INT32_MAX, &i))
			argp_error(state, "invalid PID '%s'", arg);
		o->pid = i;
		break;
	case OPT_FILTER_DEV:
		o->dev = arg;
		break;
	case OPT_FILTER_COMM:
		if (!*arg || strlen(arg) >= TRACER_COMM_LEN)
			argp_error(state, "--comm must be 1..%d characters", TRACER_COMM_LEN - 1);
		o->comm = arg;
		break;
	case OPT_FILTER_CGROUP:
		o->cgroup = arg;
		break;
	case OPT_FILTER_MINLAT:
		if (parse_u64(arg, 0, UINT64_MAX / 1000, &v))
			argp_error(state, "invalid --min-lat-us '%s'", arg);
		o->min_lat_ns = v * 1000;
		break;
	case OPT_FILTER_MODE:
		if (parse_mode(arg, &o->mode))
			argp_error(state, "invalid mode '%s' (fentry, kprobe, syscalls)", arg);
		break;
	case 'v':
		o->verbose = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

void p_err(const char *fmt, ...)
{
	va_list ap;

	fputs("Error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
