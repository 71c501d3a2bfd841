#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sonde run --metrics FILE and sonde show BUNDLE --metrics: the Prometheus text
# format (promtool check metrics passes), the same text from the run and from
# its bundle, base units, bounded labels (a process as an object is left out,
# hostile process names stay inside their label), an atomic replacement that
# never follows a symlink, usage errors before the window, and a failure to
# write that keeps the bundle and says so.
. tests/lib/tap.sh

for tool in jq tar xz; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-cli-metrics.XXXXXX)
NAMER=
cleanup() {
	[ -n "$NAMER" ] && kill "$NAMER" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
R=(--window 1 --interval 0.5 --no-progress --no-bpf)

# A check that warns, names a hostile culprit, and measures a disk, a process
# and a latency in ms: what the metrics must carry, leave out and convert.
C=$T/checks
mkdir -p "$C/use" "$T/out" "$T/prom"
cat >"$C/use/metrics-probe.lua" <<'EOF'
--- Metrics a Prometheus file must carry (or leave out) whatever the host.
return {
  id = "use.metrics-probe", title = "metrics probe",
  methodology = "use", resource = "disk", metric = "errors",
  tags = { "default" }, collect = {},
  run = function(ctx, args)
    ctx:metric("probe_latency_ms", 250, { unit = "ms", warn = 100, crit = 1000 })
    ctx:metric("probe_busy_pct", 42, { unit = "%", instance = "sda" })
    ctx:metric("probe_busy_pct", 7, { unit = "%", instance = "worker (pid 4242)" })
    ctx:metric("Weird-Name.rate", 3, { unit = "bytes/s" })
    ctx:metric("probe_p99_ms", 12, { unit = "ms", agg = "p99" })
    ctx:metric("probe_free_bytes", 5, { unit = "bytes", agg = "last", node_exporter = "node_memory_MemFree_bytes" })
    ctx:culprit({ pid = 4242, comm = 'ev"il\\x\nnl', share = 0.25 })
    ctx:culprit({ pid = 4243, comm = 'ev"il\\x\nnl', share = 0.5 })
  end,
}
EOF

"$SONDE" run "${R[@]}" --checks "$C" --out "$T/out" --metrics "$T/prom/sonde.prom" \
	>"$T/stdout" 2>"$T/stderr"
is "$?" 0 "run --metrics: exit 0"
P=$T/prom/sonde.prom
B=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
ok "the bundle is written" test -f "$B"
ok "the metrics file is written" test -s "$P"
is "$(stat -c %a "$P")" 644 "mode 0644: node_exporter reads it as another user"
is "$(ls -A "$T/prom")" sonde.prom "no temporary left beside it"

# promtool_passes FILE WHAT: promtool check metrics on FILE, or a skip without promtool
promtool_passes() {
	local out
	if command -v promtool >/dev/null; then
		out=$(promtool check metrics <"$1" 2>&1)
		is "$?" 0 "promtool check metrics passes on $2${out:+ (got: $(head -c 300 <<<"$out"))}"
	else
		skip "promtool check metrics on $2" "promtool is not installed (make deps: prometheus)"
	fi
}
promtool_passes "$P" "the file"

# Every family is a gauge with a HELP line; every sample belongs to its family.
ok "every sample line is NAME{...} VALUE or NAME VALUE" \
	test -z "$(grep -v '^#' "$P" | grep -Ev '^[a-z_][a-z0-9_]*(\{.*\})? -?[0-9][0-9.e+-]*$')"
is "$(grep -c '^# TYPE' "$P")" "$(grep -c '^# HELP' "$P")" "a HELP line for every TYPE"
ok "every family is a gauge" test -z "$(grep '^# TYPE' "$P" | grep -v ' gauge$')"

host=$(jq -r .host.hostname < <("$SONDE" show "$B" --json))
ok "sonde_run_info names the host ($host)" grep -qF "hostname=\"$host\"" "$P"
end=$(date -d "$(jq -r .window.end < <("$SONDE" show "$B" --json))" +%s)
is "$(sed -n 's/^sonde_run_timestamp_seconds //p' "$P")" "$end" \
	"sonde_run_timestamp_seconds is the window's end"
ok "the finding is there, with its culprit's name escaped" \
	grep -qF 'sonde_finding{check="use.metrics-probe",methodology="use",resource="disk",metric="errors",severity="warn",culprit="ev\"il\\x?nl"} 1' "$P"
is "$(grep -c '^sonde_finding_culprit_share_ratio{check="use.metrics-probe"' "$P")" 1 \
	"two culprits of one name are one series"
ok "their shares are summed" \
	grep -qE '^sonde_finding_culprit_share_ratio\{check="use.metrics-probe",comm="[^}]*"\} 0.75$' "$P"
ok "ms become seconds" grep -qx 'sonde_check_use_metrics_probe_probe_latency_seconds 0.25' "$P"
ok "% become a ratio, the disk an object label" \
	grep -qx 'sonde_check_use_metrics_probe_probe_busy_ratio{object="sda"} 0.42' "$P"
ok "a process is not a label value: left out" \
	test -z "$(grep 'pid 4242' "$P")"
ok "and counted at the top" grep -q '^# sonde: [0-9]* samples left out: their object' "$P"
ok "a bytes/s metric gets its unit's suffix" \
	grep -qx 'sonde_check_use_metrics_probe_weird_name_rate_bytes_per_second 3' "$P"
ok "the warn is counted" grep -qx 'sonde_findings{severity="warn"} [1-9][0-9]*' "$P"
ok "the USE cell of the warn is 1" \
	grep -qx 'sonde_use_severity{resource="disk",metric="errors"} 1' "$P"
ok "no pid anywhere in a label" test -z "$(grep -E 'pid="|\(pid ' "$P")"

# The same text from the bundle, through the same names.
"$SONDE" show "$B" --metrics >"$T/show.prom" 2>"$T/stderr"
is "$?" 0 "show --metrics: exit 0"
ok "show --metrics prints what run --metrics wrote, byte for byte" cmp -s "$P" "$T/show.prom"
"$SONDE" show "$B" --metrics --json >/dev/null 2>"$T/stderr"
is "$?" 2 "show --metrics --json: one or the other"

# By default, what node_exporter lacks; the host's own figures only with
# --metrics-host, each HELP saying how the window made the value.
ok "a check's percentile is there, its HELP says which" \
	grep -qx '# HELP sonde_check_use_metrics_probe_probe_p99_seconds check use.metrics-probe, metric probe_p99_ms (ms, in base units): 99th percentile of the events of the window' "$P"
ok "a metric its check says node_exporter has is left out" \
	test -z "$(grep probe_free_bytes "$P")"
ok "and counted at the top" grep -q '^# sonde: [0-9]* samples left out: node_exporter publishes them (--metrics-host adds them)$' "$P"
for f in sonde_check_use_cpu_utilization_busy_ratio sonde_host_memory_bytes sonde_host_cpus \
	sonde_check_workload_host_how_forks_per_second sonde_check_use_network_saturation_tcp_retransmits; do
	is "$(grep -c "^$f[ {]" "$P")" 0 "by default no $f (node_exporter has it)"
done
ok "at most one forks_per_second family by default (execsnoop's, with BPF)" \
	test "$(grep -c '^# HELP [a-z_]*forks_per_second ' "$P")" -le 1
is "$(grep -ic '^# HELP [a-z_]*retrans' "$P")" 0 "no TCP retransmit family by default"
ok "sonde's own cost is there" grep -q '^sonde_run_window_cpu_seconds [0-9]' "$P"
nofold=$(grep '^# HELP sonde_check_' "$P" |
	grep -Ev '^# HELP sonde_check_(severity|failed|unknown_metrics|use_metrics_probe_[a-z0-9_]*) ' |
	grep -Ev ': (mean over|minimum over|peak \(largest sample or event\) in|last value, at the end of|count over|from the trend fitted over|[0-9.]+th percentile of the events of) the (drill-down )?window')
ok "every embedded check's metric says how the window made it${nofold:+ (not: $(head -c 300 <<<"$nofold"))}" \
	test -z "$nofold"
is "$(grep -c '^# HELP sonde_check_.*node_exporter has it' "$P")" 0 "and none of them says node_exporter has it"

"$SONDE" show "$B" --metrics --metrics-host >"$T/host.prom" 2>"$T/stderr"
is "$?" 0 "show --metrics --metrics-host: exit 0"
promtool_passes "$T/host.prom" "the host's figures (--metrics-host)"
ok "--metrics-host adds the metric node_exporter has, naming its family" \
	grep -qx '# HELP sonde_check_use_metrics_probe_probe_free_bytes check use.metrics-probe, metric probe_free_bytes (bytes): last value, at the end of the window; node_exporter has it: node_memory_MemFree_bytes' "$T/host.prom"
ok "and the host's memory" grep -q '^sonde_host_memory_bytes [1-9]' "$T/host.prom"
ok "CPU utilization, the window's mean, with its node_exporter family" \
	grep -q '^# HELP sonde_check_use_cpu_utilization_busy_ratio .*: mean over the window; node_exporter has it: node_cpu_seconds_total$' "$T/host.prom"
ok "the two forks per second say what each counts" \
	test "$(grep -c '^# HELP [a-z_]*forks_per_second .*: mean over the window; \(tasks created\|processes forked\)' "$T/host.prom")" = \
	"$(grep -c '^# HELP [a-z_]*forks_per_second ' "$T/host.prom")"
ok "no '# sonde: ... node_exporter publishes' line with --metrics-host" \
	test -z "$(grep '^# sonde: .*node_exporter publishes' "$T/host.prom")"
"$SONDE" run "${R[@]}" --out "$T/out" --metrics-host >/dev/null 2>&1
is "$?" 2 "--metrics-host without --metrics: usage error"
"$SONDE" show "$B" --metrics-host >/dev/null 2>&1
is "$?" 2 "show --metrics-host without --metrics: usage error"

# A check's agg= outside the vocabulary is the check's error.
mkdir -p "$T/badagg/use"
cat >"$T/badagg/use/bad-agg.lua" <<'EOF'
--- A metric whose aggregation is not one sonde knows.
return {
  id = "use.bad-agg", title = "bad agg", methodology = "use", resource = "disk", metric = "errors",
  tags = { "default" }, collect = {},
  run = function(ctx, args) ctx:metric("x", 1, { agg = "median" }) end,
}
EOF
"$SONDE" run "${R[@]}" --checks "$T/badagg" --check use.bad-agg --out "$T/out" --json \
	>"$T/bad.json" 2>/dev/null
is "$(jq -r '.checks[] | select(.id == "use.bad-agg") | .status' "$T/bad.json")" error \
	"agg = \"median\": the check fails"
ok "its error says what agg takes" \
	grep -q "option 'agg' must be mean, min, peak, last, total, fit or a percentile" \
	< <(jq -r '.checks[] | select(.id == "use.bad-agg") | .error' "$T/bad.json")

# Every metric of every golden case declares its aggregation: the embedded
# checks' metrics, as far as the cases reach them.
undeclared=$(jq -r '.checks[] | .id as $c | .metrics[] | select(.aggregation == null) |
	"\($c).\(.name)"' tests/checks/*/*/snapshot.json | sort -u)
ok "every metric in the golden snapshots has an aggregation${undeclared:+ (not: $(head -c 300 <<<"$undeclared"))}" \
	test -z "$undeclared"

# A tampered findings.json: one line, exit 1.
mkdir -p "$T/x" && tar -xJf "$B" -C "$T/x"
jq '.schema = "something/9"' "$T/x/findings.json" >"$T/f" && mv "$T/f" "$T/x/findings.json"
err=$("$SONDE" show "$T/x" --metrics 2>&1 >/dev/null)
is "$?" 1 "show --metrics on a findings.json of another schema: exit 1"
ok "one line saying why (got: $err)" test "$(wc -l <<<"$err")" = 1 -a -n "$(grep schema <<<"$err")"

# Replaced atomically, never through a symlink: the link is replaced, its target untouched.
echo "target" >"$T/target"
rm -f "$P" && ln -s "$T/target" "$P"
"$SONDE" run "${R[@]}" --out "$T/out" --metrics "$P" >/dev/null 2>&1
is "$?" 0 "a second run over a symlink: exit 0"
ok "the symlink is replaced by the file" test -f "$P" -a ! -L "$P"
is "$(cat "$T/target")" target "the symlink's target is untouched"

# Usage errors before any window.
for bad in "$T/nodir/sonde.prom" "$T/prom" "$T/prom/"; do
	err=$("$SONDE" run "${R[@]}" --out "$T/out" --metrics "$bad" 2>&1 >/dev/null)
	is "$?" 2 "--metrics $bad: usage error"
	ok "one line naming --metrics (got: $err)" \
		test "$(wc -l <<<"$err")" = 1 -a -n "$(grep -- --metrics <<<"$err")"
done

# A file that cannot be written after the window: the bundle stays, exit 1, said.
n=$(ls "$T"/out/*.tar.xz | wc -l)
err=$("$SONDE" run "${R[@]}" --out "$T/out" --metrics /proc/sonde.prom 2>&1 >/dev/null)
is "$?" 1 "--metrics in /proc: exit 1"
is "$(ls "$T"/out/*.tar.xz | wc -l)" $((n + 1)) "the bundle is written anyway"
ok "the message names the file and the bundle (got: $err)" \
	grep -q "metrics /proc/sonde.prom: .*the bundle is written: $T/out/sonde-" <<<"$err"

# --redact: the metrics carry pseudonyms, never the host's name. A process
# whose command line teaches the redactor a user named "check" (a label name)
# and "probe" (in the probe check's family names): label names, family names
# and HELP stay sonde's, only values are redacted.
if unshare -u true 2>/dev/null; then
	perl -e 'sleep 60' -- /home/check/x ssh probe@db.example.org &
	NAMER=$!
	unshare -u sh -c 'hostname CANARYMETRICS-7 && exec "$0" run "$@"' "$SONDE" "${R[@]}" \
		--checks "$C" --out "$T/out" --redact --metrics "$T/prom/red.prom" >/dev/null 2>&1
	is "$?" 0 "run --redact --metrics on a host named CANARYMETRICS-7"
	ok "the metrics name a pseudonym" grep -q 'hostname="host-[0-9]*"' "$T/prom/red.prom"
	ok "and never the host" test -z "$(grep -i canarymetrics "$T/prom/red.prom")"
	promtool_passes "$T/prom/red.prom" "the redacted file"
	ok "a learned user named 'check' leaves the label name alone" \
		grep -q '^sonde_finding{check="use.metrics-probe",' "$T/prom/red.prom"
	is "$(grep -c '{user-[0-9]*=\|_user_[0-9]*_\|HELP.*user-[0-9]' "$T/prom/red.prom")" 0 \
		"no pseudonym in a label name, a family name or HELP"
	ok "the probe's family keeps its name" \
		grep -q '^sonde_check_use_metrics_probe_probe_latency_seconds ' "$T/prom/red.prom"
	kill "$NAMER" 2>/dev/null
	NAMER=
else
	skip "--redact --metrics" "unshare -u is not permitted here"
fi

done_testing
