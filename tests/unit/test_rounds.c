// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/collect/pids.c: when a round skips its pass over the processes. A
 * window of rounds is played with a given cost per pass: on a small host
 * every round reads; past 1% of a CPU per interval every other middle round
 * is skipped, never two in a row, never the first or the last; the budget
 * scales with the interval.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "collect/collect.h"
#include "collect/collectors.h"
#include "tap.h"

/*
 * Plays rounds 0..n-1 (first, middle..., last) as pids__sample does: the
 * cost of a middle round's pass decides the next. ran[i] says whether round
 * i read; returns how many were skipped.
 */
static int play(int n, double interval_s, int64_t cost_ns, char *ran)
{
	int64_t last = 0;
	int skipped_last = 0, nskipped = 0;

	for (int i = 0; i < n; i++) {
		int phase = i == 0 ? PHASE_FIRST : i == n - 1 ? PHASE_LAST : 0;
		int skip = pids__skip_policy(last, interval_s, skipped_last, phase);

		skipped_last = skip;
		ran[i] = skip ? '-' : 'r';
		nskipped += skip;
		if (!skip && !phase)
			last = cost_ns;
	}
	ran[n] = '\0';
	return nskipped;
}

int main(void)
{
	char ran[64];

	is_int(play(11, 1.0, 5000000, ran), 0, "5 ms a pass at 1 s: no round skipped");
	is_str(ran, "rrrrrrrrrrr", "... every round read");
	is_int(play(11, 1.0, 10000000, ran), 0, "10 ms, the budget itself: none skipped");
	is_int(play(11, 1.0, 30000000, ran), 4, "30 ms a pass at 1 s: 4 of the 9 middle rounds skipped");
	is_str(ran, "rr-r-r-r-rr", "... every other one, the first, the first middle and the last read");
	ok(!strstr(ran, "--"), "never two rounds in a row");
	is_int(play(11, 5.0, 30000000, ran), 0, "30 ms at 5 s (50 ms budget): none skipped");
	is_int(play(11, 0.5, 8000000, ran), 4, "8 ms at 0.5 s (5 ms budget): skipped");
	is_int(play(2, 1.0, 1000000000, ran), 0, "a window of first and last round only: nothing to skip");
	is_int(play(3, 1.0, 1000000000, ran), 0,
	       "one middle round: its cost is known only after it, so it reads");
	is_int(pids__skip_policy(50000000, 1.0, 0, PHASE_FIRST), 0, "the first round always reads");
	is_int(pids__skip_policy(50000000, 1.0, 0, PHASE_LAST), 0, "the last round always reads");
	is_int(pids__skip_policy(50000000, 1.0, 1, 0), 0, "a round after a skipped one reads");
	is_int(pids__skip_policy(50000000, 0, 0, 0), 1, "no interval known: one second is assumed");
	return tap_done();
}
