#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Out of disk space while writing: a clear one-line error, a non-zero exit, and
# no bundle under its final name.
. tests/lib/tap.sh

[ "$(id -u)" = 0 ] || skip_all "mounting a small tmpfs needs root"
T=$(mktemp -d /tmp/sonde-cli-nospace.XXXXXX)
cleanup() { umount "$T/small" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
mkdir "$T/small"
mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null || skip_all "cannot mount a tmpfs here"

"$SONDE" run --window 2 --out "$T/small" --no-progress >"$T/out" 2>"$T/err"
rc=$?
is "$rc" 1 "a full disk fails the run (exit 1)"
is "$(wc -l <"$T/err")" 1 "one line on stderr"
ok "it says the disk is full (got: $(cat "$T/err"))" grep -q "No space left on device" "$T/err"
is "$(ls "$T"/small/sonde-*.tar.xz 2>/dev/null | wc -l)" 0 "no bundle under a final name"
is "$(ls -a "$T/small" | grep -c '\.tmp\.')" 0 "no temporary bundle left"
done_testing
