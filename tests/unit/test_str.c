// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/util/str.h: str__has_suffix, the one suffix test of the BPF variant
 * selector (trace.c), the scratch sweep's lock files (scratch.c) and the
 * redactor's file kinds (redact_files.c). Its edges are a string's, not a
 * file name's: a string equal to the suffix ends with it.
 */
#include "util/str.h"
#include "tap.h"

int main(void)
{
	ok(str__has_suffix("raw/proc.stat.cap", ".cap"), "a path ends with its extension");
	ok(!str__has_suffix("raw/proc.stat.cap", ".json"), "and not with another");
	ok(str__has_suffix(".lock", ".lock"), "a string equal to the suffix ends with it");
	ok(!str__has_suffix("lock", ".lock"), "a string shorter than the suffix does not");
	ok(!str__has_suffix("", ".cap"), "the empty string ends with no suffix but \"\"");
	ok(str__has_suffix("", ""), "every string ends with \"\"");
	ok(str__has_suffix("handle__sched_switch_btf", "_btf"),
	   "a program name ends with its variant");
	ok(!str__has_suffix("x.cap.gz", ".cap"), "only at the end: .cap inside the name is not it");
	ok(!str__has_suffix("report.HTML", ".html"), "case counts");
	ok(str__has_suffix("a.tar.xz", ".tar.xz") && !str__has_suffix("a.tar.xz", "tar.gz"),
	   "a suffix of several dots");
	return tap_done();
}
