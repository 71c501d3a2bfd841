// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a run's time goes: the end of each stage marked in its cost (wall
 * and CPU, sonde's and its checks' processes), findings.json cost.stages.
 */
#include <stdint.h>
#include <sys/resource.h>

#include "run/run.h"
#include "util/clock.h"

static int64_t cpu_ns_with_children(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (int64_t)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
			 kids.ru_stime.tv_sec) * 1000000000 +
	       (int64_t)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
			 kids.ru_stime.tv_usec) * 1000;
}

void run_cost__mark(struct run_cost *c, const char *stage)
{
	int64_t wall, cpu;

	if (!c)
		return;
	wall = clock__ns(CLOCK_MONOTONIC);
	cpu = cpu_ns_with_children();
	if (c->mark_wall_ns && c->nstages < RUN_COST_STAGES) {
		struct run_stage *s = &c->stages[c->nstages++];

		s->name = stage;
		s->wall_ms = (double)(wall - c->mark_wall_ns) / 1e6;
		s->cpu_ms = (double)(cpu - c->mark_cpu_ns) / 1e6;
	}
	c->mark_wall_ns = wall;
	c->mark_cpu_ns = cpu;
}
