// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/lua/result.c: the status words. status__severity reads a severity
 * back from a findings.json (sonde diff, sonde fleet, sonde show --metrics):
 * ok < warn < crit, with the values of the enum, and -1 for everything else;
 * status__parse any status (sonde show's matrix and findings).
 */
#include "lua/result.h"
#include "tap.h"

int main(void)
{
	static const char *const not_severities[] = { "unknown", "error", "skip", "n/a", "",
						      "Crit", "crit ", "severe" };

	is_int(status__severity("ok"), ST_OK, "ok is ST_OK (0)");
	is_int(status__severity("warn"), ST_WARN, "warn is ST_WARN (1)");
	is_int(status__severity("crit"), ST_CRIT, "crit is ST_CRIT (2)");
	is_int(status__severity(NULL), -1, "no severity (a missing key) is -1");
	for (size_t i = 0; i < sizeof(not_severities) / sizeof(*not_severities); i++)
		is_int(status__severity(not_severities[i]), -1, "'%s' is no severity: -1",
		       not_severities[i]);
	for (int st = ST_OK; st <= ST_ERROR; st++)
		is_int(status__severity(status__name(st)), st <= ST_CRIT ? st : -1,
		       "status__name(%d) = '%s' reads back", st, status__name(st));
	for (int st = ST_OK; st <= ST_ERROR; st++)
		is_int(status__parse(status__name(st)), st, "status__parse('%s') is %d",
		       status__name(st), st);
	is_int(status__parse("n/a"), -1, "n/a is no status (a cell that does not apply)");
	is_int(status__parse(NULL), -1, "nor is NULL");
	is_int(status__parse("Warn"), -1, "nor a word of another case");
	return tap_done();
}
