// SPDX-License-Identifier: GPL-2.0
/*
 * aioscope record: every finished request, queue-depth samples and the lost-event
 * counters into a recording file (docs/record-format.md), for report and the tools
 * after it. The tracer is opened as snoop opens it, with snoop's options. With
 * --ring, a flight recorder (flight.c): the last seconds kept in memory and written
 * out as a recording of their own when a trigger fires.
 */
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "flight.h"
#include "request/recfile.h"

#define QD_EVERY_NS	100000000ULL	/* a queue-depth sample every 100 ms */
#define FLUSH_EVERY_NS	1000000000ULL	/* a chunk, and the lost counters, every second */
#define AIODEV_CLASS	"/sys/class/aiodev"

struct record_env {
	struct snoop_trace t;
	const char *out;
	struct recfile_writer *w;	/* a whole recording; NULL with --ring */
	struct flight fl;		/* --ring: the flight recorder */
	bool flight;
	unsigned int triggers;		/* --trigger options given */
	int werr;			/* the first write error */
	uint64_t events, qd_samples, lost_records;
	struct recfile_lost lost;	/* as last written */
	uint64_t now;			/* the time of the current qd sample */
};

static volatile sig_atomic_t exiting, usr1;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		usr1 = 1;
	else
		exiting = 1;
}

enum { OPT_RING = OPT_CMD_BASE, OPT_TRIGGER, OPT_MAX_DUMPS };

static const struct argp_option record_options[] = {
	{ "output", 'o', "FILE", 0,
	  "Write the recording to FILE (required); with --ring, dumps into the directory FILE", 0 },
	{ "ring", OPT_RING, "SEC", 0,
	  "Flight recorder: keep the last SEC seconds in memory, write them out when a "
	  "trigger fires", 0 },
	{ "trigger", OPT_TRIGGER, "SPEC", 0,
	  "With --ring, when to write: stuck:MS (a request pending MS ms), lat:MS (a "
	  "completion slower than MS ms), signal (SIGUSR1); repeatable", 0 },
	{ "max-dumps", OPT_MAX_DUMPS, "N", 0,
	  "With --ring, end after N dumps (default 10)", 0 },
	{ 0 },
};

static const char record_doc[] =
	"Record every finished libaio and io_uring request (everything snoop --json\n"
	"prints), the queue depth of each device and aio context every 100 ms, and the\n"
	"lost-event counters into FILE, a compressed recording readable while it is\n"
	"written (docs/record-format.md). Takes snoop's filters.\n"
	"A summary (records, bytes, lost events) ends the output on stderr.\n"
	"\n"
	"With --ring SEC, a flight recorder: nothing is written until a trigger fires;\n"
	"then the last SEC seconds, the requests pending at that moment and the lost\n"
	"counters go to a recording of their own in the directory -o names, called\n"
	"YYYYmmdd-HHMMSS.mmm-KIND.rec (KIND: stuck, lat, signal), and recording goes on.\n"
	"A trigger within SEC seconds of the previous dump is counted, not dumped.\n"
	"\v"
	"Examples:\n"
	"  aioscope record -o io.rec                  # until Ctrl-C\n"
	"  aioscope record -o io.rec -d 10 -p 1234    # process 1234, for 10 seconds\n"
	"  aioscope record -o io.rec --dev /dev/aiodev0\n"
	"  aioscope record --ring 5 --trigger stuck:500 --trigger signal -o dumps/\n";

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	struct record_env *env = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &env->t;
		break;
	case 'o':
		if (!*arg)
			opt_invalid(state, "--output", arg, "a file name");
		env->out = arg;
		break;
	case OPT_RING:
		env->flight = true;
		env->fl.ring_ns = (uint64_t)(opt_seconds(state, "--ring", arg, 0.1, 3600) * 1e9);
		break;
	case OPT_TRIGGER: {
		char err[160];

		if (flight_trigger_parse(&env->fl, arg, err, sizeof(err)))
			argp_error(state, "%s", err);
		env->triggers++;
		break;
	}
	case OPT_MAX_DUMPS:
		env->fl.max_dumps = (unsigned int)opt_u64(state, "--max-dumps", arg, 1, 1000000,
							  "dumps");
		break;
	case ARGP_KEY_ARG:
		opt_unexpected(state, arg);
		break;
	case ARGP_KEY_END:
		if (!env->out)
			argp_error(state, env->flight ? "no output directory (-o DIR)" :
				   "no output file (-o FILE)");
		if (!env->flight && (env->triggers || env->fl.max_dumps))
			argp_error(state, "--trigger and --max-dumps need --ring SEC");
		if (env->flight && !env->triggers)
			argp_error(state, "--ring needs at least one --trigger "
				   "(stuck:MS, lat:MS or signal)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* the first line of @path into @buf, without its newline; 0 or -1 */
static int read_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "re");
	char *ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)cap, f);
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * The knobs of every aiodev device ("aiodev0/latency_ns=200000"), each NUL-terminated,
 * into a malloc'd list (*len bytes; NULL when aiodev is not loaded). A knob is a
 * readable and writable attribute of the device (uevent aside), so knobs added to the
 * driver are recorded without a change here.
 */
