#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: storage and network controllers resolved from sysfs and recorded in the captures.
# A loop device the test attaches (and writes to during the window) must be listed with no
# controller, lo too; every disk and interface with a device link must resolve to the
# deepest PCI function of `readlink -f /sys/.../device` as this test computes it (vda ->
# 0000:00:02.0 on the Firecracker VM), and be a metric instance of the controller checks,
# while loop devices and lo are not. `sonde analyze` of the bundle gives the same rows.
# The host is shared: only our loop device's I/O and the sysfs layout are asserted on.
. tests/lib/tap.sh

for tool in jq losetup tar xz dd; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to attach a loop device"

T=$(mktemp -d /tmp/sonde-live-ctrl.XXXXXX)
LOOP=
LOAD=
cleanup() {
	[ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null
	wait 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export LC_ALL=C

truncate -s 32M "$T/backing.img" || skip_all "cannot create a 32 MiB file in $T"
LOOP=$(losetup -f --show "$T/backing.img" 2>"$T/losetup.err")
if [ -z "$LOOP" ] || [ ! -b "$LOOP" ]; then
	LOOP=
	skip_all "losetup -f --show failed: $(tr '\n' ' ' <"$T/losetup.err")"
fi
LNAME=${LOOP#/dev/}

# The controller as the test computes it: the last PCI function on the real device path.
pci_of() {
	readlink -f "$1/device" 2>/dev/null | tr '/' '\n' |
		grep -E '^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$' | tail -1
}

(while :; do dd if=/dev/zero of="$LOOP" bs=1M count=16 oflag=direct status=none; done) &
LOAD=$!

CHECKS="--check use.storage-controller-utilization --check use.storage-controller-saturation
	--check use.network-controller-utilization --check use.network-controller-errors"
mkdir "$T/out" "$T/x"
# shellcheck disable=SC2086
"$SONDE" run --window 2 --interval 1 --out "$T/out" --no-progress --json $CHECKS \
	>"$T/findings.json" 2>"$T/stderr"
rc=$?
kill "$LOAD" 2>/dev/null
wait "$LOAD" 2>/dev/null
LOAD=
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
F=$T/findings.json
tar -xJf "$T"/out/sonde-*.tar.xz -C "$T/x" raw || true
"$TOP/tests/checks/mkcap" --dump "$T/x/raw" >"$T/dump" 2>/dev/null
# the body of one composed record
record() {
	awk -v r="$1" '/^=== / { on = ($NF == r) ; next } on' "$T/dump"
}
record sonde:disk-controllers >"$T/disks"
record sonde:net-controllers >"$T/nets"
ok "sonde:disk-controllers is recorded" test -s "$T/disks"
ok "sonde:net-controllers is recorded" test -s "$T/nets"

is "$(awk -F'\t' -v d="$LNAME" '$1 == d { print $2, $3 }' "$T/disks")" "- none" "our loop device $LNAME has no controller"
is "$(awk -F'\t' '$1 == "lo" { print $2, $3 }' "$T/nets")" "- none" "lo has no controller"
jq_true() { jq -e "$@" >/dev/null 2>&1; }
ok "$LNAME is not a controller instance" jq_true --arg d "$LNAME" \
	'[.checks[].metrics[] | select(.instance == $d)] | length == 0' "$F"
ok "no controller named lo" jq_true '[.checks[].metrics[] | select(.instance == "lo")] | length == 0' "$F"

npci=0
for dev in /sys/block/* /sys/class/net/*; do
	name=${dev##*/}
	want=$(pci_of "$dev")
	[ -n "$want" ] || continue
	npci=$((npci + 1))
	case $dev in
	/sys/block/*) rec=$T/disks; chk=use.storage-controller-utilization ;;
	*) rec=$T/nets; chk=use.network-controller-utilization ;;
	esac
	is "$(awk -F'\t' -v d="$name" '$1 == d { print $2, $3 }' "$rec")" "$want pci" "$name resolves to PCI function $want"
	ok "$want is a metric instance of $chk" jq_true --arg c "$chk" --arg i "$want" \
		'[.checks[] | select(.id == $c) | .metrics[] | select(.name == "throughput_bytes_per_s" and .instance == $i)] | length == 1' "$F"
	if [ -r "/sys/bus/pci/devices/$want/current_link_speed" ]; then
		ok "$want: a link_pct metric (the link speed is readable)" jq_true --arg c "$chk" --arg i "$want" \
			'[.checks[] | select(.id == $c) | .metrics[] | select(.name == "link_pct" and .instance == $i)] | length == 1' "$F"
	else
		ok "$want: link_pct unknown, naming current_link_speed" jq_true --arg c "$chk" --arg i "$want" \
			'[.checks[] | select(.id == $c) | .unknowns[] | select(.metric == "link_pct" and (.reason | contains("/sys/bus/pci/devices/\($i)/current_link_speed")))] | length == 1' "$F"
	fi
done
if [ "$npci" -eq 0 ]; then
	skip "a disk or interface resolves to a PCI function" "no block device or interface here has a PCI parent"
fi
if [ -e /sys/block/vda/device ]; then
	ok "vda's controller is a PCI address" grep -qE $'^vda\t[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]\tpci\t' "$T/disks"
else
	skip "vda's controller is a PCI address" "no vda on this host"
fi

# shellcheck disable=SC2086
"$SONDE" analyze "$T/x" --json $CHECKS >"$T/analyze.json" 2>"$T/analyze.err"
is "$(jq -c '[.checks[] | {id, status, metrics}]' "$T/analyze.json")" "$(jq -c '[.checks[] | {id, status, metrics}]' "$F")" \
	"sonde analyze of the bundle gives the same controller rows"
done_testing
