// SPDX-License-Identifier: GPL-2.0
/*
 * latency_profile and seed: bad profiles refused with EINVAL (the old one kept),
 * an empty line back to latency_ns, the percentiles of a bimodal profile (drawn by
 * the driver, and measured through io_submit), the same delays and errors for the
 * same seed, profiles replaced under load. `t_profile exit-inflight` (for
 * tests/driver/run's rmmod check) exits with requests in flight under a profile.
 *
 * The driver's drawn delay of each request is the `lat_ns` of its aiodev_submit
 * event; the events of one submitter come in admission order.
 */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define US 1000ull
#define MS 1000000ull
#define TRACE "/sys/kernel/tracing"
#define KNOB "latency_profile"
#define MAXREQ 4000

static char buf[64][4096];

struct bucket {
	uint64_t bound;		/* upper bound, ns */
	uint64_t weight;
};

/* ---- helpers ---- */

/* aiodev_submit (and, with @complete, aiodev_complete) on, from an empty buffer; or off */
static void trace_events(bool on, bool complete)
{
	const char *v = on ? "1" : "0";

	if (on && write_file(TRACE "/trace", ""))
		die("cannot clear " TRACE "/trace");
	if (write_file(TRACE "/events/aiodev/aiodev_submit/enable", v) ||
	    write_file(TRACE "/events/aiodev/aiodev_complete/enable", complete ? v : "0"))
		die("cannot switch the aiodev tracepoints");
}

/*
 * The lat_ns of aiodev0's @event events ("aiodev_submit", "aiodev_complete") in
 * the trace buffer, in order, into @lat (at most @max): the count.
 */
static int trace_lat(const char *event, uint64_t *lat, int max)
{
	char line[512], tag[64];
	FILE *f = fopen(TRACE "/trace", "r");
	int n = 0;

	if (!f)
		die("cannot read " TRACE "/trace");
	snprintf(tag, sizeof(tag), " %s: ", event);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, tag);
		unsigned long long v;

		if (!p || !strstr(p, " minor=0 "))
			continue;
		p = strstr(p, " lat_ns=");
		if (!p || sscanf(p, " lat_ns=%llu", &v) != 1)
			continue;
		if (n < max)
			lat[n] = v;
		n++;
	}
	fclose(f);
	return n;
}

static void profile_text(const struct bucket *b, int n, char *out, size_t len)
{
	size_t off = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += snprintf(out + off, len - off, "%llu %llu\n",
				(unsigned long long)b[i].bound, (unsigned long long)b[i].weight);
}

