#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sonde verify: a fresh bundle verifies; tampered (edited, planted, missing,
# lying manifest) and crafted (symlink out, absolute names, junk, truncated)
# bundles are refused with one line naming the member, and nothing is
# written outside the private directory.
. tests/lib/tap.sh

for tool in jq tar xz sha256sum; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-cli-verify.XXXXXX)
cleanup() { rm -rf "$T"; }
trap cleanup EXIT

export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR" "$T/out"
"$SONDE" run --window 1 --interval 0.5 --out "$T/out" --no-progress --json >"$T/run.json" 2>/dev/null
B=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
ok "a run wrote a bundle to work with" test -f "$B"

# verify
out=$("$SONDE" verify "$B" 2>"$T/err"); rc=$?
is "$rc" 0 "verify: a fresh bundle verifies"
ok "verify: says so" grep -q "verified" <<<"$out"
is "$(ls -A "$TMPDIR" | wc -l)" 0 "verify: the private directory is removed"

# Tampered copies, re-packed with GNU tar the way someone editing a bundle would.
tamper() { # NAME CMD...: extract, run CMD in the tree, re-pack as NAME.tar.xz
	local name=$1
	shift
	rm -rf "$T/x" && mkdir "$T/x" && tar -xJf "$B" -C "$T/x" && (cd "$T/x" && "$@") &&
		tar -cJf "$T/$name.tar.xz" -C "$T/x" .
}
expect_refusal() { # NAME PATTERN DESCRIPTION
	local err
	err=$("$SONDE" verify "$T/$1.tar.xz" 2>&1 >/dev/null); rc=$?
	is "$rc" 1 "verify $1: exit 1"
	is "$(wc -l <<<"$err")" 1 "verify $1: one line"
	ok "verify $1: $3 (got: $err)" grep -q -- "$2" <<<"$err"
}
tamper edited sh -c 'printf x >> raw/proc.stat.cap'
expect_refusal edited "raw/proc.stat.cap: .*manifest" "names the edited member"
tamper extra sh -c 'echo hi > raw/planted.cap'
expect_refusal extra "raw/planted.cap: in the bundle but not in the manifest" "names the planted member"
tamper missing rm raw/proc.loadavg.cap
expect_refusal missing "raw/proc.loadavg.cap: listed in the manifest but missing" "names the missing member"
tamper liar sh -c 'jq ".files[0].sha256 = \"$(printf %064d 0)\"" manifest.json > m && mv m manifest.json'
expect_refusal liar "sha256 differs" "a manifest that lies about a hash"
tamper nomanifest rm manifest.json
expect_refusal nomanifest "manifest.json" "no manifest"
tamper badjson sh -c 'printf "{\"schema\": \"sonde.manifest/1\", \"files\": [" > manifest.json'
expect_refusal badjson "not valid JSON" "a truncated manifest"

# Crafted: a symlink pointing out, then a file through it; absolute names.
mkdir -p "$T/evil/raw" "$T/outside"
ln -s "$T/outside" "$T/evil/raw/escape"
tar -cJf "$T/symlink.tar.xz" -C "$T/evil" raw
err=$("$SONDE" verify "$T/symlink.tar.xz" 2>&1 >/dev/null); rc=$?
is "$rc" 1 "crafted symlink: refused"
ok "crafted symlink: names the member (got: $err)" grep -q "raw/escape" <<<"$err"
echo pwned >"$T/pwned-src"
tar -cJf "$T/abs.tar.xz" -P "$T/pwned-src" 2>/dev/null
err=$("$SONDE" verify "$T/abs.tar.xz" 2>&1 >/dev/null); rc=$?
is "$rc" 1 "crafted absolute path: refused"
tar -cf "$T/plain.tar" -C "$T/evil" raw
err=$("$SONDE" verify "$T/plain.tar" 2>&1 >/dev/null); rc=$?
is "$rc" 1 "an uncompressed tar is not a bundle"
printf 'not an archive at all' >"$T/junk.tar.xz"
err=$("$SONDE" verify "$T/junk.tar.xz" 2>&1 >/dev/null); rc=$?
is "$rc" 1 "junk is refused"
is "$(wc -l <<<"$err")" 1 "junk: one line"
head -c 20000 "$B" >"$T/cut.tar.xz"
err=$("$SONDE" verify "$T/cut.tar.xz" 2>&1 >/dev/null); rc=$?
is "$rc" 1 "a truncated bundle is refused"
is "$(ls -A "$T/outside" | wc -l)" 0 "nothing was written through the symlink"
is "$(ls -A "$TMPDIR" | wc -l)" 0 "no private directory left behind after refusals"

done_testing
