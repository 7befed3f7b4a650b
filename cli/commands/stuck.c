// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope stuck: list pending asynchronous requests older than a threshold.
 *
 * Sources:
 *  - the aiodev debugfs listing (/sys/kernel/debug/aiodev/aiodevN/pending):
 *    every pending aiodev request, including those submitted before aioscope
 *    started; needs no BPF;
 *  - with --watch, the tracer's in-flight table: requests on any file, but only
 *    those submitted after the tracer attached.
 * Exit status: 0 nothing stuck, 3 something stuck, 1 runtime error, 2 usage.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/json.h"
#include "collect/stuck_src.h"
#include "collect/tracer.h"

#include "commands.h"
#include "stuck_view.h"

static struct stuck_env {
	uint64_t older_than_ms;
	bool json;
	bool watch;
	bool stack;
	bool no_trace;
	bool verbose;
	double interval_s;
	long count;
	int pid;
} env;

static volatile sig_atomic_t stuck_exiting;

static void on_signal(int sig)
{
	(void)sig;
	stuck_exiting = 1;
}

static const char doc[] =
"List asynchronous requests pending longer than a threshold.\n"
"\n"
"USAGE: aioscope stuck [--older-than MS] [--json] [--watch [-i SEC] [-n COUNT]]\n"
"                      [--stack] [-p PID]\n"
"\n"
"Pending aiodev requests come from the driver's debugfs listing, so requests\n"
"submitted before aioscope started are found too (no BPF needed). With --watch,\n"
"the tracer is attached as well and requests on any file (tmpfs, block devices)\n"
"submitted after it attached are listed once they pass the threshold, each with\n"
"the stage it is in: submitted, queued, device, completing, or unreaped (completed,\n"
"never taken by the application: its bug, not the device's).\n"
"\n"
"Exit status: 0 nothing stuck, 3 something stuck, 1 runtime error, 2 usage error.\n"
"\n"
"EXAMPLES:\n"
"    aioscope stuck                    # aiodev requests pending > 1 s\n"
"    aioscope stuck --older-than 50    # pending > 50 ms\n"
"    aioscope stuck --json             # one JSON object\n"
"    aioscope stuck --watch -i 2       # every 2 s, any file, Ctrl-C to end\n"
"    aioscope stuck --watch --stack    # and the submitting stacks\n"
"\n"
"--stack: stacks are recorded at submit by the tracer, so only requests\n"
"submitted after it attached (--watch) have them; the others say \"no stack\".\n";

enum { OPT_NO_TRACE = 256 };

