#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: softirqs and hardirqs time interrupts, and drilldown.interrupt-why reads
# them (both hook every interrupt: drill-down windows only; selected here with
# --check, --max-overhead 0 so they trace the whole window); the first window's
# workload.cpu-what sees the same NET_RX from /proc/softirqs and /proc/stat.
# Our load: 64 MiB through a loopback TCP connection during the window. On
# loopback every packet is sent in NET_TX context and received through the
# backlog in NET_RX softirq, so NET_RX runs and has time. Loopback segments are
# at most 64 KiB, so 64 MiB is at least 1024 packets, and one NET_RX run handles
# at most net.core.netdev_budget (300) of them: at least 4 runs, whatever the
# batching (we usually see about one per packet). Per-CPU
# entries must add up to the totals. Timer softirqs run on every CPU with a
# tick. Hard interrupts are not guaranteed on this VM (loopback raises none, and
# the timer is a system vector hardirqs cannot see): when any were traced we
# check their consistency, else we skip with the reason.
. tests/lib/tap.sh

MIB=64

for tool in jq tar xz perl; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (BPF)"
for t in softirqs hardirqs; do
	"$SONDE" list 2>/dev/null | grep -E "^bpf\.$t " | grep -q 'yes' ||
		skip_all "the $t tool cannot run here: $("$SONDE" list 2>/dev/null | grep -E "^bpf\.$t ")"
done

T=$(mktemp -d /tmp/sonde-live-irq.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A sink on an ephemeral loopback port (it prints the port, then counts what it reads).
perl -MIO::Socket::INET -e '
	my $l = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 1, ReuseAddr => 1) or die;
	$| = 1; print $l->sockport, "\n";
	my $c = $l->accept or die; my ($n, $buf) = (0);
	while (my $r = sysread($c, $buf, 1 << 16)) { $n += $r }
	open(my $f, ">", $ARGV[0]); print $f "$n\n";' "$T/received" >"$T/port" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
PORT=$(cat "$T/port")
[ -n "$PORT" ] || skip_all "could not start a loopback TCP listener"

mkdir "$T/out"
"$SONDE" run --window 3 --interval 1 --check drilldown.interrupt-why --check workload.cpu-what \
	--max-overhead 0 --no-drilldown --no-progress --json --out "$T/out" >"$T/findings.json" \
	2>"$T/stderr" &
SP=$!
sleep 0.7
perl -MIO::Socket::INET -e '
	my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $ARGV[0]) or die;
	my $chunk = "x" x (1 << 20);
	for (1 .. $ARGV[1]) { print $s $chunk or die } close $s;' "$PORT" "$MIB"
src=$?
wait "$SP"
rc=$?
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
is "$src" 0 "sent $MIB MiB over loopback TCP"
wait "${PIDS[0]}" 2>/dev/null
is "$(cat "$T/received" 2>/dev/null)" $((MIB << 20)) "the sink received all of it"

shopt -s nullglob
bundles=("$T"/out/sonde-*.tar.xz)
shopt -u nullglob
[ "${#bundles[@]}" -eq 1 ] || { diag "no bundle"; done_testing; exit; }
mkdir "$T/x"
tar -xJf "${bundles[0]}" -C "$T/x" raw
S=$T/x/raw/bpf/softirqs.json
H=$T/x/raw/bpf/hardirqs.json
is "$(jq -r .status "$S")" ok "softirqs ran ($(jq -r '.attach // .reason' "$S"))"
is "$(jq -r .status "$H")" ok "hardirqs ran ($(jq -r '.attach // .reason' "$H"))"

jq_true() {
	jq -e "$@" >/dev/null 2>&1
}
vec() { # NAME FIELD
	jq -r --arg n "$1" "[.data.vecs[] | select(.name == \$n) | .$2] | add // 0" "$S"
}
rx=$(vec NET_RX count)
budget=$(cat /proc/sys/net/core/netdev_budget 2>/dev/null || echo 300)
least=$(((MIB * 16 + budget - 1) / budget))
ok "NET_RX ran at least $least times ($((MIB * 16)) packets / budget $budget): $rx" test "$rx" -ge "$least"
rxns=$(vec NET_RX total_ns)
ok "NET_RX time > 0 ($rxns ns)" test "$rxns" -gt 0
ok "TIMER softirq ran ($(vec TIMER count) times)" test "$(vec TIMER count)" -gt 0
is "$(jq '[.data.vecs[].count] | add' "$S")" "$(jq .data.count "$S")" "softirq counts per type add up to the total"
is "$(jq '[.data.cpus[].total_ns] | add' "$S")" "$(jq .data.total_ns "$S")" "softirq time per CPU adds up to the total"
is "$(jq '[.data.vecs[] | select(.name == "NET_RX") | .cpus[].count] | add' "$S")" "$rx" "NET_RX per CPU adds up"
is "$(jq '.data.hist | add' "$S")" "$(jq .data.count "$S")" "the softirq histogram holds every run"

hc=$(jq -r '.data.count // 0' "$H")
if [ "$hc" -gt 0 ]; then
	is "$(jq '[.data.cpus[].count] | add' "$H")" "$hc" "hard irq counts per CPU add up ($hc handler runs)"
	ok "every traced handler has a name" jq_true '[.data.irqs[] | select(.name == "")] | length == 0' "$H"
else
	skip "hard irq consistency" "no device interrupt ran in the window on this VM (loopback raises none; the timer is a system vector)"
fi

C='.checks[] | select(.id == "drilldown.interrupt-why")'
st=$(jq -r "$C | .status" "$T/findings.json")
ok "drilldown.interrupt-why ran (status $st)" test "$st" = ok -o "$st" = warn -o "$st" = crit
ok "interrupt-why has the worst CPU's interrupt share" jq_true "$C | .metrics[] | select(.name == \"cpu_irq_pct_max\") | .value >= 0" "$T/findings.json"
ok "interrupt-why lists NET_RX among the interrupt types" jq_true "$C | .evidence[] | select(.kind == \"table\" and (.title | startswith(\"Interrupt types\"))) | [.rows[][0]] | index(\"NET_RX softirq\")" "$T/findings.json"
W='.checks[] | select(.id == "workload.cpu-what")'
ok "the first window's cpu-what counts NET_RX from /proc/softirqs" jq_true "$W | .evidence[] | select(.kind == \"table\" and (.title | startswith(\"Softirqs and interrupts\"))) | [.rows[][0]] | index(\"NET_RX softirq\")" "$T/findings.json"
done_testing