static char *aiodev_knobs(size_t *len)
{
	struct dirent **devs = NULL;
	char *list = NULL;
	size_t cap = 0;
	int n = scandir(AIODEV_CLASS, &devs, NULL, alphasort);

	*len = 0;
	for (int i = 0; i < n; i++) {
		struct dirent **attrs = NULL;
		char dir[300];
		int m;

		if (devs[i]->d_name[0] != '.') {
			snprintf(dir, sizeof(dir), AIODEV_CLASS "/%s", devs[i]->d_name);
			m = scandir(dir, &attrs, NULL, alphasort);
			for (int k = 0; k < m; k++) {
				char path[600], val[256];
				struct stat st;
				size_t l;
				char *nl;

				snprintf(path, sizeof(path), "%s/%s", dir, attrs[k]->d_name);
				if (!strcmp(attrs[k]->d_name, "uevent") || stat(path, &st) ||
				    !S_ISREG(st.st_mode) || (st.st_mode & 0600) != 0600 ||
				    read_line(path, val, sizeof(val)))
					goto next;
				l = strlen(devs[i]->d_name) + strlen(attrs[k]->d_name) + strlen(val) + 3;
				if (*len + l > cap) {
					cap = (*len + l) * 2;
					nl = realloc(list, cap);
					if (!nl)
						goto next;
					list = nl;
				}
				*len += (size_t)sprintf(list + *len, "%s/%s=%s", devs[i]->d_name,
							attrs[k]->d_name, val) + 1;
next:
				free(attrs[k]);
			}
			free(attrs);
		}
		free(devs[i]);
	}
	free(devs);
	return list;
}

/* argv as a list of NUL-terminated strings (malloc'd) */
static char *argv_list(int argc, char **argv, size_t *len)
{
	size_t n = 0;
	char *s;

	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	s = malloc(n ? n : 1);
	*len = 0;
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]) + 1;

		memcpy(s + *len, argv[i], l);
		*len += l;
	}
	return s;
}

static int on_event(void *ctx, const struct tracer_event *e)
{
	struct record_env *env = ctx;
	int rc;

	if (env->flight) {
		struct recfile_rec r = { .type = RECFILE_EVENT, .ev = *e };

		rc = flight_push(&env->fl, &r, e->ts_ns);
		flight_check_event(&env->fl, e);
	} else {
		rc = recfile_write_event(env->w, e);
	}
	if (rc) {
		env->werr = rc;
		return rc;
	}
	env->events++;
	return 0;
}

