// SPDX-License-Identifier: GPL-2.0
/*
 * commands.c - what the subcommands share: the filter options' parser and the
 * one-line error message (commands.h). main.c only dispatches.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "commands.h"
#include "collect/tracer.h"
#include "core/json.h"

void opt_invalid(struct argp_state *state, const char *what, const char *arg,
		 const char *valid)
{
	if (valid)
		argp_error(state, "invalid %s '%s' (%s)", what, arg, valid);
	else
		argp_error(state, "invalid %s '%s'", what, arg);
}

double opt_seconds(struct argp_state *state, const char *what, const char *arg, double min,
		   double max)
{
	char valid[64];
	double v = min;

	if (parse_seconds(arg, false, &v) || v < min || v > max) {
		snprintf(valid, sizeof(valid), "%.15g to %.15g seconds", min, max);
		opt_invalid(state, what, arg, valid);
	}
	return v;
}

uint64_t opt_u64(struct argp_state *state, const char *what, const char *arg, uint64_t min,
		 uint64_t max, const char *unit)
{
	char valid[96];
	uint64_t v = min;

	if (parse_u64(arg, min, max, &v)) {
		snprintf(valid, sizeof(valid), "%" PRIu64 " to %" PRIu64 "%s%s", min, max,
			 unit ? " " : "", unit ? unit : "");
		opt_invalid(state, what, arg, valid);
	}
	return v;
}

int opt_pid(struct argp_state *state, const char *arg)
{
	return (int)opt_u64(state, "pid", arg, 1, 4194304, NULL);
}

long opt_count(struct argp_state *state, const char *arg)
{
	return (long)opt_u64(state, "count", arg, 1, 1000000000, NULL);
}

void opt_mode(struct argp_state *state, const char *arg, enum tracer_mode *m)
{
	if (parse_mode(arg, m))
		opt_invalid(state, "mode", arg, "auto, fentry, kprobe, syscalls");
}

int parse_dev_t(const char *s, uint32_t *dev)
{
	unsigned int maj, min;
	struct stat st;
	char extra;

	if (sscanf(s, "%u:%u%c", &maj, &min, &extra) == 2 && maj < 4096 && min < (1U << 20)) {
		*dev = maj << 20 | min;
		return 0;
	}
	if (stat(s, &st) || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
		return -1;
	*dev = major(st.st_rdev) << 20 | minor(st.st_rdev);
	return 0;
}

void opt_unexpected(struct argp_state *state, const char *arg)
{
	argp_error(state, "unexpected argument '%s'", arg);
}

int opt_file_out(int key, char *arg, struct argp_state *state, const char **file,
		 const char **out, const char *out_opt)
{
	switch (key) {
	case ARGP_KEY_ARG:
		if (*file)
			opt_unexpected(state, arg);
		*file = arg;
		return 0;
	case ARGP_KEY_END:
		if (!*file)
			argp_error(state, "a recording is needed");
		if (!*out)
			argp_error(state, "%s is needed", out_opt);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

FILE *out_open(const char *out)
{
	FILE *f = strcmp(out, "-") ? fopen(out, "we") : stdout;

	if (!f)
		p_err("%s: %s", out, strerror(errno));
	return f;
}

int out_close(FILE *f, const char *out, int err)
{
	if (f != stdout ? fclose(f) : fflush(f))
		err = err ? err : -errno;
	if (!err)
		return EXIT_OK;
	p_err("%s: %s", out, strerror(-err));
	return EXIT_RUNTIME;
}

void out_stream(void)
{
	setvbuf(stdout, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, 1 << 16);
}

enum aios_group opt_group(struct argp_state *state, const char *arg)
{
	int g = tracer_group_parse(arg);

	if (g <= 0)
		opt_invalid(state, "--by", arg, "op, pid, dev, ctx, qd");
	return (enum aios_group)g;
}

const char *opt_comm(struct argp_state *state, const char *arg)
{
	if (!*arg || strlen(arg) >= TRACER_COMM_LEN)
		opt_invalid(state, "--comm", arg, "1 to 15 characters");
	return arg;
}

uint64_t opt_min_lat(struct argp_state *state, const char *arg)
{
	return opt_u64(state, "--min-lat-us", arg, 0, UINT64_MAX / 1000, "microseconds") * 1000;
}

int filter_opt_parse(int key, char *arg, struct argp_state *state, struct tracer_opts *o)
{
	switch (key) {
	case 'p':
		o->pid = opt_pid(state, arg);
		break;
	case OPT_FILTER_DEV:
		o->dev = arg;
		break;
	case OPT_FILTER_COMM:
		o->comm = opt_comm(state, arg);
		break;
	case OPT_FILTER_CGROUP:
		o->cgroup = arg;
		break;
	case OPT_FILTER_MINLAT:
		o->min_lat_ns = opt_min_lat(state, arg);
		break;
	case OPT_FILTER_MODE:
		opt_mode(state, arg, &o->mode);
		break;
	case OPT_FILTER_SAMPLE:
		o->sample = (unsigned int)opt_u64(state, "--sample", arg, 1, 1000000,
						  "requests: keep 1 in N");
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

double sample_coverage(const struct tracer_drops *d)
{
	return d->sample_seen ? (double)d->sample_kept / (double)d->sample_seen : 1.0;
}

void sample_report(FILE *f, unsigned int n, const struct tracer_drops *d)
{
	if (n <= 1)
		return;
	fprintf(f, "sampled 1 in %u: %llu of %llu requests followed (coverage %.2f%%)\n", n,
		(unsigned long long)d->sample_kept, (unsigned long long)d->sample_seen,
		100.0 * sample_coverage(d));
}

void sample_json(struct aio_json *j, unsigned int n, const struct tracer_drops *d)
{
	aio_json_u64_field(j, "sample", n > 1 ? n : 1);
	aio_json_u64_field(j, "sample_seen", d->sample_seen);
	aio_json_u64_field(j, "sample_kept", d->sample_kept);
	aio_json_double_field(j, "coverage", n > 1 ? sample_coverage(d) : 1.0);
}
