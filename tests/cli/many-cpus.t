#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A 1,024-CPU host: a limit, not a crash. The captures are made here by
# tests/checks/mkcpus (too large to commit: /proc/interrupts and
# /proc/schedstat are 1.3 MB each, cut at the reader's 1 MiB cap as a live
# read would be), then `sonde analyze` must end 0 with no check in error,
# name the hot CPUs past the first 1,000 (drilldown.cpu-who and the BPF
# documents of the interrupt drill-down included), say which files were cut,
# and keep the reports bounded. The committed 192-CPU cases are in tests/checks/.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
for tool in jq perl tar xz; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-many-cpus.XXXXXX)
trap 'rm -rf "$T"' EXIT
C=$T/case
mkdir -p "$C" "$T/out/x"
cat >"$C/case.txt" <<'EOF2'
# 1,024 CPUs: cpu1000 busy with a pinned process and crowded (12 ms a
# timeslice), cpu900 35% in interrupts (a NIC queue), 100 NVMe queues.
#: cpus 1024
#: busy * 3
#: busy 1000 99
#: irqtime 900 5 30
#: irq 130 eth0-TxRx-7 900 50000
#: queues 100 10
#: softirq NET_RX 900 90000
#: runq 1000 12 400
#: task 4101 hog 1000 99
#: bpf softirqs
#: bpf hardirqs
EOF2
if ! "$TOP/tests/checks/mkcpus" "$C" || ! "$TOP/tests/checks/mkcap" "$C/case.txt" "$C/raw"; then
	ok "mkcpus and mkcap make the 1,024-CPU captures" false
	done_testing
	exit
fi
ok "the interrupts and schedstat captures are cut at 1 MiB, as a live read would be" \
	[ "$(grep -c '^=== proc\.\(interrupts\|schedstat\) .* trunc' "$C/case.txt")" -eq 4 ]

timeout -k 5 120 "$SONDE" analyze "$C" --out "$T/out" >"$T/terminal" 2>"$T/stderr"
is "$?" 0 "sonde analyze of 1,024 CPUs exits 0"
tar -xJf "$T/out"/sonde-*.tar.xz -C "$T/out/x" 2>>"$T/stderr"
F=$T/out/x/findings.json
jqt() { jq -e "$1" "$F" >/dev/null 2>&1; }
ok "no check ends in error" jqt '[.checks[] | select(.status == "error")] | length == 0'
ok "use.cpu-utilization-percpu names cpu1000 and hog" \
	jqt '.checks[] | select(.id == "use.cpu-utilization-percpu") | .status == "warn" and
		(.metrics[] | select(.name == "hottest_cpu_pct") | .instance == "cpu1000") and .culprits[0].comm == "hog"'
ok "workload.cpu-what names cpu900" \
	jqt '.checks[] | select(.id == "workload.cpu-what") | .status == "warn" and
		(.metrics[] | select(.name == "cpu_irq_pct_max") | .instance == "cpu900")'
note() { jq -r --arg id "$1" '.checks[] | select(.id == $id) | .evidence[] | select(.kind == "note") | .text // .title' "$F"; }
ok "use.cpu-saturation says /proc/schedstat was cut, and how many CPUs it holds" \
	grep -q '^/proc/schedstat is longer than sonde reads (1 MiB): the run-queue figures are of its first [0-9]* of 1024 CPUs$' \
	<(note use.cpu-saturation)
ok "workload.cpu-what says /proc/interrupts was cut" \
	grep -q '^/proc/interrupts is longer than sonde reads (1048576 bytes kept, 1 MiB)' <(note workload.cpu-what)

md=$T/out/x/report.md
rows=$(awk '/^\*\*/ { t = 1; n = -1; next } /^\|/ { if (t && $0 !~ /^\| *:?-/) n++; if (n > max) max = n; next } { if (n >= 0) t = 0; n = -1 }
	END { print max + 0 }' "$md")
ok "report.md: no evidence table over 20 rows (longest: $rows)" [ "$rows" -le 20 ]
ok "report.md under 100 KB ($(wc -c <"$md") bytes)" [ "$(wc -c <"$md")" -lt 100000 ]
ok "report.html under 200 KB ($(wc -c <"$T/out/x/report.html") bytes)" \
	[ "$(wc -c <"$T/out/x/report.html")" -lt 200000 ]
ok "the terminal summary: at most 40 lines, the verdict names cpu1000" \
	[ "$(wc -l <"$T/terminal")" -le 40 ] && grep -q 'cpu1000 is 99.0% busy' "$T/terminal"
echo "# analysis: $(jq -c '{cpu_seconds: .cost.cpu_seconds, peak_rss_bytes: .cost.peak_rss_bytes}' "$F")"

# the drill-down's checks: BPF documents of 1,024 CPUs, the hot CPU's processes
"$SONDE" analyze "$C" --check drilldown.interrupt-why --check drilldown.cpu-who --json \
	>"$T/drill.json" 2>>"$T/stderr"
F=$T/drill.json
ok "drilldown.interrupt-why on 1,024 CPUs warns on cpu900" \
	jqt '.checks[] | select(.id == "drilldown.interrupt-why") | .status == "warn" and
		(.metrics[] | select(.name == "cpu_irq_pct_max") | .instance == "cpu900")'
ok "drilldown.cpu-who finds cpu1000 and hog on it" \
	jqt '.checks[] | select(.id == "drilldown.cpu-who") |
		(.metrics[] | select(.name == "hot_cpu_busy_pct") | .instance == "cpu1000") and .culprits[0].comm == "hog"'
done_testing