static int on_qd(void *ctx, const struct tracer_qd *q)
{
	struct record_env *env = ctx;
	struct recfile_qd s = { env->now, (uint32_t)q->kind, q->key, q->now, q->max };

	/* processes are many and short-lived: devices, contexts and the total only;
	 * idle ones only when something was in flight since the last sample */
	if (q->kind == AIOS_QD_PID || (q->kind != AIOS_QD_TOTAL && !q->now && !q->max))
		return 0;
	if (env->flight) {
		struct recfile_rec r = { .type = RECFILE_QD, .qd = s };

		if (flight_push(&env->fl, &r, env->now)) {
			env->werr = -ENOMEM;
			return -ENOMEM;
		}
	} else if (recfile_write_qd(env->w, &s)) {
		env->werr = -EIO;
		return -EIO;
	}
	env->qd_samples++;
	return 0;
}

static void sample_qd(struct record_env *env, struct tracer *t)
{
	env->now = tracer_now_ns();
	tracer_qd_foreach(t, on_qd, env);
	tracer_qd_reset_max(t);
}

/* the lost counters now; false if they could not be read */
static bool read_lost(struct tracer *t, struct recfile_lost *l)
{
	struct tracer_drops d;

	memset(l, 0, sizeof(*l));
	if (tracer_drops(t, &d))
		return false;
	l->ts_ns = tracer_now_ns();
	l->ringbuf = d.ringbuf_lost;
	l->inflight_full = d.inflight_full;
	l->join = d.join_lost;
	l->prog_misses = d.prog_misses;
	l->reap_unread = d.reap_unread;
	return true;
}

/* a lost-events record if a count changed since the last one (or @always) */
static void write_lost(struct record_env *env, struct tracer *t, bool always)
{
	struct recfile_lost l;

	if (!read_lost(t, &l))
		return;
	if (!always && recfile_lost_total(&l) == recfile_lost_total(&env->lost))
		return;
	env->lost = l;
	if (recfile_write_lost(env->w, &l))
		env->werr = -EIO;
	else
		env->lost_records++;
}

struct pend_write {
	struct record_env *env;
	uint64_t now;
};

static int write_pending(void *ctx, const struct pending_req *q)
{
	struct pend_write *p = ctx;
	struct recfile_pending r = { p->now, *q };

	if (recfile_write_pending(p->env->w, &r)) {
		p->env->werr = -EIO;
		return -EIO;
	}
	return 0;
}

/* the end of a whole recording: the requests still pending then */
static void write_all_pending(struct record_env *env, struct tracer *t)
{
	struct pend_write p = { env, tracer_now_ns() };

	tracer_inflight_foreach(t, write_pending, &p);
}

static int walk_inflight(void *walk_ctx, flight_pending_cb cb, void *cb_ctx)
{
	return tracer_inflight_foreach(walk_ctx, cb, cb_ctx);
}

struct stuck_scan {
	struct flight *fl;
	uint64_t now;
};

static int check_stuck(void *ctx, const struct pending_req *q)
{
	struct stuck_scan *s = ctx;

	flight_check_pending(s->fl, q, s->now);
	return s->fl->fired;	/* one is enough */
}

/* --ring: the signal trigger, the stuck trigger (@scan: on the queue-depth tick, as
 * the in-flight table's walk is not for every wake-up), and a dump if one fired */
static void flight_tick(struct record_env *env, struct tracer *t,
			const struct recfile_header *h, bool scan)
{
	struct recfile_lost lost;
	char path[PATH_MAX];
	uint64_t nreq = 0, npend = 0, now = tracer_now_ns();
	int rc;

	if (usr1) {
		usr1 = 0;
		flight_fire_signal(&env->fl);
	}
	if (scan && env->fl.stuck_ns && !env->fl.fired) {
		struct stuck_scan s = { &env->fl, now };

		tracer_inflight_foreach(t, check_stuck, &s);
		env->fl.stuck_seen_ns = now;
	}
	if (!env->fl.fired)
		return;
	read_lost(t, &lost);
	env->lost = lost;
	rc = flight_dump(&env->fl, h, now, &lost, walk_inflight, t, path, sizeof(path),
			 &nreq, &npend);
	if (rc < 0) {
		p_err("writing a dump into %s: %s", env->out, strerror(-rc));
		env->werr = rc;
	} else if (rc > 0) {
		fprintf(stderr, "dump %u: %s: %llu requests, %llu pending (%s)\n",
			env->fl.dumps, path, (unsigned long long)nreq, (unsigned long long)npend,
			env->fl.cause);
	}
}

