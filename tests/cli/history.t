#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Across runs: --out holds three earlier bundles of this host, one a day, that
# recorded a file system at 20, 40 and 60 MiB in use; it holds 80 MiB now and
# has about 10 MiB left: at 20 MiB a day it is full in about half a day, which
# this window alone (flat) cannot see. Of the three, one records this machine's
# host id (the keyed hash of its machine-id), one none (an older sonde's: matched
# by hostname), and one is named after host-1, as --redact names a bundle, with
# this machine's host id. A fourth bundle, named like ours but of another host
# (its manifest says so), and a fifth of the same hostname but another machine
# (its host id differs), recorded levels that would make it full in minutes:
# neither may be mixed in. The new bundle keeps what it used (raw/history.cap),
# so `sonde analyze` of it alone gives the same answer.
#
# Planted: a shared --out lets anyone write a file named like this host's bundle,
# and the host id is no secret (a hash of the world-readable machine-id). Three
# "audits" of 15, 10 and 5 minutes ago that claim this host id, owned by another
# user (nobody), would make the file system full in minutes; so would one of
# ours that anyone may write (mode 0666), and a symbolic link to a planted one.
# None may be opened: refused, each named in raw/history.cap and in report.md.
#
# The three audits of this host also recorded host memory in use, rising to
# today's level; a fourth, of 12 hours ago but of another boot, recorded far
# less: a reboot frees memory, so use.memory-runout leaves it out (mixed in, the
# levels would not rise consistently: no trend), while the file system's trend,
# which survives a reboot, keeps it.
. tests/lib/tap.sh

for tool in jq mkfs.ext4 losetup; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (to mount a small file system)"

T=$(mktemp -d /tmp/sonde-cli-history.XXXXXX)
MNT=$T/mnt
cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$MNT" "$T/out" "$T/cases" "$T/alone" "$T/probe"
truncate -s 128M "$T/fs.img"
mkfs.ext4 -q -F -m 0 "$T/fs.img" || skip_all "mkfs.ext4 failed"
mount -o loop "$T/fs.img" "$MNT" || skip_all "cannot mount a loop device here"
# fill it to about 10 MiB available
avail_kb=$(df --output=avail -k "$MNT" | tail -1)
fill_mb=$(((avail_kb / 1024) - 10))
dd if=/dev/zero of="$MNT/ballast" bs=1M count="$fill_mb" status=none conv=fsync
sync
HOST=$(cat /proc/sys/kernel/hostname)
read -r bsize blocks bfree bavail files ffree < <(stat -f -c '%S %b %f %a %c %d' "$MNT")
used_now=$(((blocks - bavail) * bsize))
diag "$MNT: $((used_now >> 20)) MiB in use, $((bavail * bsize >> 20)) MiB available"

# This machine's host id, as a run records it (manifest.json).
"$SONDE" run --window 1 --interval 1 --no-progress --check use.filesystem-runout --out "$T/probe" \
	>/dev/null 2>&1
MYID=$(tar -xJOf "$(ls "$T/probe"/*.tar.xz | head -1)" manifest.json 2>/dev/null | jq -r '.host.host_id // empty')
rm -rf "$T/probe"
[ -n "$MYID" ] || skip_all "this host has no machine-id: its bundles are matched by hostname only"
diag "host id $MYID"

BOOT=$(cat /proc/sys/kernel/random/boot_id)
MEM_TOTAL_KB=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
MEM_USED_KB=$((MEM_TOTAL_KB - $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)))
MEM_STEP_KB=$((MEM_USED_KB / 4)) # a day
diag "host memory: $((MEM_USED_KB >> 10)) MiB in use of $((MEM_TOTAL_KB >> 10)) MiB"

