// SPDX-License-Identifier: GPL-2.0
/* aioscope stuck: list pending requests older than a threshold (work in progress). */
#include <stdio.h>

int cmd_stuck(int argc, char **argv);

int cmd_stuck(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "Error: stuck is not built yet\n");
	return 1;
}