/* --ring: -o names a directory, made if missing */
static int flight_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(dir, W_OK | X_OK) ? -errno : 0;
}

/* the output: the --ring directory, or the recording file (its descriptor) */
static int open_output(struct record_env *env, int *fd)
{
	int rc;

	*fd = -1;
	if (env->flight) {
		rc = flight_dir(env->out);
		if (rc)
			p_err("%s: %s (--ring writes its dumps into a directory)", env->out,
			      strerror(-rc));
		return rc;
	}
	*fd = open(env->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (*fd < 0) {
		p_err("%s: %s", env->out, strerror(errno));
		return -errno;
	}
	return 0;
}

/* the header every recording and dump starts with; the caller frees argv and knobs */
static void fill_header(struct recfile_header *h, struct tracer *t, int argc, char **argv)
{
	struct timespec rt;
	struct utsname u;

	if (!uname(&u)) {
		snprintf(h->host, sizeof(h->host), "%s", u.nodename);
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	}
	snprintf(h->mode, sizeof(h->mode), "%s", tracer_mode_name(t));
	h->start_mono_ns = tracer_now_ns();
	clock_gettime(CLOCK_REALTIME, &rt);
	h->start_real_ns = (uint64_t)rt.tv_sec * 1000000000ULL + (uint64_t)rt.tv_nsec;
	h->argv = argv_list(argc, argv, &h->argv_len);
	h->knobs = aiodev_knobs(&h->knobs_len);
}

static void announce(const struct record_env *env, struct tracer *t)
{
	if (env->t.o.verbose)
		tracer_describe(t, stderr);
	if (env->flight)
		fprintf(stderr, "Tracing asynchronous I/O into a flight recorder: the last %.1f s "
			"in memory, dumps into %s (at most %u; mode %s)... Hit Ctrl-C to end.\n",
			env->fl.ring_ns / 1e9,
			env->out, env->fl.max_dumps, tracer_mode_name(t));
	else
		fprintf(stderr, "Tracing asynchronous I/O into %s (mode %s)... Hit Ctrl-C to "
			"end.\n", env->out, tracer_mode_name(t));
}

/* events as they come, a queue-depth sample every 100 ms, and with --ring the
 * triggers; otherwise a flushed chunk and the lost counters every second */
static int record_loop(struct record_env *env, struct tracer *t,
		       const struct recfile_header *h)
{
	uint64_t end = 0, next_qd, next_flush;
	int rc;

	if (env->t.duration > 0)
		end = h->start_mono_ns + (uint64_t)(env->t.duration * 1e9);
	next_qd = h->start_mono_ns + QD_EVERY_NS;
	next_flush = h->start_mono_ns + FLUSH_EVERY_NS;
	while (!exiting && !env->werr) {
		uint64_t now = tracer_now_ns(), wake = next_qd;
		bool tick = false;
		int timeout;

		if (end && now >= end)
			break;
		if (end && end < wake)
			wake = end;
		timeout = wake > now ? (int)((wake - now) / 1000000) + 1 : 0;
		rc = tracer_poll(t, timeout, on_event, env);
		if (rc < 0 && !env->werr) {
			p_err("reading events: %s", strerror(-rc));
			return rc;
		}
		now = tracer_now_ns();
		if (now >= next_qd) {
			sample_qd(env, t);
			next_qd += QD_EVERY_NS * ((now - next_qd) / QD_EVERY_NS + 1);
			tick = true;
		}
		if (env->flight) {
			flight_tick(env, t, h, tick);
			if (env->fl.dumps >= env->fl.max_dumps) {
				fprintf(stderr, "%u dumps written (--max-dumps): ending\n",
					env->fl.dumps);
				return 0;
			}
			continue;
		}
		if (now >= next_flush) {
			write_lost(env, t, false);
			if (recfile_flush(env->w))
				env->werr = -EIO;
			next_flush = now + FLUSH_EVERY_NS;
		}
	}
	return 0;
}

static int finish_flight(struct record_env *env, struct tracer *t)
{
	read_lost(t, &env->lost);
	fprintf(stderr, "%u dumps into %s, %llu triggers within --ring of a dump not "
		"dumped, %llu records dropped early (ring full); %llu lost events; mode "
		"%s\n", env->fl.dumps, env->out, (unsigned long long)env->fl.suppressed,
		(unsigned long long)env->fl.evicted,
		(unsigned long long)recfile_lost_total(&env->lost), tracer_mode_name(t));
	return env->werr;
}

/* the end of a whole recording: what is left in the ring, the last sample, the
 * requests still pending (finished but not reaped ones are recorded with reap
 * "none"), the lost counters; then the summary */
static int finish_file(struct record_env *env, struct tracer *t, int fd)
{
	uint64_t records, bytes;

	if (!env->werr) {
		tracer_poll(t, 0, on_event, env);
		tracer_flush(t, on_event, env);
		sample_qd(env, t);
		write_all_pending(env, t);
		write_lost(env, t, true);
	}
	records = recfile_records(env->w);
	if (recfile_finish(env->w) && !env->werr)
		env->werr = -EIO;
	bytes = (uint64_t)lseek(fd, 0, SEEK_END);
	if (close(fd) && !env->werr)
		env->werr = -errno;
	if (env->werr) {
		p_err("writing %s: %s", env->out, strerror(-env->werr));
		return -1;
	}
	fprintf(stderr, "%llu records (%llu requests, %llu queue-depth samples, %llu "
		"lost-event counters), %llu bytes to %s; %llu lost events; mode %s\n",
		(unsigned long long)records, (unsigned long long)env->events,
		(unsigned long long)env->qd_samples, (unsigned long long)env->lost_records,
		(unsigned long long)bytes, env->out,
		(unsigned long long)recfile_lost_total(&env->lost), tracer_mode_name(t));
	return 0;
}

int cmd_record(int argc, char **argv)
{
	static const struct argp_child children[] = { { &snoop_trace_argp, 0, NULL, 0 }, { 0 } };
	static const struct argp argp = { record_options, record_parse, NULL, record_doc,
					  children, NULL, NULL };
	struct record_env env = { 0 };
	struct recfile_header h = { 0 };
	struct tracer *t = NULL;
	char err[256];
	int rc, fd;

	env.t.o.events = true;
	if (argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	env.t.o.event_reap = !env.t.no_reap;
	env.t.o.qd = true;
	if (env.flight && !env.fl.max_dumps)
		env.fl.max_dumps = FLIGHT_MAX_DUMPS;
	env.fl.dir = env.out;

	if (open_output(&env, &fd))
		return EXIT_RUNTIME;
	rc = tracer_open(&t, &env.t.o, err, sizeof(err));
	if (rc) {
		p_err("%s", err);
		if (fd >= 0) {
			close(fd);
			unlink(env.out);
		}
		return rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	fill_header(&h, t, argc, argv);
	env.fl.stuck_seen_ns = h.start_mono_ns;
	if (!env.flight) {
		env.w = recfile_create(fd, &h, RECFILE_ENC_ZSTD, 3, err, sizeof(err));
		if (!env.w) {
			p_err("%s: %s", env.out, err);
			close(fd);
			rc = -1;
			goto out;
		}
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (env.flight)
		signal(SIGUSR1, on_signal);
	announce(&env, t);
	rc = record_loop(&env, t, &h);
	if (env.flight ? finish_flight(&env, t) : finish_file(&env, t, fd))
		rc = -1;
out:
	tracer_close(t);
	flight_free(&env.fl);
	free((char *)h.argv);
	free((char *)h.knobs);
	return rc ? EXIT_RUNTIME : EXIT_OK;
}
