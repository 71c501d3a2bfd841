/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Lua host: runs each check in a fresh sandboxed Lua 5.4 state with an
 * instruction, wall-clock and memory budget, in a child process.
 */
#ifndef SONDE_ENGINE_H
#define SONDE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "collect/analysis.h"
#include "lua/catalog.h"
#include "lua/result.h"

struct engine_limits {
	size_t mem_bytes;
	uint64_t instructions;
	double wall_s;
};

extern const struct engine_limits engine_default_limits;

/*
 * Run one check over the analysis in a fresh sandboxed state, in a child
 * process the caller kills past the wall budget. Never fails the caller:
 * errors, budget overruns, crashes and bad results become ST_ERROR with a
 * reason (and a traceback where Lua has one).
 */
void engine__run_check(const struct catalog *cat, const struct check_def *def,
		       struct analysis *an, const struct engine_limits *lim,
		       struct check_result *out);

#endif
