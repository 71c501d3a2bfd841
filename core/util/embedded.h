/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Files compiled into the binary by build-aux/embedgen.c (see the Makefile). */
#ifndef SONDE_EMBEDDED_H
#define SONDE_EMBEDDED_H

#include <stddef.h>

struct embedded_file {
	const char *path; /* "checks/use/cpu-utilization.lua" */
	const char *data;
	size_t len;
};

/* Terminated by an entry with path == NULL. */
extern const struct embedded_file embedded_files[];

const struct embedded_file *embedded__find(const char *path);

#endif
