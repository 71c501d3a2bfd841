#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: file systems running out. A 256 MiB ext4 (a loop device) fills at
# 12 MiB/s, written by sondefill, which also keeps a 16 MiB file it deleted
# open; a second one, made with 4096 inodes, loses 150 inodes a second to
# sondemkfiles working in it. sonde must find both filling, with a time to full
# that matches what is left and the rate (within a factor of 2), name each writer,
# and list the deleted-but-open file with its holder.
. tests/lib/tap.sh
. tests/lib/runout.sh

runout_needs jq perl mkfs.ext4 losetup
[ "$(id -u)" -eq 0 ] || skip_all "needs root (to mount loop file systems)"

T=$(mktemp -d /tmp/sonde-scn-fs.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for m in "$T/space" "$T/inodes"; do mountpoint -q "$m" && umount "$m"; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$T/space" "$T/inodes" "$T/out"
truncate -s 256M "$T/space.img" "$T/inodes.img"
mkfs.ext4 -q -F -m 0 "$T/space.img" && mkfs.ext4 -q -F -m 0 -N 4096 "$T/inodes.img" ||
	skip_all "mkfs.ext4 failed"
mount -o loop "$T/space.img" "$T/space" && mount -o loop "$T/inodes.img" "$T/inodes" ||
	skip_all "cannot mount loop devices here"

# sondefill: 1.2 MiB every 100 ms, synced; first a 16 MiB file it deletes and keeps open
cat >"$T/sondefill" <<'PERL'
#!/usr/bin/perl
use IO::Handle;
my $dir = shift;
open(my $old, '>', "$dir/old.log") or die; print $old "y" x (16 << 20); $old->flush; unlink "$dir/old.log";
open(my $f, '>', "$dir/data") or die;
my $chunk = "x" x (1200 << 10);
for (1 .. 400) { print $f $chunk; $f->flush; $f->sync; select(undef, undef, undef, 0.1) }
PERL
# sondemkfiles: 15 empty files every 100 ms in its working directory
cat >"$T/sondemkfiles" <<'PERL'
#!/usr/bin/perl
chdir(shift) or die;
my $n = 0;
for (1 .. 400) { for (1 .. 15) { open(my $f, '>', "f" . $n++) or exit 0; close $f } select(undef, undef, undef, 0.1) }
PERL
chmod +x "$T/sondefill" "$T/sondemkfiles"
"$T/sondefill" "$T/space" &
PIDS+=($!)
"$T/sondemkfiles" "$T/inodes" &
PIDS+=($!)
space_avail() { df --output=avail -B1 "$T/space" | tail -1; }
inodes_free() { df --output=iavail "$T/inodes" | tail -1; }
runout_sample "$T/space.samples" space_avail
runout_sample "$T/inodes.samples" inodes_free
sleep 1

runout_run "$T/f.json" --check use.filesystem-runout --out "$T/out"
F=$T/f.json
# what was left when the window ended, as the test itself saw it
avail=$(runout_at_end "$F" "$T/space.samples")
ifree=$(runout_at_end "$F" "$T/inodes.samples")
space_left=$(runout_metric "$F" use.filesystem-runout time_left_s "$T/space")
inode_left=$(runout_metric "$F" use.filesystem-runout time_left_s "$T/inodes inodes")
diag "at the end of the window: $avail bytes available, $ifree inodes free"
# 12 MiB/s and 150/s; the run ended a moment before the test read what is left
runout_between "space: time to full matches what is left at 12 MiB/s" "$space_left" \
	"$(awk -v a="$avail" 'BEGIN { print a / (12 * 1048576) / 2 }')" \
	"$(awk -v a="$avail" 'BEGIN { print (a + 6 * 1048576) / (12 * 1048576) * 2 }')"
runout_between "inodes: time to exhaustion matches what is left at 150/s" "$inode_left" \
	"$(awk -v a="$ifree" 'BEGIN { print a / 150 / 2 }')" "$(awk -v a="$ifree" 'BEGIN { print (a + 75) / 150 * 2 }')"
is "$(runout_status "$F" use.filesystem-runout)" crit "use.filesystem-runout is crit"
comms=$(jq -r '[.findings[] | select(.check == "use.filesystem-runout")][0].culprits | map(.comm) | join(" ")' "$F")
ok "a writer is named: sondefill or sondemkfiles ($comms)" grep -Eq 'sondefill|sondemkfiles' <<<"$comms"
B=$(ls "$T/out"/*.tar.xz | head -1)
tar -xJOf "$B" report.md >"$T/report.md"
if [ "$(runout_finding "$F" use.filesystem-runout '.culprits[0].comm')" = sondefill ]; then
	ok "the deleted but open file is listed with its holder" grep -qF 'old.log (deleted)' "$T/report.md"
	ok "the inodes file system is named with its writer too" grep -q 'also.*inodes.*sondemkfiles' "$T/report.md"
else
	skip "deleted file" "the inodes file system ran out first: the deleted file is listed for the space one only"
	ok "the space file system is named with its writer too" grep -q 'also.*sondefill' "$T/report.md"
fi
done_testing
