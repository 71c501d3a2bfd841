#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: sonde's file system levels agree with df -B1 on this host's mounts.
# df counts used as size - free (f_blocks - f_bfree) and its Use% as used of
# used + available: the blocks free but not available to non-root (ext4's root
# reserve) are neither used nor available. A 256 MiB ext4 with 10% reserved
# (mkfs.ext4 -m 10) on a loop device is mounted in a temp dir and 40 MiB
# written to it; nothing else writes there, so on our mount use.filesystem-runout's
# used_bytes must equal df's Used, its reserved_bytes size - used - available,
# and use.filesystem-utilization's used_pct df's Use% (df rounds it up). Every
# other mount sonde measured and df lists is compared too, within what a shared
# host writes in a few seconds (the larger of 64 MiB and 0.5% of its size).
. tests/lib/tap.sh

for tool in jq mkfs.ext4 fallocate mount umount mountpoint df awk; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount a loop file system"

T=$(mktemp -d /tmp/sonde-live-df.XXXXXX)
MNT=$T/mnt
# mount -o loop: the loop device goes with the umount
tap_cleanup_extra() { mountpoint -q "$MNT" && umount "$MNT"; }
tap_kill_at_exit
export LC_ALL=C

mkdir "$MNT"
truncate -s 256M "$T/backing.img" || skip_all "cannot create a 256 MiB file in $T"
mkfs.ext4 -q -F -m 10 "$T/backing.img" >"$T/mkfs.out" 2>&1 ||
	skip_all "mkfs.ext4 failed: $(tr '\n' ' ' <"$T/mkfs.out")"
mount -o loop "$T/backing.img" "$MNT" 2>"$T/mount.err" ||
	skip_all "cannot mount a loop device here: $(tr '\n' ' ' <"$T/mount.err")"
ok "40 MiB written to our file system" fallocate -l 40M "$MNT/fill"
sync -f "$MNT/fill"

mkdir "$T/out"
"$SONDE" run --window 2 --interval 1 --out "$T/out" --no-progress --json --no-bpf --no-perf \
	--no-drilldown --check use.filesystem-runout --check use.filesystem-utilization \
	>"$T/findings.json" 2>"$T/stderr"
rc=$?
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
# df after sonde: target size used avail pcent, one line per mount (no spaces in the targets kept)
df -B1 --output=target,size,used,avail,pcent 2>/dev/null | awk 'NR > 1 && NF == 5' >"$T/df"

F=$T/findings.json
metric() { # CHECK NAME INSTANCE
	jq -r --arg c "$1" --arg n "$2" --arg m "$3" \
		'[.checks[] | select(.id == $c) | .metrics[] | select(.name == $n and .instance == $m) | .value][0] // "none"' "$F"
}

read -r size used avail pcent < <(awk -v m="$MNT" '$1 == m { print $2, $3, $4, $5 }' "$T/df")
reserved=$((size - used - avail))
diag "df on $MNT: size $size, used $used, avail $avail, Use% $pcent, reserved $reserved"
ok "our file system has blocks reserved for root ($reserved bytes)" test "$reserved" -gt 0
is "$(metric use.filesystem-runout used_bytes "$MNT")" "$used" "our mount: used_bytes is df's Used"
is "$(metric use.filesystem-runout reserved_bytes "$MNT")" "$reserved" \
	"our mount: reserved_bytes is df's size - Used - Avail"
pct=$(metric use.filesystem-utilization used_pct "$MNT")
want=$(awk -v u="$used" -v a="$avail" 'BEGIN { printf "%.4f", 100 * u / (u + a) }')
ok "our mount: used_pct $pct is used / (used + avail) = $want" \
	awk -v p="$pct" -v w="$want" 'BEGIN { x = p - w; if (x < 0) x = -x; exit !(p != "none" && x < 0.01) }'
ok "our mount: used_pct rounds up to df's Use% $pcent" \
	awk -v p="$pct" -v d="${pcent%\%}" 'BEGIN { c = int(p); if (c < p) c++; exit !(p != "none" && c == d) }'

# every other mount both measured
n=0
while read -r target size used avail pcent; do
	[ "$target" = "$MNT" ] && continue
	got=$(metric use.filesystem-runout used_bytes "$target")
	[ "$got" = none ] && continue
	n=$((n + 1))
	tol=$((size / 200 > 67108864 ? size / 200 : 67108864))
	ok "$target: used_bytes $got is df's Used $used (within $tol)" \
		awk -v g="$got" -v u="$used" -v t="$tol" 'BEGIN { x = g - u; if (x < 0) x = -x; exit !(x <= t) }'
	got=$(metric use.filesystem-runout reserved_bytes "$target")
	ok "$target: reserved_bytes $got is df's size - Used - Avail $((size - used - avail)) (within $tol)" \
		awk -v g="$got" -v r="$((size - used - avail))" -v t="$tol" \
		'BEGIN { x = g - r; if (x < 0) x = -x; exit !(g != "none" && x <= t) }'
done <"$T/df"
diag "$n other mounts compared"
done_testing
