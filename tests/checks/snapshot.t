#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every case's findings.json, replayed now, equals its snapshot (tests/checks/snapshot):
# the whole document, not only what expected.json asserts, so a change that was
# not meant to change what sonde finds (a refactoring, a new renderer) is proven
# not to. A change that is meant to updates the snapshots in the same commit.
. tests/lib/tap.sh

command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
T=$(mktemp -d /tmp/sonde-snapshot.XXXXXX)
trap 'rm -rf "$T"' EXIT

for c in $(tests/checks/snapshot --cases); do
	if [ ! -f "$c/snapshot.json" ]; then
		ok "$c: has a snapshot (tests/checks/snapshot --update $c)" false
		continue
	fi
	"$SONDE" analyze "$c" --json 2>"$T/err" | tests/checks/snapshot --normalize >"$T/now.json"
	if diff -u "$c/snapshot.json" "$T/now.json" >"$T/diff"; then
		ok "$c: findings.json as in its snapshot" true
	else
		ok "$c: findings.json as in its snapshot" false
		head -40 "$T/diff" | sed 's/^/#   /'
	fi
done
done_testing