static const struct argp_option opts[] = {
	{ "older-than", 'o', "MS", 0, "Threshold age in milliseconds (default 1000)", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per snapshot, one per line", 0 },
	{ "watch", 'w', NULL, 0, "Repeat every interval until Ctrl-C (attaches the tracer)", 0 },
	{ "interval", 'i', "SEC", 0, "Interval for --watch (default 1, fractional)", 0 },
	{ "count", 'n', "COUNT", 0, "Stop --watch after COUNT snapshots", 0 },
	{ "stack", 's', NULL, 0, "Show the submitting user and kernel stacks", 0 },
	{ "pid", 'p', "PID", 0, "Only requests submitted by this process", 0 },
	{ "no-trace", OPT_NO_TRACE, NULL, 0, "With --watch: debugfs listing only", 0 },
	{ "verbose", 'v', NULL, 0, "Say which sources were used, libbpf debug output", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'o':
		env.older_than_ms = opt_u64(state, "--older-than", arg, 0, 1000ULL * 86400 * 365,
					    "milliseconds");
		break;
	case 'j':
		env.json = true;
		break;
	case 'w':
		env.watch = true;
		break;
	case 'i':
		env.interval_s = opt_seconds(state, "interval", arg, 0.01, 3600);
		break;
	case 'n':
		env.count = opt_count(state, arg);
		break;
	case 's':
		env.stack = true;
		break;
	case 'p':
		env.pid = opt_pid(state, arg);
		break;
	case OPT_NO_TRACE:
		env.no_trace = true;
		break;
	case 'v':
		env.verbose = true;
		break;
	case ARGP_KEY_ARG:
		opt_unexpected(state, arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* One snapshot: fill @l, print it. Returns the number listed or -errno. */
static int snapshot(struct tracer *tr, struct aiodev_listing *listing, struct stuck_list *l,
		    struct aio_json *j)
{
	uint64_t min_age = env.older_than_ms * 1000000ULL;
	int rc;

	/* --watch: the listing is read again only when some device's requests changed */
	aiodev_listing_refresh(listing, tracer_now_ns());
	stuck_list_reset(l);
	if (stuck_list_add_listing(l, listing)) {
		fprintf(stderr, "Error: out of memory for %zu pending requests\n", listing->l.n);
		return -ENOMEM;
	}
	rc = aiodev_listing_error(listing);
	if (rc < 0 && !tr) {
		fprintf(stderr, "Error: cannot read the aiodev pending listing "
			"(/sys/kernel/debug/aiodev/*/pending): %s; is aiodev loaded and "
			"debugfs mounted?\n", strerror(-rc));
		return rc;
	}
	if (tr) {
		rc = stuck_from_tracer(tr, l, min_age);
		if (rc < 0) {
			fprintf(stderr, "Error: reading the in-flight table: %s\n", strerror(-rc));
			return rc;
		}
	}
	stuck_list_filter_age(l, min_age);
	if (env.pid)
		stuck_list_filter_pid(l, env.pid);
	stuck_list_sort(l);

	if (env.json) {
		aio_json_start_object(j);
		aio_json_u64_field(j, "ts_ns", realtime_ns());
		aio_json_u64_field(j, "older_than_ms", env.older_than_ms);
		aio_json_u64_field(j, "count", l->n);
		aio_json_name(j, "sources");
		aio_json_start_object(j);
		aio_json_u64_field(j, "debugfs_devices", l->devices);
		aio_json_string_field(j, "tracer", tr ? tracer_mode_name(tr) : NULL);
		if (tr)
			tracer_hooks_json(tr, j);
		aio_json_end_object(j);
		aio_json_name(j, "stuck");
		aio_json_start_array(j);
		for (size_t i = 0; i < l->n; i++)
			stuck_json_req(j, &l->v[i], env.stack);
		aio_json_end_array(j);
		aio_json_end_object(j);
		if (aio_json_error(j))
			return -EIO;
	} else {
		if (env.watch) {
			char ts[32];
			time_t now = time(NULL);
			struct tm tm;

			localtime_r(&now, &tm);
			strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
			printf("%s  %zu pending longer than %" PRIu64 " ms\n", ts, l->n,
			       env.older_than_ms);
		}
		if (l->n)
			stuck_print_plain(stdout, l, env.stack);
		else if (!env.watch)
			printf("nothing pending longer than %" PRIu64 " ms\n", env.older_than_ms);
		if (env.watch)
			printf("\n");
		fflush(stdout);
	}
	return (int)l->n;
}

/* Options and defaults into env. Returns 0, or 2 for a usage error. */
static int stuck_parse(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };

	memset(&env, 0, sizeof(env));
	env.older_than_ms = 1000;
	env.interval_s = 1;
	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	if ((env.count || env.no_trace) && !env.watch) {
		fprintf(stderr, "Error: -n and --no-trace only apply to --watch\n");
		return 2;
	}
	return 0;
}

/* --watch: the tracer as well, or NULL (the debugfs listing works without it). */
static struct tracer *stuck_tracer(void)
{
	struct tracer_opts to = { .inflight = true, .stages = true, .unreaped = true,
				  .pid = env.pid,
				  .stacks = env.stack, .verbose = env.verbose };
	struct tracer *tr = NULL;
	char msg[256] = "";
	int err;

	if (!env.watch || env.no_trace)
		return NULL;
	err = tracer_open(&tr, &to, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "Warning: tracer not attached (%s): listing aiodev "
			"requests only\n", msg[0] ? msg : strerror(-err));
		return NULL;
	}
	if (env.verbose)
		fprintf(stderr, "Tracer attached, mode %s\n", tracer_mode_name(tr));
	return tr;
}

/* Sleep one --watch interval; false when a signal asked to end. */
static bool stuck_sleep(void)
{
	struct timespec ts = { (time_t)env.interval_s,
			       (long)((env.interval_s - (time_t)env.interval_s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR && !stuck_exiting)
		;
	return !stuck_exiting;
}

/* -v: the sources used, and what the tracer missed. */
static void stuck_verbose(struct tracer *tr, const struct stuck_list *l)
{
	struct tracer_drops d;

	if (!env.json)
		fprintf(stderr, "sources: debugfs listing of %u aiodev device(s)%s\n",
			l->devices, tr ? ", tracer in-flight table" : "");
	if (!tr || tracer_drops(tr, &d))
		return;
	fprintf(stderr, "completions not seen, reconciled: %" PRIu64 "\n", d.reconciled);
	if (env.stack)
		fprintf(stderr, "submit stacks not recorded (stack map full or "
			"hash collision): %" PRIu64 "\n", d.stack_lost);
}

int cmd_stuck(int argc, char **argv)
{
	struct aiodev_listing listing = {};
	struct stuck_list l = {};
	struct tracer *tr;
	struct aio_json j;
	struct sigaction sa = {};
	int rc = stuck_parse(argc, argv);
	long done = 0;

	if (rc)
		return rc;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	out_stream();	/* each snapshot ends with a flush */
	aio_json_init(&j, stdout, false);
	tr = stuck_tracer();
	for (;;) {
		int n = snapshot(tr, &listing, &l, &j);

		if (n < 0) {
			rc = 1;
			break;
		}
		rc = n ? EXIT_STUCK : 0;
		done++;
		if (!env.watch || stuck_exiting || (env.count && done >= env.count))
			break;
		if (!stuck_sleep())
			break;
	}
	if (env.verbose)
		stuck_verbose(tr, &l);
	tracer_close(tr);
	stuck_list_free(&l);
	aiodev_listing_free(&listing);
	return rc;
}
