#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Prometheus round trip, with Debian's own prometheus and
# prometheus-node-exporter on 127.0.0.1: sonde run --metrics writes into the
# textfile collector's directory, node_exporter serves it, Prometheus scrapes
# node_exporter, and a finding is read back through Prometheus's HTTP API,
# with its labels. Then a second run replaces the file while node_exporter
# keeps reading it: no scrape ever sees an error. The node_exporter families
# sonde says it restates (--metrics-host) are ones node_exporter publishes here.
. tests/lib/tap.sh
. tests/lib/net.sh

PROM=$(command -v prometheus)
NODE=$(command -v prometheus-node-exporter || command -v node_exporter)
[ -n "$PROM" ] || skip_all "prometheus is not installed (make deps: Debian's prometheus)"
[ -n "$NODE" ] || skip_all "node_exporter is not installed (make deps: prometheus-node-exporter)"
for tool in curl jq python3; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-live-prometheus.XXXXXX)
trap 'stop_servers; rm -rf "$T"' EXIT

# A check that always warns and names a culprit: a finding whatever the host is doing.
mkdir -p "$T/checks/use" "$T/textfile" "$T/out" "$T/data"
cat >"$T/checks/use/prom-probe.lua" <<'EOF'
--- Always one warn, with a culprit, for the Prometheus round trip.
return {
  id = "use.prom-probe", title = "Prometheus probe",
  methodology = "use", resource = "cpu", metric = "errors",
  tags = { "default" }, collect = {},
  run = function(ctx, args)
    ctx:metric("probe_wait_ms", 20, { unit = "ms", warn = 10, crit = 1000 })
    ctx:culprit({ pid = 1, comm = "probe-culprit", share = 0.5 })
  end,
}
EOF

NPORT=$(free_port)
"$NODE" --web.listen-address="127.0.0.1:$NPORT" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$T/textfile" >"$T/node.log" 2>&1 &
SERVERS+=($!)
PPORT=$(free_port)
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$NPORT']
EOF
"$PROM" --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/data" \
	--web.listen-address="127.0.0.1:$PPORT" >"$T/prometheus.log" 2>&1 &
SERVERS+=($!)

# query PROMQL: the API's result array (JSON), or empty
query() {
	curl -fsS --max-time 5 "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" \
		2>/dev/null | jq -c '.data.result' 2>/dev/null
}
# wait_for PROMQL SECONDS: until the query has a result
wait_for() {
	local end=$((SECONDS + $2)) r
	while [ $SECONDS -lt $end ]; do
		r=$(query "$1")
		if [ -n "$r" ] && [ "$r" != "[]" ]; then
			echo "$r"
			return 0
		fi
		sleep 1
	done
	return 1
}

up=$(wait_for 'up{job="node"} == 1' 60)
ok "Prometheus scrapes node_exporter (127.0.0.1:$NPORT)" test -n "$up"
if [ -z "$up" ]; then
	diag "prometheus: $(tail -3 "$T/prometheus.log")"
	diag "node_exporter: $(tail -3 "$T/node.log")"
	done_testing
	exit
fi

"$SONDE" run --window 1 --interval 0.5 --no-progress --no-bpf --checks "$T/checks" \
	--out "$T/out" --metrics "$T/textfile/sonde.prom" >"$T/run.out" 2>&1
is "$?" 0 "sonde run --metrics into the textfile directory"
host=$(jq -r .host.hostname < <("$SONDE" show "$(ls "$T"/out/*.tar.xz)" --json))

r=$(wait_for 'sonde_finding{check="use.prom-probe"}' 30)
ok "the finding is read back through the HTTP API" test -n "$r"
is "$(jq -r '.[0].metric.severity' <<<"$r")" warn "its severity label"
is "$(jq -r '.[0].metric.resource + "." + .[0].metric.metric' <<<"$r")" cpu.errors \
	"its USE cell"
is "$(jq -r '.[0].metric.culprit' <<<"$r")" probe-culprit "its culprit's process name"
is "$(jq -r '.[0].metric.job' <<<"$r")" node "scraped through node_exporter's job"
r=$(query 'sonde_check_use_prom_probe_probe_wait_seconds')
is "$(jq -r '.[0].value[1]' <<<"$r")" 0.02 "a check's metric arrives in base units (20 ms = 0.02 s)"
r=$(query 'sonde_run_info')
is "$(jq -r '.[0].metric.hostname' <<<"$r")" "$host" "sonde_run_info names the host"
r=$(query 'sonde_worst_severity >= 1')
ok "the worst severity is at least the probe's warn (the host may add worse)" test "$r" != "[]"
r=$(query 'node_textfile_scrape_error')
is "$(jq -r '.[0].value[1]' <<<"$r")" 0 "node_exporter read the file without error"

# The families sonde says node_exporter has (--metrics-host's HELP) are
# families node_exporter, with its default collectors, publishes on this host;
# by default sonde leaves them to it.
DPORT=$(free_port)
"$NODE" --web.listen-address="127.0.0.1:$DPORT" >"$T/node-defaults.log" 2>&1 &
SERVERS+=($!)
for _ in $(seq 50); do
	curl -fsS --max-time 5 "http://127.0.0.1:$DPORT/metrics" >"$T/node.txt" 2>/dev/null && break
	sleep 0.2
done
B=$(ls "$T"/out/*.tar.xz | head -1)
"$SONDE" show "$B" --metrics --metrics-host >"$T/host.prom"
cited=$(sed -n 's/^# HELP .*; node_exporter has it: \([A-Za-z_:][A-Za-z0-9_:]*\)$/\1/p' "$T/host.prom" | sort -u)
ok "sonde cites node_exporter families for this host's figures ($(wc -w <<<"$cited"))" test -n "$cited"
missing=
for f in $cited; do
	grep -q "^# TYPE $f " "$T/node.txt" || missing+=" $f"
done
ok "node_exporter publishes every one of them here${missing:+ (not:$missing)}" test -z "$missing"
is "$(grep -c 'node_exporter has it' "$T/textfile/sonde.prom")" 0 "the file it scrapes has none of them"
mem=$(sed -n 's/^node_memory_MemTotal_bytes //p' "$T/node.txt")
ok "sonde's host memory is node_exporter's MemTotal ($mem)" \
	awk -v a="$(sed -n 's/^sonde_host_memory_bytes //p' "$T/host.prom")" -v b="$mem" \
	'BEGIN { exit !(a > 0 && a == b + 0) }'

# A second run replaces the file under node_exporter's feet (atomically): never an error.
ts1=$(jq -r '.[0].value[1]' <<<"$(query sonde_run_timestamp_seconds)")
sleep 1
"$SONDE" run --window 1 --interval 0.5 --no-progress --no-bpf --checks "$T/checks" \
	--out "$T/out" --metrics "$T/textfile/sonde.prom" >/dev/null 2>&1
is "$?" 0 "a second run replaces the file"
r=$(wait_for "sonde_run_timestamp_seconds > $ts1" 30)
ok "Prometheus sees the new run" test -n "$r"
r=$(query 'max_over_time(node_textfile_scrape_error[5m])')
is "$(jq -r '.[0].value[1]' <<<"$r")" 0 "no scrape ever saw a broken file"
is "$(ls -A "$T/textfile")" sonde.prom "only the file in the textfile directory"

done_testing