# case DIR HOST SECONDS_AGO LEVEL_BYTES [HOST_ID] [BOOT_ID MEM_USED_KB]: a 5 s recording of MNT at
# LEVEL (size minus available), and of host memory at MEM_USED_KB in use
mkcase() {
	local dir=$1 host=$2 ago=$3 level=$4 id=${5:-} boot=${6:-} mem=${7:-} wall0 avail
	wall0=$((($(date +%s) - ago) * 1000000000))
	avail=$(((blocks * bsize - level) / bsize))
	mkdir -p "$dir" "${OUT:-$T/out}"
	{
		echo "%wall0 $wall0"
		echo "=== sonde 4 4.001 sonde:run"
		printf 'version: 0.1.0\nwindow_s: 4.000\ninterval_s: 1.000\nstart_wall_ns: %s\n' "$wall0"
		printf 'end_wall_ns: %s\nstart_mono_ns: 1000000000000\nend_mono_ns: 1004001000000\n' \
			"$((wall0 + 4001000000))"
		printf 'samples: 5\npartial: 0\nstop_reason: complete\nclk_tck: 100\npage_size: 4096\n'
		echo "=== host 0 0 /proc/sys/kernel/hostname"
		echo "$host"
		echo "=== host 0 0 /proc/uptime"
		echo "1000.00 1990.00"
		if [ -n "$id" ]; then
			echo "=== host 0 0 sonde:host-id"
			echo "$id"
		fi
		if [ -n "$boot" ]; then
			echo "=== host 0 0 /proc/sys/kernel/random/boot_id"
			echo "$boot"
		fi
		for i in 0 1 2 3 4; do
			[ -n "$mem" ] || break
			echo "=== proc.meminfo $i $i /proc/meminfo"
			printf 'MemTotal: %s kB\nMemFree: %s kB\nMemAvailable: %s kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n' \
				"$MEM_TOTAL_KB" "$((MEM_TOTAL_KB - mem))" "$((MEM_TOTAL_KB - mem))"
		done
		for i in 0 1 2 3 4; do
			echo "=== proc.mounts $i $i sonde:statfs"
			printf 'ok\t7:99\text4\t/dev/loop99\t%s\tloop99\t%s %s %s %s %s %s 0\n' "$MNT" "$bsize" \
				"$blocks" "$avail" "$avail" "$files" "$ffree"
		done
	} >"$dir/case.txt"
	"$TOP/tests/checks/mkcap" "$dir/case.txt" "$dir/raw" &&
		"$SONDE" analyze "$dir" --check use.filesystem-runout --check use.memory-runout --out "${OUT:-$T/out}" \
			>/dev/null 2>&1
}

MiB=1048576
DAY=86400
mkcase "$T/cases/d3" "$HOST" $((3 * DAY)) $((used_now - 3 * 20 * MiB)) "$MYID" "$BOOT" \
	$((MEM_USED_KB - 3 * MEM_STEP_KB)) || diag "making the bundle of 3 days ago failed"
mkcase "$T/cases/d2" "$HOST" $((2 * DAY)) $((used_now - 2 * 20 * MiB)) "" "$BOOT" \
	$((MEM_USED_KB - 2 * MEM_STEP_KB)) || diag "making the bundle of 2 days ago failed"
# the audit of a day ago was redacted (sonde redact, as --redact writes it): named after host-1,
# its host id kept
mkdir -p "$T/plain"
mkcase "$T/cases/d1" "$HOST" $DAY $((used_now - 1 * 20 * MiB)) "$MYID" "$BOOT" $((MEM_USED_KB - MEM_STEP_KB)) ||
	diag "making the bundle of 1 day ago failed"
