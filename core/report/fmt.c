// SPDX-License-Identifier: GPL-2.0-or-later
/* Values in their units, as every rendering of the report prints them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/model.h"

void report__fmt_value(char *buf, size_t len, double v, const char *unit)
{
	const char *u = unit ? unit : "";

	if (!strcmp(u, "%"))
		snprintf(buf, len, "%.1f%%", v);
	else if (!strcmp(u, "bytes")) {
		const char *sfx[] = { "B", "KiB", "MiB", "GiB", "TiB" };
		int k = 0;

		while (fabs(v) >= 1024 && k < 4)
			v /= 1024, k++;
		snprintf(buf, len, k ? "%.1f %s" : "%.0f %s", v, sfx[k]);
	} else if (!strcmp(u, "s") && fabs(v) >= 100) {
		/* durations people read: a time to exhaustion of 1.69e+05 s is 47 h */
		if (fabs(v) < 6000)
			snprintf(buf, len, "%.0f min", v / 60);
		else if (fabs(v) < 172800)
			snprintf(buf, len, "%.1f h", v / 3600);
		else
			snprintf(buf, len, "%.1f days", v / 86400);
	} else if (!strcmp(u, "ratio"))
		snprintf(buf, len, "%.2f", v);
	else if (*u)
		snprintf(buf, len, "%.4g %s", v, u);
	else
		snprintf(buf, len, "%.4g", v);
}
