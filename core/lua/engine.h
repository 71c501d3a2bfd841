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
 * process killed past the wall budget. Never fails the caller:
 * errors, budget overruns, crashes and bad results become ST_ERROR with a
 * reason (and a traceback where Lua has one).
 */
void engine__run_check(const struct catalog *cat, const struct check_def *def,
		       struct analysis *an, const struct engine_limits *lim,
		       struct check_result *out);

/* Most checks run at once (engine__run_checks). */
#define ENGINE_MAX_JOBS 4

/*
 * The same for n checks, up to jobs of them at once (in as many worker
 * processes, each check in a fresh state under its own deadline); out[i] is
 * defs[i]'s result, as if they had run one after the other.
 */
void engine__run_checks(const struct catalog *cat, const struct check_def *const *defs,
			size_t n, struct analysis *an, const struct engine_limits *lim,
			unsigned jobs, struct check_result *out);

/*
 * How many checks to run at once on this host: its online CPUs, at most
 * ENGINE_MAX_JOBS (SONDE_BENCH_CHECK_JOBS, for `make bench`, says otherwise).
 */
unsigned engine__jobs(void);

#endif
