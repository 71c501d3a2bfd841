#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: file system capacity and its errors on a file system the test makes.
# A 64 MiB ext4 with 128 inodes on a loop device is mounted in a temp dir,
# its space filled to 97% of what df calls its size (used + available) and
# its inodes to the last one; during the window a touch under a distinctive
# name creates new files, again and again, and gets ENOSPC (out of inodes: a
# failed create takes no space, so the space figure stays where df saw it).
# Asserted: use.filesystem-utilization measures the space within 0.5 points
# of df, between 95 and 99%, crit, and the inodes at 100%, crit;
# the full file system fires the drill-down, where drilldown.filesystem-who
# (syscount: every syscall, so never in the first window) counts ENOSPC
# failures and names our touch, when syscount's predicted cost fits the budget
# on this host; ext4's errors_count for the mount is read (0).
# The host is shared: we assert on our own mount and process only.
. tests/lib/tap.sh

for tool in jq losetup mkfs.ext4 fallocate mount umount; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to attach a loop device and mount it"

T=$(mktemp -d /tmp/sonde-live-fs.XXXXXX)
LOOP=
MNT=$T/mnt
MOUNTED=
LOAD=
cleanup() {
	[ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null
	wait 2>/dev/null
	[ -n "$MOUNTED" ] && umount "$MNT" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export LC_ALL=C

truncate -s 64M "$T/backing.img" || skip_all "cannot create a 64 MiB file in $T"
mkfs.ext4 -q -F -N 128 "$T/backing.img" >"$T/mkfs.out" 2>&1 || skip_all "mkfs.ext4 failed: $(tr '\n' ' ' <"$T/mkfs.out")"
LOOP=$(losetup -f --show "$T/backing.img" 2>"$T/losetup.err")
if [ -z "$LOOP" ] || [ ! -b "$LOOP" ]; then
	LOOP=
	skip_all "losetup -f --show failed: $(tr '\n' ' ' <"$T/losetup.err")"
fi
mkdir "$MNT"
mount -t ext4 "$LOOP" "$MNT" 2>"$T/mount.err" || skip_all "mount failed: $(tr '\n' ' ' <"$T/mount.err")"
MOUNTED=1

# 97% of df's size: used / (used + avail)
read -r used avail < <(df -B1 --output=used,avail "$MNT" | tail -1)
fill=$(((used + avail) * 97 / 100 - used))
ok "filled our file system ($fill bytes)" fallocate -l "$fill" "$MNT/fill"
i=0
while touch "$MNT/i$i" 2>/dev/null; do i=$((i + 1)); [ $i -lt 100000 ] || break; done
diag "$i empty files made before the inodes ran out"
read -r used avail < <(df -B1 --output=used,avail "$MNT" | tail -1)
want=$(awk -v u="$used" -v a="$avail" 'BEGIN { printf "%.2f", 100 * u / (u + a) }')
diag "$LOOP on $MNT: $want% used (df)"

FA=fsfull$$
FA=${FA:0:15}
cp "$(command -v touch)" "$T/$FA"
(while :; do "$T/$FA" "$MNT/more" 2>/dev/null; sleep 0.05; done) &
LOAD=$!

mkdir "$T/out"
"$SONDE" run --window 3 --interval 1 --out "$T/out" --no-progress --json \
	--check use.filesystem-utilization --check use.filesystem-errors >"$T/findings.json" 2>"$T/stderr"
rc=$?
kill "$LOAD" 2>/dev/null
wait "$LOAD" 2>/dev/null
LOAD=
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
F=$T/findings.json
jq_true() { jq -e "$@" >/dev/null 2>&1; }
jq_num() { jq -r "$@" "$F"; }

pct=$(jq_num --arg m "$MNT" '[.checks[] | select(.id == "use.filesystem-utilization") | .metrics[] | select(.name == "used_pct" and .instance == $m) | .value][0] // "none"')
diag "sonde: $pct% used on $MNT (df: $want%)"
ok "used_pct of our mount is 95..99% (df said $want%)" awk -v p="$pct" 'BEGIN { exit !(p != "none" && p >= 95 && p <= 99) }'
ok "within 0.5 points of df" awk -v p="$pct" -v d="$want" 'BEGIN { x = p - d; if (x < 0) x = -x; exit !(p != "none" && x <= 0.5) }'
is "$(jq_num --arg m "$MNT" '[.checks[] | select(.id == "use.filesystem-utilization") | .metrics[] | select(.name == "used_pct" and .instance == $m) | .status][0]')" crit "our mount is crit"
is "$(jq_num --arg m "$MNT" '[.checks[] | select(.id == "use.filesystem-utilization") | .metrics[] | select(.name == "inodes_pct" and .instance == $m) | "\(.value) \(.status)"][0]')" "100 crit" "inodes of our mount: 100%, crit"
is "$(jq_num --arg m "$MNT" '[.checks[] | select(.id == "use.filesystem-errors") | .metrics[] | select(.name == "fs_errors" and .instance == $m) | .value][0]')" 0 "ext4 errors_count read for our mount: no new errors"

ok "the first window traces no syscall" jq_true '[.tools[] | select(.name == "syscount")] | length == 0' "$F"
ok "the full file system fired the drill-down" jq_true \
	'.drilldown.fired[] | select(.trigger == "use.filesystem-utilization")' "$F"
sc=$(jq -r '.drilldown.tools[]? | select(.name == "syscount") | .status' "$F")
if [ "$sc" = ok ]; then
	n=$(jq_num '[.checks[] | select(.id == "drilldown.filesystem-who") | .metrics[] | select(.name == "enospc_edquot_errors") | .value][0] // 0')
	diag "ENOSPC/EDQUOT failures in the drill-down window: $n"
	ok "ENOSPC failures counted ($n)" test "$n" -ge 3
	ok "our touch ($FA) is a culprit" jq_true --arg c "$FA" '[.checks[] | select(.id == "drilldown.filesystem-who") | .culprits[]?.comm] | index($c) != null' "$F"
else
	why="syscount did not run in the drill-down: $(jq -r '.drilldown.tools[]? | select(.name == "syscount") | .reason // .status' "$F")"
	skip "ENOSPC failures counted" "$why"
	skip "our touch is a culprit" "$why"
fi
# keep the bundle for a golden case when asked
[ -z "$KEEP_BUNDLE" ] || cp "$T"/out/sonde-*.tar.xz "$KEEP_BUNDLE" && diag "bundle kept in $KEEP_BUNDLE"
done_testing
