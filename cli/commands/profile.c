// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope profile FILE -o PROFILE: the latency distribution (and error rate) of a
 * recording's reads and writes as aiodev's latency_profile knob takes it, so that
 * the simulated device behaves like the recorded one. The buckets are the sample's
 * quantiles (core/profile.c).
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "core/format.h"
#include "core/profile.h"
#include "recording.h"

enum prof_lat { PROF_LAT_AUTO, PROF_LAT_TOTAL, PROF_LAT_DRIVER };

struct profile_env {
	const char *file;
	const char *out;
	int op;				/* enum aios_op, or -1: reads and writes */
	bool have_dev;
	uint32_t dev;			/* kernel dev_t */
	int pid;
	enum prof_lat lat;
	unsigned int buckets;
	bool verbose;
};

enum { OPT_OP = OPT_CMD_BASE, OPT_DEV, OPT_LATENCY, OPT_BUCKETS };

static const struct argp_option profile_options[] = {
	{ "output", 'o', "PROFILE", 0, "Write the profile to PROFILE ('-': stdout; required)", 0 },
	{ "op", OPT_OP, "OP", 0, "Only reads or only writes (read, write; default both)", 0 },
	{ "dev", OPT_DEV, "DEV", 0, "Only requests to this device (a device node or MAJ:MIN)", 0 },
	{ "pid", 'p', "PID", 0, "Only requests submitted by this process", 0 },
	{ "latency", OPT_LATENCY, "WHICH", 0,
	  "total: submit to completion; driver: aiodev's own time; auto (default): driver "
	  "when every request has it, else total", 0 },
	{ "buckets", OPT_BUCKETS, "N", 0,
	  "At most N buckets (1-256, default 256; fewer when the text would pass a page)", 0 },
	{ "verbose", 'v', NULL, 0, "Also the profile's percentiles next to the recording's", 0 },
	{ 0 },
};

static const char profile_doc[] =
	"Write the latency distribution of a recording's reads and writes (aioscope\n"
	"record) as a latency profile for aiodev (docs/driver.md, \"Latency profiles\"):\n"
	"buckets at the recording's own quantiles, and the share of failed requests as\n"
	"an errors line. Loaded into a device, it makes each request's delay a draw\n"
	"from the recorded distribution. Cancelled requests and fsyncs are left out.\n"
	"A summary (requests, percentiles, buckets) goes to stderr.\n"
	"\v"
	"Exit status: 0 ok, 1 the recording cannot be read or has no matching request,\n"
	"2 usage error.\n\n"
	"Examples:\n"
	"  aioscope profile prod.rec --op read -o read.profile\n"
	"  cat read.profile >/sys/class/aiodev/aiodev1/latency_profile\n"
	"  aioscope profile io.rec --dev /dev/aiodev0 --latency driver -o -\n";

static error_t profile_parse(int key, char *arg, struct argp_state *state)
{
	struct profile_env *env = state->input;

	switch (key) {
	case 'o':
		env->out = arg;
		break;
	case OPT_OP:
		if (!strcmp(arg, "read"))
			env->op = AIOS_OP_READ;
		else if (!strcmp(arg, "write"))
			env->op = AIOS_OP_WRITE;
		else
			opt_invalid(state, "--op", arg, "read or write");
		break;
	case OPT_DEV:
		if (parse_dev_t(arg, &env->dev))
			opt_invalid(state, "--dev", arg, "a device node or MAJ:MIN");
		env->have_dev = true;
		break;
	case 'p':
		env->pid = opt_pid(state, arg);
		break;
	case OPT_LATENCY:
		if (!strcmp(arg, "auto"))
			env->lat = PROF_LAT_AUTO;
		else if (!strcmp(arg, "total"))
			env->lat = PROF_LAT_TOTAL;
		else if (!strcmp(arg, "driver"))
			env->lat = PROF_LAT_DRIVER;
		else
			opt_invalid(state, "--latency", arg, "auto, total or driver");
		break;
	case OPT_BUCKETS:
		env->buckets = (unsigned int)opt_u64(state, "--buckets", arg, 1,
						     AIO_PROFILE_MAX_BUCKETS, NULL);
		break;
	case 'v':
		env->verbose = true;
		break;
	default:
		return opt_file_out(key, arg, state, &env->file, &env->out, "-o PROFILE");
	}
	return 0;
}

/* The requests a profile is made of: total and driver times, and which failed. */
struct sample {
	uint64_t *total, *driver;
	size_t n, cap, errors, with_driver;
};

static bool wanted(const struct profile_env *env, const struct tracer_event *e)
{
	if (e->op != AIOS_OP_READ && e->op != AIOS_OP_WRITE)
		return false;
	if (e->state == AIOS_CANCELLED)
		return false;
	if (env->op >= 0 && (int)e->op != env->op)
		return false;
	if (env->have_dev && e->dev != env->dev)
		return false;
	return !env->pid || e->pid == env->pid;
}

static int sample_add(struct sample *s, const struct tracer_event *e)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 4096;
		uint64_t *t = realloc(s->total, nc * sizeof(*t));

		if (!t)
			return -ENOMEM;
		s->total = t;
		t = realloc(s->driver, nc * sizeof(*t));
		if (!t)
			return -ENOMEM;
		s->driver = t;
		s->cap = nc;
	}
	s->total[s->n] = e->lat_ns;
	s->driver[s->n] = e->driver_ns;
	if (e->driver_ns != TRACER_DRIVER_NONE)
		s->with_driver++;
	if (e->state == AIOS_ERROR)
		s->errors++;
	s->n++;
	return 0;
}

