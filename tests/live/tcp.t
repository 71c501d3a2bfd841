#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: tcpretrans and tcpdrop see a lossy TCP transfer we make ourselves.
# Two network namespaces joined by a veth pair; the sender's side is shaped by
# tc tbf with a tiny burst and queue limit, so a bulk TCP transfer overflows
# the queue: the qdisc drops packets (a drop with a reason) and TCP
# retransmits. sonde runs over the transfer; we assert that its capture shows
# retransmits on our connection (our addresses and port) and drops of our
# packets with a named reason, and that use.network-errors reports them.
# Only our own traffic is asserted on: the host is shared.
. tests/lib/tap.sh

for tool in jq perl ip tc; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces and BPF)"
perl -MIO::Socket::INET -e 1 2>/dev/null || skip_all "perl has no IO::Socket::INET"

T=$(mktemp -d /tmp/sonde-live-tcp.XXXXXX)
NSA=sonde-tcp-a-$$
NSB=sonde-tcp-b-$$
ADDR_A=10.77.0.1
ADDR_B=10.77.0.2
PORT=5201
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	# Deleting a namespace deletes its end of the veth, and with it the peer.
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export LC_ALL=C

# jqq ARGS...: jq -e, quiet (for ok)
jqq() {
	jq -e "$@" >/dev/null 2>&1
}

ip netns add "$NSA" 2>"$T/netns.err" || skip_all "cannot create a network namespace: $(head -1 "$T/netns.err")"
ip netns add "$NSB" || skip_all "cannot create a second network namespace"
ip link add vth0 netns "$NSA" type veth peer name vth1 netns "$NSB" 2>"$T/veth.err" ||
	skip_all "cannot create a veth pair: $(head -1 "$T/veth.err")"
ip -n "$NSA" addr add "$ADDR_A/24" dev vth0 &&
	ip -n "$NSB" addr add "$ADDR_B/24" dev vth1 &&
	ip -n "$NSA" link set vth0 up && ip -n "$NSB" link set vth1 up &&
	ip -n "$NSA" link set lo up && ip -n "$NSB" link set lo up
is "$?" 0 "veth pair $ADDR_A <-> $ADDR_B between two new namespaces"
# 2 Mbit/s, a 3000-byte bucket and a 6000-byte queue: a bulk sender overflows it at once.
ip netns exec "$NSA" tc qdisc add dev vth0 root tbf rate 2mbit burst 3000 limit 6000 \
	2>"$T/tc.err" || skip_all "tc tbf refused: $(head -1 "$T/tc.err")"

# The receiver: accepts and discards.
ip netns exec "$NSB" perl -MIO::Socket::INET -e '
	my $s = IO::Socket::INET->new(LocalAddr => $ARGV[0], LocalPort => $ARGV[1],
		Listen => 5, ReuseAddr => 1) or die "listen: $!\n";
	while (my $c = $s->accept) { my $b; while (sysread($c, $b, 65536)) {} }' \
	"$ADDR_B" "$PORT" 2>"$T/server.err" &
PIDS+=($!)
for _ in $(seq 1 50); do
	ip netns exec "$NSB" perl -MIO::Socket::INET -e \
		'IO::Socket::INET->new(PeerAddr => $ARGV[0], PeerPort => $ARGV[1]) or exit 1' \
		"$ADDR_B" "$PORT" 2>/dev/null && break
	sleep 0.1
done
# The sender: writes as fast as TCP lets it for 9 s (the window is 4 s, started 1 s in).
ip netns exec "$NSA" perl -MIO::Socket::INET -e '
	my $c = IO::Socket::INET->new(PeerAddr => $ARGV[0], PeerPort => $ARGV[1])
		or die "connect: $!\n";
	my $b = "x" x 65536; my $end = time + $ARGV[2];
	while (time < $end) { syswrite($c, $b) or die "write: $!\n" }' \
	"$ADDR_B" "$PORT" 9 2>"$T/client.err" &
CLIENT=$!
PIDS+=($CLIENT)
sleep 1

mkdir -p "$T/out"
"$SONDE" run --window 4 --interval 1 --no-progress --json --check use.network-errors \
	--out "$T/out" >"$T/run.json" 2>"$T/run.err"
rc=$?
is "$rc" 0 "sonde run --check use.network-errors exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/run.err"
wait "$CLIENT"
is "$?" 0 "the sender ran to the end"
[ -s "$T/client.err" ] && sed 's/^/#   client: /' "$T/client.err"
diag "qdisc: $(ip netns exec "$NSA" tc -s qdisc show dev vth0 | grep -o 'Sent.*)')"

