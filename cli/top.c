// SPDX-License-Identifier: GPL-2.0
/* aioscope top: live dashboard of asynchronous I/O (work in progress). */
#include <stdio.h>

int cmd_top(int argc, char **argv);

int cmd_top(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "Error: top is not built yet\n");
	return 1;
}
