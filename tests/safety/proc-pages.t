#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A /proc file longer than one page is read to its end (issue 18, item 1).
# seq_files hand out about one page per read(): sonde used to take a short
# read for the end, so on a host with many mounts a full file system listed
# after the first page of /proc/self/mountinfo was "ok". Here, in a private
# mount namespace, 150 tmpfs mounts under long names come first, then a small
# tmpfs filled to the last byte: use.filesystem-utilization must see it crit,
# the mountinfo capture must hold every mount and not be flagged as cut.
. tests/lib/tap.sh

jq_true() { jq -e "$@" >/dev/null 2>&1; }

for tool in jq unshare mount tar; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount in a private mount namespace"
unshare -m --propagation private true 2>/dev/null ||
	skip_all "cannot make a private mount namespace here (unshare -m)"

T=$(mktemp -d /tmp/sonde-safety-pages.XXXXXX)
# The mounts live in the namespace only: they go away with it, also on failure.
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
export LC_ALL=C
NMOUNTS=150
LONG=a-mount-point-with-a-long-name-to-fill-pages-of-mountinfo-quickly
FULL=$T/zz-the-full-one

cat >"$T/inside.sh" <<INSIDE
set -e
for i in \$(seq 1 $NMOUNTS); do
	mkdir -p "$T/m/$LONG-\$i"
	mount -t tmpfs -o size=1m tmpfs "$T/m/$LONG-\$i"
done
mkdir -p "$FULL"
mount -t tmpfs -o size=2m,nr_inodes=1000 tmpfs "$FULL"
dd if=/dev/zero of="$FULL/fill" bs=64k 2>/dev/null || true
df -B1 --output=used,avail "$FULL" | tail -1 >"$T/df"
wc -c </proc/self/mountinfo >"$T/mountinfo.bytes"
mkdir "$T/out"
set +e
"$SONDE" run --window 2 --interval 1 --out "$T/out" --no-progress --json --no-bpf \\
	--check use.filesystem-utilization >"$T/findings.json" 2>"$T/stderr"
echo \$? >"$T/rc"
INSIDE
unshare -m --propagation private bash "$T/inside.sh"
is "$(cat "$T/rc" 2>/dev/null)" 0 "sonde run exits 0 in a namespace with $NMOUNTS more mounts"
[ "$(cat "$T/rc" 2>/dev/null)" = 0 ] || sed 's/^/#   stderr: /' "$T/stderr" 2>/dev/null
bytes=$(cat "$T/mountinfo.bytes" 2>/dev/null)
diag "/proc/self/mountinfo: ${bytes:-?} bytes; our full tmpfs: $(cat "$T/df" 2>/dev/null) (used avail)"
ok "the mount table is longer than a page (${bytes:-?} bytes)" test "${bytes:-0}" -gt 8192

F=$T/findings.json
pct=$(jq -r --arg m "$FULL" '[.checks[] | select(.id == "use.filesystem-utilization") | .metrics[]
	| select(.name == "used_pct" and .instance == $m) | .value][0] // "none"' "$F" 2>/dev/null)
diag "use.filesystem-utilization: used_pct of $FULL = $pct"
ok "the file system after the first page is measured" test "$pct" != none
ok "... full: at least 99% used (got $pct)" awk -v p="$pct" 'BEGIN { exit !(p + 0 >= 99) }'
ok "... and crit" jq_true --arg m "$FULL" '.checks[] | select(.id == "use.filesystem-utilization")
	| .metrics[] | select(.name == "used_pct" and .instance == $m and .status == "crit")' "$F"

# The capture: every mount in the first and last mountinfo reads, none cut.
shopt -s nullglob
B=("$T"/out/sonde-*.tar.xz)
shopt -u nullglob
if [ "${#B[@]}" -eq 1 ] && tar -xJf "${B[0]}" -C "$T" raw/proc.mounts.cap 2>/dev/null; then
	C=$T/raw/proc.mounts.cap
	hdr=$(grep -a '^@ [0-9]* [0-9]* [0-9]* [0-9]* [-t] /proc/self/mountinfo$' "$C" | head -1)
	diag "first mountinfo record: $hdr"
	set -- $hdr
	is "$6" "-" "the mountinfo record is not flagged as cut"
	ok "it holds all $NMOUNTS mounts and the full one" \
		test "$(grep -ac -- "$LONG-" "$C")" -ge "$NMOUNTS" -a "$(grep -ac "zz-the-full-one" "$C")" -ge 1
	ok "sonde:statfs measured the full one" grep -aq "^ok	.*zz-the-full-one" "$C"
else
	ok "the bundle holds raw/proc.mounts.cap" false
fi
done_testing