/* Reads the matching requests of the recording; 0, or an exit status. */
static int read_sample(const struct profile_env *env, struct sample *s, char *kernel, size_t klen)
{
	struct recfile_reader r;
	struct recfile_rec rec;
	int rc, ret = EXIT_OK;
	FILE *f = recording_open(env->file, &r);

	if (!f)
		return EXIT_RUNTIME;
	snprintf(kernel, klen, "%s", r.hdr.kernel);
	while ((rc = recfile_next(&r, &rec)) == 1) {
		if (rec.type != RECFILE_EVENT || !wanted(env, &rec.ev))
			continue;
		if (sample_add(s, &rec.ev)) {
			p_err("out of memory after %zu requests", s->n);
			ret = EXIT_RUNTIME;
			break;
		}
	}
	if (rc < 0 && r.truncated) {
		/* a recording still being written, or whose writer was killed */
		fprintf(stderr, "Warning: %s: %s; using the %zu requests before it\n",
			env->file, r.err, s->n);
	} else if (rc < 0) {
		p_err("%s: %s", env->file, r.err);
		ret = EXIT_RUNTIME;
	}
	recfile_close(&r);
	fclose(f);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int write_out(const char *out, const char *text, size_t len)
{
	FILE *f = out_open(out);

	if (!f)
		return EXIT_RUNTIME;
	return out_close(f, out, fwrite(text, 1, len, f) == len ? 0 : -EIO);
}

/* The summary: the recording's percentiles, and with -v the profile's beside them. */
static void summary(const struct profile_env *env, const uint64_t *lat, size_t n,
		    const struct sample *s, bool driver, const char *text, unsigned int used)
{
	static const double pct[3] = { 50, 90, 99 };
	char a[16], b[16];

	fprintf(stderr, "profile of %zu %s from %s (%s latency): %u buckets, errors %zu\n", n,
		env->op == AIOS_OP_READ ? "reads" : env->op == AIOS_OP_WRITE ? "writes" :
		"reads and writes", env->file, driver ? "driver" : "total", used, s->errors);
	for (int k = 0; k < 3; k++) {
		size_t r = (size_t)ceil(pct[k] / 100.0 * (double)n);	/* nearest rank */
		double p = 0;

		aio_fmt_ns(a, sizeof(a), lat[(r ? r : 1) - 1]);
		if (!env->verbose) {
			fprintf(stderr, "%s p%g %s", k ? "," : " ", pct[k], a);
			continue;
		}
		aio_profile_percentile(text, pct[k], &p);
		aio_fmt_ns(b, sizeof(b), (uint64_t)(p + 0.5));
		fprintf(stderr, "  p%g: recording %s, profile %s\n", pct[k], a, b);
	}
	if (!env->verbose)
		fputc('\n', stderr);
}

int cmd_profile(int argc, char **argv)
{
	static const struct argp argp = { profile_options, profile_parse, "FILE", profile_doc,
					  NULL, NULL, NULL };
	struct profile_env env = { .op = -1, .buckets = AIO_PROFILE_MAX_BUCKETS };
	char text[AIO_PROFILE_MAX_TEXT + 1], kernel[RECFILE_STR], comment[RECFILE_STR + 96];
	struct sample s = { 0 };
	unsigned int used = 0;
	uint64_t *lat;
	bool driver;
	int ret, len;

	if (argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	ret = read_sample(&env, &s, kernel, sizeof(kernel));
	if (ret)
		goto out;
	if (!s.n) {
		p_err("%s: no finished read or write matches (cancelled requests and fsyncs "
		      "do not count)", env.file);
		ret = EXIT_RUNTIME;
		goto out;
	}
	driver = env.lat == PROF_LAT_DRIVER ||
		 (env.lat == PROF_LAT_AUTO && s.with_driver == s.n);
	if (driver && s.with_driver != s.n) {
		p_err("%s: %zu of the %zu requests have no driver time (not aiodev's, or its "
		      "tracepoints were not traced): use --latency total", env.file,
		      s.n - s.with_driver, s.n);
		ret = EXIT_RUNTIME;
		goto out;
	}
	lat = driver ? s.driver : s.total;
	qsort(lat, s.n, sizeof(*lat), cmp_u64);
	/* the release comes from the file: no control byte may end the comment's line */
	for (char *c = kernel; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	snprintf(comment, sizeof(comment), "aioscope profile: %zu requests, %s latency, kernel %s",
		 s.n, driver ? "driver" : "total", kernel);
	len = aio_profile_text(lat, s.n, s.errors, env.buckets, comment, text, sizeof(text),
			       &used);
	if (len < 0) {
		p_err("cannot write a profile: %s", strerror(-len));
		ret = EXIT_RUNTIME;
		goto out;
	}
	ret = write_out(env.out, text, (size_t)len);
	if (!ret)
		summary(&env, lat, s.n, &s, driver, text, used);
out:
	free(s.total);
	free(s.driver);
	return ret;
}
