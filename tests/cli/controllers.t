#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Controller resolution on a made-up sysfs (sonde run --root): two NVMe namespaces behind a
# PCIe root port resolve to the NVMe function (0000:01:00.0), not the root port; a
# virtio-mmio disk to its platform device; dm-0 has no controller and names its slave; loop0
# none; an Ethernet function 0000:03:00.0, a bond on it (none, lower eth0), lo none. The link
# speed read through the root bounds the NVMe controller; the others say why they have none.
# Needs no root and no BPF: the tree is ours (tests/cli/controllers/fake-root.sh).
. tests/lib/tap.sh

for tool in jq tar xz; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

T=$(mktemp -d /tmp/sonde-ctrl-root.XXXXXX)
cleanup() {
	rm -rf "$T"
}
trap cleanup EXIT
export LC_ALL=C

bash "$TOP/tests/cli/controllers/fake-root.sh" "$T/root"
mkdir "$T/out" "$T/x"
"$SONDE" run --root "$T/root" --window 1 --interval 1 --no-bpf --no-progress --json --out "$T/out" \
	--check use.storage-controller-utilization --check use.network-controller-utilization \
	--check use.storage-controller-errors >"$T/f.json" 2>"$T/stderr"
is "$?" 0 "sonde run --root exits 0"
tar -xJf "$T"/out/sonde-*.tar.xz -C "$T/x" raw
"$TOP/tests/checks/mkcap" --dump "$T/x/raw" >"$T/dump"
row() {
	awk -v r="$1" -v d="$2" -F'\t' '/^=== / { on = ($0 ~ (" " r "$")); next } on && $1 == d' "$T/dump"
}
P=/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0
is "$(row sonde:disk-controllers nvme0n1)" "nvme0n1	0000:01:00.0	pci	nvme	$P	-" "nvme0n1: the NVMe function behind the root port, its driver, its path"
is "$(row sonde:disk-controllers nvme0n2)" "nvme0n2	0000:01:00.0	pci	nvme	$P	-" "nvme0n2: the same controller"
is "$(row sonde:disk-controllers vdb)" "vdb	a0000000.virtio_mmio	platform	-	/sys/devices/platform/a0000000.virtio_mmio/virtio0	-" "vdb: the virtio-mmio platform device"
is "$(row sonde:disk-controllers dm-0)" "dm-0	-	none	-	-	nvme0n1" "dm-0: no controller, stacked on nvme0n1"
is "$(row sonde:disk-controllers loop0)" "loop0	-	none	-	-	-" "loop0: no controller"
is "$(row sonde:net-controllers eth0)" "eth0	0000:03:00.0	pci	-	/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0	-" "eth0: its PCI function (no driver bound)"
is "$(row sonde:net-controllers bond0)" "bond0	-	none	-	-	eth0" "bond0: no controller, lower eth0"
is "$(row sonde:net-controllers lo)" "lo	-	none	-	-	-" "lo: no controller"
ok "the NVMe link speed was read through the root" grep -qx '8.0 GT/s PCIe' "$T/dump"

jq_e() { jq -e "$@" >/dev/null 2>&1; }
m() { jq -r --arg c "$1" --arg n "$2" --arg i "$3" \
	'[.checks[] | select(.id == $c) | .metrics[] | select(.name == $n and .instance == $i) | .value][0] // "none"' "$T/f.json"; }
is "$(m use.storage-controller-utilization link_pct 0000:01:00.0)" 0 "link_pct of the NVMe controller (no I/O in a frozen tree: 0)"
is "$(m use.storage-controller-utilization throughput_bytes_per_s a0000000.virtio_mmio)" 0 "the platform controller is a row"
ok "the platform controller's link is unknown, with the reason" jq_e \
	'[.checks[] | select(.id == "use.storage-controller-utilization") | .unknowns[] | select(.metric == "link_pct" and (.reason | contains("a0000000.virtio_mmio is a platform device, not PCI")))] | length == 1' "$T/f.json"
ok "no controller row for dm-0, loop0, bond0 or lo" jq_e \
	'[.checks[].metrics[] | select(.instance | IN("dm-0", "loop0", "bond0", "lo", "nvme0n1"))] | length == 0' "$T/f.json"
ok "the note names dm-0 as stacked" jq_e \
	'[.checks[] | select(.id == "use.storage-controller-utilization") | .evidence[] | select(.kind == "note" and (.title | contains("dm-0 (stacked on nvme0n1, counted there)")))] | length == 1' "$T/f.json"
done_testing
