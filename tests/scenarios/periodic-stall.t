#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: a periodic stall (issue 13). scn-stall burns the CPU for 200 ms
# at the start of every second and sleeps the rest. Its subsecond-offset
# heat map (profile samples counted in the kernel by second of the window and
# offset in the second) must show it as a stripe: in findings.json, the
# workload.cpu-why heat map of that process (--set subsecond=pid:PID) has
# most of its busy share in 200 ms of the second (4 of the 20 rows of 50 ms,
# wherever the window's start puts them), in every full second. Asserted on
# the data, not on pixels; the HTML holds the map and report.md its rows.
. tests/lib/tap.sh

COMM=scn-stall
for tool in jq cc tar; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF (the profile)"

T=$(mktemp -d /tmp/sonde-scn-stall.XXXXXX)
tap_kill_at_exit

cat >"$T/stall.c" <<'C'
#include <time.h>
/* 200 ms of CPU from the top of every second, then asleep until the next */
int main(void)
{
	struct timespec now, until;
	volatile unsigned long n = 0;

	for (;;) {
		clock_gettime(CLOCK_REALTIME, &now);
		until.tv_sec = now.tv_sec + 1;
		until.tv_nsec = 0;
		clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &until, NULL);
		do {
			n++;
			clock_gettime(CLOCK_REALTIME, &now);
		} while (now.tv_sec == until.tv_sec && now.tv_nsec < 200000000);
	}
	return 0;
}
C
cc -O1 -o "$T/$COMM" "$T/stall.c" 2>"$T/cc.err" ||
	skip_all "cannot build the load: $(head -c 200 "$T/cc.err")"
"$T/$COMM" &
LOAD=$!
PIDS+=("$LOAD")
diag "$COMM (pid $LOAD): 200 ms of CPU every second"
sleep 1

jqe() { jq -e "$@" >/dev/null; }

mkdir -p "$T/out" "$T/x"
"$SONDE" run --window 8 --no-progress --no-drilldown --check workload.cpu-why \
	--set "workload.cpu-why.subsecond=pid:$LOAD" --json --out "$T/out" \
	>"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 8 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
tar -xJf "$T"/out/sonde-*.tar.xz -C "$T/x" 2>/dev/null

J=$T/findings.json
HM='.checks[] | select(.id == "workload.cpu-why") | .evidence[] | select(.kind == "heatmap")'
is "$(jq -r "[$HM] | length" "$J")" 1 "workload.cpu-why has one heat map"
is "$(jq -r "$HM | \"\(.interval_ms) \(.row_ms) \(.unit)\"" "$J")" "1000 50 %" \
	"a column a second, rows of 50 ms, busy % of the samples"
ok "its title names $COMM's pid" jqe "$HM | .title | contains(\"pid $LOAD\")" "$J"
cols=$(jq -r "$HM | .counts | length" "$J")
ok "at least 6 full seconds ($cols)" test "$cols" -ge 6

# Per row: the busy share summed over the seconds; the best 200 ms (4 rows, circular) against the rest.
read -r stripe total best_at < <(jq -r "$HM | .counts
	| [range(0; 20) as \$r | map(.[\$r] // 0) | add] as \$rows
	| [range(0; 20) as \$r | [range(0; 4) as \$k | \$rows[(\$r + \$k) % 20]] | add] as \$win
	| (\$win | max) as \$m
	| \"\(\$m) \(\$rows | add) \(\$win | index(\$m))\"" "$J")
diag "busy share: $stripe of $total in the best 200 ms (rows $best_at..$(((best_at + 3) % 20)))"
ok "the stall is a stripe: >= 70% of $COMM's busy share in 200 ms of the second" \
	test "$total" -gt 0 -a $((100 * stripe)) -ge $((70 * total))

# Every full second has the stripe at the same offset (a periodic stall, not one burst).
seconds_with=$(jq -r --argjson at "$best_at" "$HM | .counts
	| map([range(0; 4) as \$k | .[(\$at + \$k) % 20] // 0] | add) | map(select(. > 0)) | length" "$J")
ok "it is there in most seconds ($seconds_with of $cols)" test $((seconds_with * 10)) -ge $((cols * 7))

# The kernel's counts behind it, in the capture
P=$T/x/raw/bpf/profile.json
ok "the capture has the process's subsecond counts" \
	jqe --argjson p "$LOAD" '.data.subsecond.processes[] | select(.tgid == $p) | .samples > 0' "$P"
ok "report.md lists the rows of the map" grep -q '^| 950-1000 ms | ' "$T/x/report.md"
ok "report.html draws it" grep -q "CPU busy by offset in the second, $COMM (pid $LOAD)" "$T/x/report.html"

done_testing
