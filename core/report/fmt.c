// SPDX-License-Identifier: GPL-2.0-or-later
/* Values in their units, as every rendering of the report prints them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/model.h"

/*
 * A unit that is a counted noun in the plural ("threads", "failures"), so
 * that one of it reads "1 thread" and "1 CPU": letters ending in 's', not a
 * unit symbol ("s", "ms", "us", "ns") nor a rate ("packets/s").
 */
static int singular(const char *u)
{
	static const char *const symbols[] = { "s", "ms", "us", "ns", "bytes" };
	size_t n = strlen(u);

	for (size_t i = 0; i < sizeof(symbols) / sizeof(*symbols); i++)
		if (!strcmp(u, symbols[i]))
			return 0;
	if (n < 3 || u[n - 1] != 's' || u[n - 2] == 's')
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((u[i] < 'a' || u[i] > 'z') && (u[i] < 'A' || u[i] > 'Z'))
			return 0;
	return 1;
}

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
	else if (*u && v == 1 && singular(u))
		snprintf(buf, len, "1 %.*s", (int)strlen(u) - 1, u);
	else if (*u)
		snprintf(buf, len, "%.4g %s", v, u);
	else
		snprintf(buf, len, "%.4g", v);
}
