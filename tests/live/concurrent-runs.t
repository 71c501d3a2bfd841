#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: runs that start in the same second and share --out (two cron entries,
# or cron and a person) each keep their own bundle; none overwrites another.
# bundle__write publishes with renameat2(RENAME_NOREPLACE) and takes the next
# suffix (-2, -3, ...) on a clash.
. tests/lib/tap.sh

RUNS=3

for tool in jq tar xz; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

T=$(mktemp -d /tmp/sonde-live-concurrent.XXXXXX)
tap_kill_at_exit

mkdir "$T/out"
for i in $(seq 1 $RUNS); do
	"$SONDE" run --window 1 --out "$T/out" --no-progress >"$T/stdout.$i" 2>"$T/stderr.$i" &
	PIDS+=($!)
done
failed=0
for p in "${PIDS[@]}"; do
	wait "$p" || failed=$((failed + 1))
done
PIDS=()
is "$failed" 0 "$RUNS concurrent runs into one --out all exit 0"

named=$(sed -n 's/^Bundle: //p' "$T"/stdout.* | sort -u | wc -l)
on_disk=$(find "$T/out" -maxdepth 1 -name 'sonde-*.tar.xz' | wc -l)
diag "bundles named on stdout: $(sed -n 's/^Bundle: //p' "$T"/stdout.* | sed "s|$T/out/||" | tr '\n' ' ')"
diag "bundles on disk: $on_disk"
ok "each of the $RUNS runs names a different bundle" test "$named" -eq "$RUNS"
ok "$RUNS bundles are on disk" test "$on_disk" -eq "$RUNS"
leftover=$(find "$T/out" -mindepth 1 -name '.*' | wc -l)
is "$leftover" 0 "no staging directory or temp file left behind"

done_testing
