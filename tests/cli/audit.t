#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The scheduled audit script (contrib/systemd/sonde-audit): bundles, retention,
# the diff of the latest two, and its exit status.
. tests/lib/tap.sh

command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
T=$(mktemp -d /tmp/sonde-cli-audit.XXXXXX)
trap 'rm -rf "$T"' EXIT
export SONDE="$SONDE" SONDE_OUT="$T/audits" SONDE_KEEP=2 SONDE_WINDOW=1

for i in 1 2 3; do
	contrib/systemd/sonde-audit >"$T/out.$i" 2>&1
	echo $? >"$T/rc.$i"
	sleep 1 # distinct bundle times
done
ok "the audits ran (exit 0 or 3)" sh -c "grep -Eqx '0|3' '$T/rc.1' && grep -Eqx '0|3' '$T/rc.3'"
is "$(ls "$SONDE_OUT"/sonde-*.tar.xz | wc -l)" 2 "retention keeps the newest 2 bundles"
ok "the output folder is private (0700)" sh -c "[ \$(stat -c %a '$SONDE_OUT') = 700 ]"
is "$(jq -r .schema "$SONDE_OUT/diff-latest.json")" "sonde.diff/2" "the diff of the latest two is there"
ok "and its Markdown" grep -q "^# sonde diff" "$SONDE_OUT/diff-latest.md"
is "$(jq -r '.old.bundle' "$SONDE_OUT/diff-baseline.json" | grep -c "^$SONDE_OUT/sonde-")" 1 \
	"the rolling baseline's diff: against the earlier audits in SONDE_OUT"
ok "its Markdown and its page" test -s "$SONDE_OUT/diff-baseline.md" -a -s "$SONDE_OUT/diff-baseline.html"
is "$(ls "$SONDE_OUT"/*.tmp 2>/dev/null | wc -l)" 0 "no temporary file left"

# SONDE_METRICS: the run also writes its Prometheus metrics there.
mkdir -p "$T/textfile"
SONDE_METRICS="$T/textfile/sonde.prom" contrib/systemd/sonde-audit >/dev/null 2>&1
ok "SONDE_METRICS: the metrics file is written" grep -q '^sonde_run_info{' "$T/textfile/sonde.prom"
is "$(stat -c %a "$T/textfile/sonde.prom")" 644 "readable by node_exporter"
SONDE_METRICS="$T/none/sonde.prom" contrib/systemd/sonde-audit >/dev/null 2>"$T/err"
ok "a missing textfile directory: the audit still runs (exit 0 or 3)" grep -Eqx '0|3' <<<"$?"
ok "and says why no metrics were written" grep -q "SONDE_METRICS: no directory $T/none" "$T/err"
ok "the service sets it to node_exporter's textfile directory" \
	grep -qx 'Environment=SONDE_METRICS=/var/lib/prometheus/node-exporter/sonde.prom' \
	contrib/systemd/sonde-audit.service

SONDE_KEEP=1 contrib/systemd/sonde-audit >/dev/null 2>&1; rc=$?
is "$rc" 2 "SONDE_KEEP below 2 is refused"
ok "the timer and service files are well-formed" sh -c \
	"grep -q '^OnCalendar=daily' contrib/systemd/sonde-audit.timer && grep -q '^ExecStart=/usr/local/lib/sonde/sonde-audit' contrib/systemd/sonde-audit.service"

# The unit's sandbox, as systemd rates it (9.4 UNSAFE without one) and as it parses
# it: tests/live/audit-sandbox.t runs the audit under it.
U=contrib/systemd/sonde-audit.service
if command -v systemd-analyze >/dev/null && systemd-analyze security --help | grep -q -- --offline; then
	systemd-analyze security --offline=yes "$U" >"$T/security" 2>&1
	score=$(sed -n 's/.*Overall exposure level for sonde-audit.service: \([0-9.]*\).*/\1/p' "$T/security")
	ok "systemd-analyze security --offline=yes: exposure below 5 (got ${score:-no score}: $(tail -1 "$T/security"))" \
		awk -v s="$score" 'BEGIN { exit !(s != "" && s + 0 < 5) }'
	# verify wants ExecStart= to exist: the script in this tree.
	sed "s|^ExecStart=.*|ExecStart=$PWD/contrib/systemd/sonde-audit|" "$U" >"$T/sonde-audit.service"
	cp contrib/systemd/sonde-audit.timer "$T/"
	is "$(systemd-analyze verify --man=no "$T/sonde-audit.service" "$T/sonde-audit.timer" 2>&1)" "" \
		"systemd-analyze verify: no unknown or unparsable setting in the unit and timer"
	for key in TimeoutStartSec MemoryMax NoNewPrivileges CapabilityBoundingSet ProtectSystem \
		ProtectHome PrivateTmp; do
		ok "the unit sets $key=" grep -q "^$key=." "$U"
	done
else
	skip "systemd-analyze security" "systemd-analyze (systemd >= 250) is not installed (make deps: systemd)"
fi

done_testing
