#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A short libFuzzer pass over every target (make fuzz runs longer ones). A
# crash leaves its input in build/fuzz/crash-<target>-*: add it to
# tests/fuzz/corpus/<target>/ as a regression seed once fixed.
. tests/lib/tap.sh

SECONDS_PER_TARGET=${FUZZ_SECONDS:-20}
command -v clang >/dev/null || skip_all "clang is not installed (make deps)"
make -s fuzz-build >"${TMPDIR:-/tmp}/sonde-fuzz-build.log" 2>&1 ||
	skip_all "fuzz targets do not build here (libFuzzer runtime missing? see make deps)"

for t in parse capture json_read bundle_verify check_schema bundle_extract hostctx redact; do
	mkdir -p "build/fuzz/corpus_$t"
	seeds=$(find "build/fuzz/corpus_$t" "tests/fuzz/corpus/$t" -type f | wc -l)
	out=$(build/fuzz/fuzz_$t -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=1024 \
		-artifact_prefix="build/fuzz/crash-$t-" -print_final_stats=1 \
		"build/fuzz/corpus_$t" "tests/fuzz/corpus/$t" 2>&1)
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' <<<"$out")
	runs=${runs:-0}
	diag "fuzz_$t: $runs executions in ${SECONDS_PER_TARGET} s"
	is "$rc" 0 "fuzz_$t: no crash, leak, timeout or sanitizer report"
	[ "$rc" = 0 ] || grep -E "ERROR|SUMMARY" <<<"$out" | head -3 | sed 's/^/# /'
	# it mutated: a hundred inputs at least beyond the seeds (the slow targets, which
	# fork an extraction child per input, run about 40 a second on a loaded VM)
	ok "fuzz_$t: it ran ($runs executions of $seeds seeds)" test "$runs" -gt $((seeds + 100))
	# the committed seeds still replay cleanly on their own
	replay() { "build/fuzz/fuzz_$1" -runs=0 "tests/fuzz/corpus/$1" >/dev/null 2>&1; }
	ok "fuzz_$t: the seed corpus replays" replay "$t"
done
done_testing