d1=$(ls -t "$T/out"/sonde-"$HOST"-*.tar.xz | head -1)
mv "$d1" "$T/plain/"
"$SONDE" redact "$T/plain/$(basename "$d1")" --out "$T/out" >/dev/null 2>&1 || diag "sonde redact failed"
rm -f "$T/out"/*.redaction-map.json
# 12 hours ago, of another boot: the file system on its line, host memory far below
mkcase "$T/cases/reboot" "$HOST" $((DAY / 2)) $((used_now - 10 * MiB)) "$MYID" "$(cat /proc/sys/kernel/random/uuid)" \
	$((MEM_USED_KB / 16)) || diag "making the bundle of another boot failed"
# another host's bundle, renamed to look like ours, of 6 hours ago at a level far below
mkcase "$T/cases/other" "not-$HOST" 0 $((used_now - 100 * MiB))
other=$(ls -t "$T/out"/sonde-not-*.tar.xz | head -1)
mv "$other" "$T/out/sonde-$HOST-20000101T000000Z.tar.xz"
# another machine of the same name (its host id differs), 12 hours ago, far below too
mkcase "$T/cases/twin" "$HOST" 0 $((used_now - 100 * MiB)) "0123456789abcdef0123456789abcdef"
twin=$(ls -t "$T/out"/sonde-"$HOST"-*.tar.xz | head -1)
mv "$twin" "$T/out/sonde-$HOST-20000102T000000Z.tar.xz"
is "$(ls "$T/out"/sonde-"$HOST"-*.tar.xz | wc -l)" 5 "five earlier bundles named for this host in --out"
is "$(ls "$T/out"/sonde-host-1-*.tar.xz | wc -l)" 1 "and one redacted, named after host-1"
is "$(tar -xJOf "$(ls "$T/out"/sonde-host-1-*.tar.xz | head -1)" manifest.json | jq -r '.host.host_id')" "$MYID" \
	"the redacted bundle keeps the host id"

# the planted ones (see the top), made in a directory of their own, then moved into --out
for ago in 900 600 300 240; do
	OUT=$T/plant mkcase "$T/cases/plant-$ago" "$HOST" $ago $((used_now - ago * 20 * MiB / 300)) "$MYID" "$BOOT" \
		"$MEM_USED_KB" || diag "making the planted bundle of $ago s ago failed"
done
planted=$(ls "$T/plant"/sonde-"$HOST"-*.tar.xz | sort)
is "$(wc -l <<<"$planted")" 4 "four planted bundles made"
chown nobody $(sed -n 1,3p <<<"$planted")
chmod 0666 "$(sed -n 4p <<<"$planted")"
mv $planted "$T/out/"
ln -s "$T/out/$(basename "$(sed -n 3p <<<"$planted")")" "$T/out/sonde-$HOST-$(date -u -d @$(($(date +%s) - 60)) +%Y%m%dT%H%M%SZ).tar.xz"

# a ticket's bundle (a case id in its name: sonde-HOST-CASE-TIME) of long ago, the other host's
# copied: newest first goes by the time in the name, wherever it is
cp "$T/out/sonde-$HOST-20000101T000000Z.tar.xz" "$T/out/sonde-$HOST-CASE-9-20000103T000000Z.tar.xz"

"$SONDE" run --window 5 --interval 1 --no-progress --json --check use.filesystem-runout \
	--check use.memory-runout --out "$T/out" >"$T/findings.json" 2>"$T/stderr"
rc=$?
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
F=$T/findings.json
C='.checks[] | select(.id == "use.filesystem-runout")'
left=$(jq -r --arg m "$MNT" "$C | .metrics[] | select(.name == \"time_left_s\" and .instance == \$m) | .value" "$F" | head -1)
diag "time left: ${left:-none} s; summary: $(jq -r "$C | .summary" "$F")"
ok "the earlier audits give a time to full of 6 to 24 hours (${left:-none} s)" \
	awk -v v="${left:-0}" 'BEGIN { exit !(v >= 6 * 3600 && v <= 24 * 3600) }'
is "$(jq -r "$C | .status" "$F")" warn "use.filesystem-runout warns (under a day)"
ok "the summary says how much it grew since which audit" \
	grep -q "grew .* since the audit of $(date -u -d @$(($(date +%s) - 3 * 86400)) +%Y-%m-%d)" <(jq -r "$C | .summary" "$F")

NEW=$(ls -t "$T/out"/sonde-"$HOST"-*.tar.xz | head -1)
tar -xJf "$NEW" -C "$T/alone" raw/history.cap report.md
ok "the new bundle keeps raw/history.cap" test -s "$T/alone/raw/history.cap"
ok "it names the four bundles it used" test "$(grep -c '^used ' "$T/alone/raw/history.cap")" -eq 4
ok "it skipped the other host's, saying why" grep -q "skipped sonde-$HOST-20000101T000000Z.tar.xz: another host" \
	"$T/alone/raw/history.cap"
ok "it skipped the other machine of the same name: its machine-id differs" \
	grep -q "skipped sonde-$HOST-20000102T000000Z.tar.xz: another machine: its machine-id differs" \
	"$T/alone/raw/history.cap"
ok "it says which matched by machine-id" test "$(grep -c '^used .* (same machine-id)$' "$T/alone/raw/history.cap")" -eq 3
ok "and which by hostname (a bundle without a host id)" \
	grep -q '^used .* (same hostname: it records no machine-id)$' "$T/alone/raw/history.cap"
ok "the redacted bundle (named after host-1) is used by its host id" \
	grep -q '^used sonde-host-1-.* (same machine-id)$' "$T/alone/raw/history.cap"
for f in $(sed -n 1,3p <<<"$planted"); do
	ok "it refused $(basename "$f"), planted by another user" \
		grep -qxF "refused $(basename "$f"): owned by uid $(id -u nobody), not by this user (uid 0)" "$T/alone/raw/history.cap"
done
ok "it refused the one anyone may write" \
	grep -qxF "refused $(basename "$(sed -n 4p <<<"$planted")"): writable by others (mode 0666)" "$T/alone/raw/history.cap"
ok "it refused the symbolic link" grep -q "^refused sonde-$HOST-.*: a symbolic link$" "$T/alone/raw/history.cap"
ok "report.md says five were refused, naming them" \
	grep -q "earlier bundles in --out (raw/history.cap): 4 used, .* skipped, 5 refused (not this user's own, or writable by others): .*$(basename "$(sed -n 3p <<<"$planted")")" "$T/alone/report.md"
order=$(grep -E '^(used|skipped) ' "$T/alone/raw/history.cap" | awk '{ sub(/:$/, "", $2); print $2 }')
is "$(sed -n 5p <<<"$order")" "sonde-$HOST-CASE-9-20000103T000000Z.tar.xz" \
	"newest first by the time in the name: the case's bundle of 2000 comes after the four of this week"
ok "report.md names an earlier bundle" grep -q "Earlier audits of this host" "$T/alone/report.md"

# host memory: the three audits of this boot and this window make a trend; the one of another boot
# is left out (mixed in, its level far below would leave no consistent rise)
M='.checks[] | select(.id == "use.memory-runout")'
mleft=$(jq -r "$M | .metrics[] | select(.name == \"time_left_s\" and .instance == \"host\") | .value" "$F" | head -1)
diag "host memory: time left ${mleft:-none} s; summary: $(jq -r "$M | .summary" "$F")"
ok "host memory's trend across the audits of this boot gives a time to exhaustion (${mleft:-none} s)" \
	awk -v v="${mleft:-0}" 'BEGIN { exit !(v > 86400) }'
is "$(grep -c $'^metric\tuse.memory-runout\tused_bytes\thost\t' "$T/alone/raw/history.cap")" 4 \
	"history.cap holds the host memory level of the four bundles used"
ok "report.md says the audit of another boot was left out of host memory's trend" \
	grep -q "host memory: 1 earlier audit of another boot left out (a reboot resets it)" "$T/alone/report.md"

# The new bundle alone, the earlier ones gone: the same answer from its captures.
mkdir -p "$T/replay"
mv "$NEW" "$T/replay/"
rm -f "$T/out"/*.tar.xz
"$SONDE" analyze "$T/replay/$(basename "$NEW")" --json --check use.filesystem-runout >"$T/again.json" 2>/dev/null
again=$(jq -r --arg m "$MNT" "$C | .metrics[] | select(.name == \"time_left_s\" and .instance == \$m) | .value" "$T/again.json" | head -1)
is "$again" "$left" "sonde analyze of the new bundle alone gives the same time to full"
is "$(jq -r "$C | .status" "$T/again.json")" warn "and the same status"

done_testing
