// SPDX-License-Identifier: GPL-2.0
/*
 * t_aio - a small libaio client for the tracer tests: submits N 4 KiB reads in one
 * io_submit, optionally io_cancels the first C of them, reaps everything with
 * io_getevents and prints what it got:
 *   pid=P submitted=N done=D eio=E ecanceled=X other=O cancel_inprogress=I
 *
 *   t_aio [-n N] [-c C] [-d DATA] [-w FILE] [-W] [-x exit|destroy] PATH
 *     -d DATA   user data (aio_data) of the first request, DATA + i of the others
 *               (default 1)
 *     -w FILE   wait until FILE exists before submitting (lets a tracer attach first)
 *     -W        open for writing and submit writes instead of reads
 *     -x exit     exit right after submitting, without reaping anything
 *     -x destroy  io_destroy right after submitting, then sleep 3 s and exit
 */
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = 16, ncancel = 0, opt, fd, ret, i, write_mode = 0;
	unsigned long long data0 = 1;
	int done = 0, eio = 0, ecanceled = 0, other = 0, inprogress = 0;
	const char *waitfile = NULL, *unreaped = NULL;
	struct iocb *iocbs, **pp;
	struct io_event *ev;
	io_context_t ctx = 0;
	char *buf;

	while ((opt = getopt(argc, argv, "n:c:d:w:Wx:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 'c': ncancel = atoi(optarg); break;
		case 'd': data0 = strtoull(optarg, NULL, 0); break;
		case 'w': waitfile = optarg; break;
		case 'W': write_mode = 1; break;
		case 'x': unreaped = optarg; break;
		default:
			fprintf(stderr, "usage: t_aio [-n N] [-c C] [-d DATA] [-w FILE] [-W] [-x exit|destroy] PATH\n");
			return 2;
		}
	}
	if (optind >= argc || n <= 0 || ncancel < 0 || ncancel > n ||
	    (unreaped && strcmp(unreaped, "exit") && strcmp(unreaped, "destroy"))) {
		fprintf(stderr, "usage: t_aio [-n N] [-c C] [-d DATA] [-w FILE] [-W] [-x exit|destroy] PATH\n");
		return 2;
	}
	fd = open(argv[optind], write_mode ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		perror(argv[optind]);
		return 1;
	}
	iocbs = calloc(n, sizeof(*iocbs));
	pp = calloc(n, sizeof(*pp));
	ev = calloc(n, sizeof(*ev));
	if (!iocbs || !pp || !ev || posix_memalign((void **)&buf, 4096, 4096 * (size_t)n))
		return 1;
	memset(buf, 'a', 4096 * (size_t)n);
	ret = io_setup(n, &ctx);
	if (ret) {
		fprintf(stderr, "io_setup: %s\n", strerror(-ret));
		return 1;
	}
	while (waitfile && access(waitfile, F_OK))
		usleep(10000);
	for (i = 0; i < n; i++) {
		if (write_mode)
			io_prep_pwrite(&iocbs[i], fd, buf + 4096 * (size_t)i, 4096, 4096LL * i);
		else
			io_prep_pread(&iocbs[i], fd, buf + 4096 * (size_t)i, 4096, 4096LL * i);
		iocbs[i].data = (void *)(unsigned long)(data0 + i);
		pp[i] = &iocbs[i];
	}
	ret = io_submit(ctx, n, pp);
	if (ret != n) {
		fprintf(stderr, "io_submit: %d\n", ret);
		return 1;
	}
	if (unreaped) {
		printf("pid=%d submitted=%d unreaped\n", getpid(), n);
		fflush(stdout);
		if (!strcmp(unreaped, "destroy")) {
			io_destroy(ctx);
			sleep(3);
		}
		_exit(0);
	}
	for (i = 0; i < ncancel; i++) {
		struct io_event r;

		ret = io_cancel(ctx, &iocbs[i], &r);
		if (ret == -EINPROGRESS || ret == 0)
			inprogress++;
	}
	for (int got = 0; got < n;) {
		ret = io_getevents(ctx, 1, n - got, ev, NULL);
		if (ret < 0) {
			if (ret == -EINTR)
				continue;
			fprintf(stderr, "io_getevents: %s\n", strerror(-ret));
			return 1;
		}
		for (i = 0; i < ret; i++) {
			long res = (long)ev[i].res;

			if (res == 4096)
				done++;
			else if (res == -EIO)
				eio++;
			else if (res == -ECANCELED)
				ecanceled++;
			else
				other++;
		}
		got += ret;
	}
	io_destroy(ctx);
	printf("pid=%d submitted=%d done=%d eio=%d ecanceled=%d other=%d cancel_inprogress=%d\n",
	       getpid(), n, done, eio, ecanceled, other, inprogress);
	return 0;
}