bundle=$(ls "$T"/out/*.tar.xz 2>/dev/null | head -1)
ok "a bundle was written" test -n "$bundle"
mkdir -p "$T/x"
tar -xJf "$bundle" -C "$T/x" raw/bpf 2>/dev/null
R=$T/x/raw/bpf/tcpretrans.json
D=$T/x/raw/bpf/tcpdrop.json

if jq -e '.status == "ok"' "$R" >/dev/null 2>&1; then
	ok "tcpretrans ran ($(jq -r .attach "$R"))" true
	# Our connection: local ADDR_A:ephemeral -> remote ADDR_B:PORT, ESTABLISHED.
	n=$(jq --arg a "$ADDR_A" --arg b "$ADDR_B" --argjson p "$PORT" '[.data.flows[]
		| select(.laddr == $a and .raddr == $b and .rport == $p and .state == "ESTABLISHED")
		| .retransmits] | add // 0' "$R")
	diag "tcpretrans: $n retransmits on $ADDR_A -> $ADDR_B:$PORT; total $(jq .data.retransmits "$R")"
	ok "tcpretrans counts retransmits on our connection to $ADDR_B:$PORT ($n >= 5)" test "$n" -ge 5
	ok "its total includes ours" test "$(jq .data.retransmits "$R")" -ge "$n"
	ok "tcpretrans drops nothing" test "$(jq .drops "$R")" -eq 0
else
	ok "tcpretrans ran: $(jq -r '.reason // "no capture"' "$R" 2>/dev/null)" false
fi

if jq -e '.status == "ok"' "$D" >/dev/null 2>&1; then
	ok "tcpdrop ran ($(jq -r .attach "$D"))" true
	src=$(jq -r .data.reason_source "$D")
	diag "tcpdrop: reason names from: $src"
	# Our dropped data segments: ADDR_A -> ADDR_B:PORT, dropped by the qdisc.
	n=$(jq --arg a "$ADDR_A" --arg b "$ADDR_B" --argjson p "$PORT" '[.data.flows[]
		| select(.proto == "tcp" and .saddr == $a and .daddr == $b and .dport == $p)
		| .count] | add // 0' "$D")
	reasons=$(jq -r --arg a "$ADDR_A" --arg b "$ADDR_B" --argjson p "$PORT" '[.data.flows[]
		| select(.proto == "tcp" and .saddr == $a and .daddr == $b and .dport == $p)
		| .reason] | unique | join(",")' "$D")
	diag "tcpdrop: $n drops of $ADDR_A -> $ADDR_B:$PORT, reasons $reasons"
	ok "tcpdrop counts drops of our packets to $ADDR_B:$PORT ($n >= 5)" test "$n" -ge 5
	if [[ $src == kernel\ BTF* ]]; then
		ok "their reason is named by the kernel's BTF and is a qdisc drop ($reasons)" \
			grep -q 'QDISC_' <<<"$reasons"
		ok "the reasons list counts them as drops" jqq \
			'[.data.reasons[] | select((.reason | startswith("QDISC_")) and .drop)] | length > 0' "$D"
	else
		skip "reason named" "this kernel has no drop reasons ($src)"
		skip "reason counted" "this kernel has no drop reasons ($src)"
	fi
	ok "the drop total covers ours" test "$(jq .data.drops "$D")" -ge "$n"
else
	ok "tcpdrop ran: $(jq -r '.reason // "no capture"' "$D" 2>/dev/null)" false
fi

# The check: a finding with our peer and the drop reason as evidence.
C='.checks[] | select(.id == "use.network-errors")'
ok "use.network-errors warns or is critical" jqq "$C | .status == \"warn\" or .status == \"crit\"" "$T/run.json"
ok "its summary names our peer $ADDR_B" jqq --arg b "$ADDR_B" "$C | .summary | contains(\$b)" "$T/run.json"
ok "its retransmit table has our connection in ESTABLISHED" jqq --arg b "$ADDR_B:$PORT" \
	"$C | .evidence[] | select(.title | startswith(\"TCP retransmits and resets by connection\")) | .rows
	| any(.[1] == \$b and .[2] == \"ESTABLISHED\")" "$T/run.json"
ok "its drop table has a QDISC_ reason" jqq \
	"$C | .evidence[] | select(.title | startswith(\"Packets dropped by the kernel\")) | .rows
	| any(.[0] | startswith(\"QDISC_\"))" "$T/run.json"
ok "its finding's next step points at our peer" jqq --arg b "$ADDR_B" \
	'.findings[] | select(.check == "use.network-errors") | .next | any(contains($b))' "$T/run.json"

done_testing