/* The profile's q-quantile (0 < q < 1): uniform inside each bucket. */
static double profile_quantile(const struct bucket *b, int n, double q)
{
	double total = 0, cum = 0, target, lo = 0;
	int i;

	for (i = 0; i < n; i++)
		total += b[i].weight;
	target = q * total;
	for (i = 0; i < n; i++) {
		if (b[i].weight && cum + b[i].weight >= target)
			return lo + (target - cum) / b[i].weight * (b[i].bound - lo);
		cum += b[i].weight;
		lo = b[i].bound;
	}
	return lo;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank q-quantile of @n values (sorted in place). */
static uint64_t quantile(uint64_t *v, int n, int permille)
{
	int idx = (int)(((long long)permille * n + 999) / 1000) - 1;

	qsort(v, n, sizeof(*v), cmp_u64);
	return v[idx < 0 ? 0 : idx];
}

static bool knob_is(const char *want)
{
	char got[8192];

	return !read_knob(KNOB, got, sizeof(got)) && !strcmp(got, want);
}

/* Submits @n reads in one io_submit (admission in array order) and reaps them all. */
static void batch(int fd, io_context_t ctx, int n, struct io_event *ev, int timeout_ms)
{
	struct iocb cbs[64], *cbp[64];
	int i;

	for (i = 0; i < n; i++) {
		io_prep_pread(&cbs[i], fd, buf[i], 4096, (long long)i * 4096);
		cbs[i].data = (void *)(long)i;
		cbp[i] = &cbs[i];
	}
	submit_all(ctx, cbp, n);
	if (reap(ctx, ev, n, timeout_ms) != n)
		die("%d reads did not complete within %d ms", n, timeout_ms);
}

/* ---- the knob: bad profiles refused, the old one kept; good ones read back ---- */

#define T(why, s) { why, s, sizeof(s) - 1 }
static const struct {
	const char *why, *text;
	size_t len;
} bad_profiles[] = {
	T("unsorted bounds", "200000 1\n100000 1\n"),
	T("a repeated bound", "100000 1\n100000 1\n"),
	T("a negative bound", "-100000 1\n"),
	T("a negative weight", "100000 -1\n"),
	T("weights summing to 0", "100000 0\n200000 0\n"),
	T("a bound over 1 h", "3600000000001 1\n"),
	T("a bound over 2^64", "18446744073709551616 1\n"),
	T("a weight over 2^32-1", "100000 4294967296\n"),
	T("one field", "100000\n"),
	T("three fields", "100000 1 1\n"),
	T("a comment after a bucket", "100000 1 # fast\n"),
	T("a sign", "+100000 1\n"),
	T("hex", "0x100 1\n"),
	T("a fraction", "100000 1.5\n"),
	T("a word", "fast 1\n"),
	T("a CR", "100000 1\r\n"),
	T("a NUL byte", "100000 1\n\0 200000 1\n"),
	T("errors without a bucket", "errors 5\n"),
	T("errors over a million", "100000 1\nerrors 1000001\n"),
	T("errors twice", "100000 1\nerrors 1\nerrors 2\n"),
	T("errors without a value", "100000 1\nerrors\n"),
};

static void test_knob(void)
{
	static const char good[] = "# two buckets\n\n100000 1\n200000\t3\n   \n";
	static const char canon[] = "100000 1\n200000 3\n";
	static char text[8192];
	struct bucket many[257];
	char name[160];
	size_t i;
	int err;

	check(knob_is(""), "latency_profile: empty by default", "reads something");
	err = write_knob(KNOB, good);
	check(!err && knob_is(canon),
	      "latency_profile: a profile with a comment, blank lines and a tab reads back as 'LAT_NS WEIGHT' lines",
	      "err=%d", err);

	for (i = 0; i < sizeof(bad_profiles) / sizeof(bad_profiles[0]); i++) {
		err = aiodev_knob_write_raw(0, KNOB, bad_profiles[i].text, bad_profiles[i].len);
		snprintf(name, sizeof(name), "latency_profile: %s refused with EINVAL, the old profile kept",
			 bad_profiles[i].why);
		check(err == -EINVAL && knob_is(canon), name, "err=%d", err);
	}
	for (i = 0; i < 257; i++)
		many[i] = (struct bucket){ 1000 * (i + 1), i % 3 };
	profile_text(many, 257, text, sizeof(text));
	err = write_knob(KNOB, text);
	check(err == -EINVAL && knob_is(canon),
	      "latency_profile: 257 buckets refused with EINVAL, the old profile kept", "err=%d", err);
	profile_text(many, 256, text, sizeof(text));
	err = write_knob(KNOB, text);
	check(!err && knob_is(text), "latency_profile: 256 buckets accepted and read back",
	      "err=%d", err);

	err = write_knob(KNOB, "0 1\n1000 0\n2000 3\nerrors 250\n");
	check(!err && knob_is("0 1\n1000 0\n2000 3\nerrors 250\n"),
	      "latency_profile: a bucket at 0, an empty bucket and an errors line accepted",
	      "err=%d", err);
	err = write_knob(KNOB, "# nothing but a comment\n");
	check(!err && knob_is(""), "latency_profile: a comment alone clears it", "err=%d", err);
	write_knob(KNOB, canon);
	err = write_knob(KNOB, "\n");
	check(!err && knob_is(""), "latency_profile: an empty line clears it", "err=%d", err);
}

/* ---- an empty line returns to latency_ns ---- */

static uint64_t batch_ns(int fd, io_context_t ctx, int n)
{
	struct io_event ev[64];
	uint64_t t0 = now_ns();

	batch(fd, ctx, n, ev, 5000);
	return now_ns() - t0;
}

static void test_back_to_latency_ns(void)
{
	int fd = open_dev(O_RDWR);
	io_context_t ctx = 0;
	struct iovec iov = { buf[0], 4096 };
	uint64_t t_prof, t_lat;
	ssize_t r;

	if (io_setup(64, &ctx))
		die("io_setup");
	set_knob("latency_ns", "100000000");
	set_knob(KNOB, "1000 1\n");
	t_prof = batch_ns(fd, ctx, 8);
	check(t_prof < 50 * MS && knob_u64("latency_ns") == 100 * MS,
	      "latency_profile: with a profile of delays <= 1 us, latency_ns=100 ms is not used",
	      "8 reads took %llu us", (unsigned long long)(t_prof / US));
	set_knob("latency_ns", "0");
	r = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
	check(r < 0 && errno == EAGAIN,
	      "latency_profile: a synchronous RWF_NOWAIT read gets EAGAIN while a profile is set",
	      "preadv2 returned %zd (%s)", r, r < 0 ? strerror(errno) : "no error");
	set_knob("latency_ns", "100000000");
	set_knob(KNOB, "\n");
	t_lat = batch_ns(fd, ctx, 8);
	check(t_lat >= 100 * MS && t_lat < 1000 * MS,
	      "latency_profile: an empty line returns to latency_ns (8 reads in 100 ms .. 1 s)",
	      "took %llu us", (unsigned long long)(t_lat / US));
	set_knob("latency_ns", "0");
	io_destroy(ctx);
	close(fd);
}

/* ---- a bimodal profile: 95 % at ~200 us, 5 % at ~8 ms ---- */

static const struct bucket bimodal[] = {
	{ 190000, 0 }, { 210000, 95 }, { 7900000, 0 }, { 8100000, 5 },
};
#define NBIMODAL ((int)(sizeof(bimodal) / sizeof(bimodal[0])))

static uint64_t meas[MAXREQ], drawn[MAXREQ], drv[MAXREQ];

/* One read at a time (queue depth 1): its latency from io_submit to io_getevents. */
static void run_serial(int fd, io_context_t ctx, int n)
{
	struct io_event ev;
	struct iocb cb, *cbp = &cb;
	int i;

	for (i = 0; i < n; i++) {
		uint64_t t0;

		io_prep_pread(&cb, fd, buf[0], 4096, (long long)(i % 64) * 4096);
		t0 = now_ns();
		submit_all(ctx, &cbp, 1);
		if (reap(ctx, &ev, 1, 5000) != 1 || ev.res != 4096)
			die("read %d did not complete", i);
		meas[i] = now_ns() - t0;
	}
}

/*
 * The stated tolerances: the delays the driver draws are within 2 % of the
 * profile's percentiles (a property of the sampler; 3000 draws). A measured
 * latency adds the timer's lateness and the wake-up of io_getevents to the
 * drawn delay, never less: -2 % .. +5 % + 1 ms. Under qemu TCG on a loaded
 * host that addition was 60-170 us at p50 and 150-600 us at p90 (6.1 .. 7.2);
 * 1 ms still keeps p50 and p90 far from the 8 ms mode and p99 in it. On the
 * debug kernel (KASAN, lockdep) submit and timer paths take 10-20 times as long
 * (a debug run: 1.4 ms added at p90 of the driver's own latencies, 1.8 ms at p50
 * of the measured ones): 5 ms there, which still keeps p50 and p90 below 8 ms.
 */
static double timing_slack_ns(void)
{
	return (debug_kernel() ? 5000.0 : 1000.0) * US;
}

static void check_pct(const char *what, uint64_t *v, int n, double slack_ns, double rel_hi)
{
	static const int pm[] = { 500, 900, 990 };
	char name[200], why[300] = "";
	bool good = true;
	int i;

	for (i = 0; i < 3; i++) {
		double want = profile_quantile(bimodal, NBIMODAL, pm[i] / 1000.0);
		uint64_t got = quantile(v, n, pm[i]);
		size_t off = strlen(why);

		snprintf(why + off, sizeof(why) - off, "p%g %llu us (profile %.0f us) ",
			 pm[i] / 10.0, (unsigned long long)(got / US), want / US);
		if (got < want * 0.98 || got > want * rel_hi + slack_ns)
			good = false;
	}
	snprintf(name, sizeof(name), "bimodal profile: %s p50/p90/p99 within -2 %% .. +%.0f %%%s of the profile's",
		 what, (rel_hi - 1) * 100, slack_ns ? (slack_ns > 1000.0 * US ? " + 5 ms" : " + 1 ms") : "");
	check(good, name, "%s", why);
	if (good)
		printf("# %s: %s\n", what, why);
}

static void test_bimodal(void)
{
	enum { N = 3000 };
	int fd = open_dev(O_RDWR), i, nd, nc, slow = 0, early = 0;
	static char text[512];
	io_context_t ctx = 0;

	if (io_setup(4, &ctx))
		die("io_setup");
	profile_text(bimodal, NBIMODAL, text, sizeof(text));
	set_knob(KNOB, text);
	set_knob("seed", "1");
	trace_events(true, true);
	run_serial(fd, ctx, N);
	trace_events(false, false);
	nd = trace_lat("aiodev_submit", drawn, MAXREQ);
	nc = trace_lat("aiodev_complete", drv, MAXREQ);
	set_knob(KNOB, "\n");
	io_destroy(ctx);
	close(fd);
	if (!check(nd == N && nc == N, "bimodal profile: one submit and one complete event per read",
		   "%d submits, %d completes for %d reads", nd, nc, N))
		return;
	for (i = 0; i < N; i++) {
		slow += drawn[i] > 7900000;
		early += meas[i] < drawn[i] || drv[i] < drawn[i];
	}
	check(early == 0, "bimodal profile: no read completes before its drawn delay",
	      "%d of %d did", early, N);
	/* 5 % of 3000: 150, standard deviation 12 */
	check(slow >= 100 && slow <= 200, "bimodal profile: about 5 % of the delays drawn in the 8 ms mode",
	      "%d of %d", slow, N);
	check_pct("drawn delays (aiodev_submit lat_ns)", drawn, N, 0, 1.02);
	check_pct("driver latencies (aiodev_complete lat_ns)", drv, N, timing_slack_ns(), 1.05);
	check_pct("latencies measured io_submit -> io_getevents", meas, N, timing_slack_ns(), 1.05);
}

/* ---- the same seed, the same sequence ---- */

/* The delays drawn for @n reads submitted in batches of 50 after seed=@seed. */
static int drawn_sequence(int fd, io_context_t ctx, const char *seed, uint64_t *lat, int n)
{
	struct io_event ev[64];
	int i;

	set_knob("seed", seed);
	trace_events(true, false);
	for (i = 0; i < n; i += 50)
		batch(fd, ctx, 50, ev, 5000);
	trace_events(false, false);
	return trace_lat("aiodev_submit", lat, n);
}

static void test_seed(void)
{
	enum { N = 200 };
	static uint64_t a[N], b[N], c[N], d[N], e[N];
	int fd = open_dev(O_RDWR), na, nb, nc, nd, ne, distinct = 0, i;
	io_context_t ctx = 0;

	if (io_setup(64, &ctx))
		die("io_setup");
	set_knob(KNOB, "100000 1\n1000000 1\n");
	na = drawn_sequence(fd, ctx, "4242", a, N);
	nb = drawn_sequence(fd, ctx, "4242", b, N);
	nc = drawn_sequence(fd, ctx, "4243", c, N);
	for (i = 0; i < N; i++)
		distinct += a[i] != a[0];
	check(na == N && nb == N && distinct > 0 && !memcmp(a, b, sizeof(a)),
	      "seed: the same seed gives the same 200 drawn delays (aiodev_submit lat_ns, in admission order)",
	      "%d and %d events, %d differ from the first", na, nb, distinct);
	check(nc == N && memcmp(a, c, sizeof(a)),
	      "seed: another seed gives another sequence", "%d events", nc);
	nd = drawn_sequence(fd, ctx, "0", d, N);
	ne = drawn_sequence(fd, ctx, "0", e, N);
	check(nd == N && ne == N && memcmp(d, e, sizeof(d)),
	      "seed: seed 0 gives a random sequence each time", "%d and %d events", nd, ne);

	/* jitter draws from the same generator */
	set_knob(KNOB, "\n");
	set_knob("jitter_ns", "1000000");
	na = drawn_sequence(fd, ctx, "99", a, N);
	nb = drawn_sequence(fd, ctx, "99", b, N);
	for (i = 0, distinct = 0; i < N; i++)
		distinct += a[i] != a[0] && a[i] <= 1000000;
	check(na == N && nb == N && distinct > 0 && !memcmp(a, b, sizeof(a)),
	      "seed: latency_ns + jitter_ns delays repeat with the seed too", "%d and %d events",
	      na, nb);
	set_knob("jitter_ns", "0");
	set_knob("seed", "0");
	io_destroy(ctx);
	close(fd);
}

/* Which of 200 reads fail under "errors 250000" after seed=7: a bitmap, the count. */
static int failing_reads(int fd, io_context_t ctx, unsigned char *fail)
{
	struct io_event ev[64];
	int i, j, n = 0;

	set_knob("seed", "7");
	for (i = 0; i < 200; i += 50) {
		batch(fd, ctx, 50, ev, 5000);
		for (j = 0; j < 50; j++) {
			long k = i + (long)ev[j].data;
			bool f = (long)ev[j].res == -EIO;

			fail[k] = f;
			n += f;
		}
	}
	return n;
}

static void test_errors(void)
{
	unsigned char f1[200], f2[200];
	struct aiodev_stats s0, s1;
	int fd = open_dev(O_RDWR), n1, n2;
	io_context_t ctx = 0;

	if (io_setup(64, &ctx))
		die("io_setup");
	set_knob(KNOB, "1000 1\nerrors 250000\n");
	read_stats(&s0);
	n1 = failing_reads(fd, ctx, f1);
	read_stats(&s1);
	n2 = failing_reads(fd, ctx, f2);
	set_knob(KNOB, "\n");
	set_knob("seed", "0");
	/* 25 % of 200: 50, standard deviation 6 */
	check(n1 >= 20 && n1 <= 80 && s1.failed - s0.failed == (uint64_t)n1,
	      "errors 250000: about a quarter of the reads fail with EIO, counted as failed",
	      "%d of 200 failed, stats failed +%llu", n1,
	      (unsigned long long)(s1.failed - s0.failed));
	check(n1 == n2 && !memcmp(f1, f2, sizeof(f1)),
	      "errors 250000: the same seed fails the same reads", "%d then %d failed", n1, n2);
	io_destroy(ctx);
	close(fd);
}

/* ---- profiles replaced while requests are admitted ---- */

static volatile int stop;
static int swap_reads;

static void *swap_load(void *arg)
{
	int fd = open_dev(O_RDWR);
	struct io_event ev[64];
	io_context_t ctx = 0;

	(void)arg;
	if (io_setup(16, &ctx))
		die("io_setup");
	while (!stop) {
		batch(fd, ctx, 16, ev, 5000);
		swap_reads += 16;
	}
	io_destroy(ctx);
	close(fd);
	return NULL;
}

static void test_swap(void)
{
	static const char *const prof[] = { "1000 1\n", "1000000 0\n2000000 1\n", "\n" };
	struct aiodev_stats st;
	pthread_t th;
	uint64_t t0;
	int i, n, odd = 0, writes = 0;

	set_knob("latency_ns", "5000");
	trace_events(true, false);
	stop = 0;
	if (pthread_create(&th, NULL, swap_load, NULL))
		die("pthread_create");
	t0 = now_ns();
	while (now_ns() - t0 < 1000 * MS)
		write_knob(KNOB, prof[writes++ % 3]);
	stop = 1;
	pthread_join(th, NULL);
	trace_events(false, false);
	n = trace_lat("aiodev_submit", drawn, MAXREQ);
	if (n > MAXREQ)
		n = MAXREQ;
	/* each delay from one whole table: (0, 1 us], (1 ms, 2 ms], or latency_ns */
	for (i = 0; i < n; i++)
		odd += !((drawn[i] >= 1 && drawn[i] <= 1000) ||
			 (drawn[i] > 1000000 && drawn[i] <= 2000000) || drawn[i] == 5000);
	read_stats(&st);
	check(n >= 100 && odd == 0 && st.inflight == 0 && aiodev_stats_consistent(&st),
	      "latency_profile: replaced under load, every delay comes from one whole profile",
	      "%d profile writes, %d reads, %d delays checked, %d from no profile, inflight %llu",
	      writes, swap_reads, n, odd, (unsigned long long)st.inflight);
	set_knob(KNOB, "\n");
	set_knob("latency_ns", "0");
}

/* ---- exit with requests in flight under a profile (rmmod follows, in run) ---- */

static int exit_inflight(void)
{
	int status, i;
	pid_t pid;

	set_knob(KNOB, "20000000 1\n50000000 1\n");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		int fd = open_dev(O_RDWR);
		struct iocb cbs[32], *cbp[32];
		struct io_uring ring;
		io_context_t ctx = 0;

		if (io_setup(32, &ctx) || io_uring_queue_init(32, &ring, 0))
			_exit(3);
		for (i = 0; i < 32; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_prep_pread(&cbs[i], fd, buf[i], 4096, (long long)i * 4096);
			cbp[i] = &cbs[i];
			io_uring_prep_read(sqe, fd, buf[32 + i], 4096, (long long)i * 4096);
		}
		submit_all(ctx, cbp, 32);
		if (io_uring_submit(&ring) != 32)
			_exit(4);
		_exit(0);	/* 64 reads of 20..50 ms in flight */
	}
	/* and the table replaced while they are */
	for (i = 0; i < 20; i++)
		write_knob(KNOB, i % 2 ? "30000000 1\n" : "20000000 1\n50000000 1\n");
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "latency_profile: a process exits with 32 libaio and 32 io_uring reads in flight",
	      "child status 0x%x", status);
	return failures() ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exit-inflight"))
		return exit_inflight();
	reset_knobs();
	test_knob();
	reset_knobs();
	test_back_to_latency_ns();
	reset_knobs();
	test_bimodal();
	reset_knobs();
	test_seed();
	reset_knobs();
	test_errors();
	reset_knobs();
	test_swap();
	reset_knobs();
	return failures() ? 1 : 0;
}
