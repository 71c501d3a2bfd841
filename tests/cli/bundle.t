#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bundles as a support engineer gets them: verify, show, analyze a bundle file;
# tampered and crafted bundles are refused with one line naming the member,
# and nothing is written outside the private directory.
. tests/lib/tap.sh

for tool in jq tar xz sha256sum; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-cli-bundle.XXXXXX)
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

# show
out=$("$SONDE" show "$B"); rc=$?
is "$rc" 0 "show: exit 0"
ok "show: prints the verdict" grep -q "^Verdict: " <<<"$out"
ok "show: prints the USE matrix" grep -q "^  cpu" <<<"$out"
"$SONDE" show "$B" --json >"$T/show.json"
ok "show --json: findings.json, as run --json printed it" cmp -s "$T/show.json" "$T/run.json"
ok "show --md: report.md" sh -c "'$SONDE' show '$B' --md | head -1 | grep -q '^# sonde report'"
ok "show MEMBER: a capture stream" sh -c "'$SONDE' show '$B' raw/sonde.cap | head -1 | grep -q '^sonde-capture 1'"
"$SONDE" show "$B" raw/proc.pids.cap 2>/dev/null | head -c 1 >/dev/null
is "$(ls -A "$TMPDIR" | wc -l)" 0 "show MEMBER | head: a reader that stops early leaves no private directory"
"$SONDE" show "$B" ../../etc/passwd >/dev/null 2>&1; rc=$?
is "$rc" 2 "show: a member name leaving the bundle is a usage error"

# analyze a bundle file: same checks, same findings, no live host access needed
"$SONDE" analyze "$B" --json >"$T/analyze.json" 2>/dev/null; rc=$?
is "$rc" 0 "analyze BUNDLE: exit 0"
is "$(jq -c '[.checks[] | [.id, .status]]' "$T/analyze.json")" \
	"$(jq -c '[.checks[] | [.id, .status]]' "$T/run.json")" "analyze BUNDLE: the run's checks and statuses"
is "$(jq -c '[.findings[] | .check]' "$T/analyze.json")" \
	"$(jq -c '[.findings[] | .check]' "$T/run.json")" "analyze BUNDLE: the run's findings, in order"
out=$("$SONDE" analyze "$B" 2>/dev/null)
ok "analyze BUNDLE: says the findings are the same as recorded" grep -q "^Same findings as recorded in the bundle" <<<"$out"
mkdir -p "$T/newer/use"
cat >"$T/newer/use/always-warn.lua" <<'LUA'
return { id = "use.always-warn", title = "Always warn", methodology = "use", resource = "cpu",
  metric = "errors", collect = {}, run = function(ctx) ctx:metric("x", 5, { warn = 1 }) end }
LUA
out=$("$SONDE" analyze "$B" --checks "$T/newer" 2>/dev/null)
ok "analyze with a newer check: says what changed" grep -Eq "^  new .*use.always-warn" <<<"$out"
mkdir "$T/re"
"$SONDE" analyze "$B" --out "$T/re" >/dev/null 2>&1
R=$(ls "$T"/re/sonde-*.tar.xz 2>/dev/null | head -1)
ok "analyze --out: a new bundle" test -f "$R"
ok "the new bundle verifies" "$SONDE" verify "$R"
is "$(ls -A "$TMPDIR" | wc -l)" 0 "analyze: the private directory is removed"

# analyze --out keeps all of raw/, not only the streams it parses: the BPF
# tools' documents and the folded profiles are what the report draws and what
# sonde diff compares (a golden case with both, and a drill-down's captures).
for c in workload.cpu-why/hog drilldown.cpu-who/one-hot-cpu; do
	rm -rf "$T/wh" && mkdir -p "$T/wh"
	"$SONDE" analyze "tests/checks/$c" --out "$T/wh" >/dev/null 2>&1
	is "$(tar -tJf "$T"/wh/sonde-*.tar.xz | grep '^raw/.' | grep -v '/$' | sort)" \
		"$(cd "tests/checks/$c" && find raw -type f | sort)" "analyze --out $c: every file of raw/ in the new bundle"
done

done_testing
