#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Redaction, with canaries: a host named CANARYHOST-x1 (in its own UTS
# namespace) and a process whose command line carries a password, a URL with
# credentials, private, public and IPv6 addresses, a MAC, a home directory, a
# token, and URLs with a signed query, a token-like parameter and a token as
# the user part. `sonde run --redact`, and `sonde redact` on a bundle made without
# it: not one canary anywhere in the decompressed bundle, its name or on the
# terminal; the mapping next to the bundle (mode 0600, never inside); the
# redacted bundle verifies.
. tests/lib/tap.sh

for tool in tar xz jq perl unshare sha256sum; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
unshare -u true 2>/dev/null ||
	skip_all "cannot create a UTS namespace here (unshare -u needs root or user namespaces)"

T=$(mktemp -d /tmp/sonde-cli-redact.XXXXXX)
CANARY_PID=
COMM_PID=
cleanup() {
	[ -n "$CANARY_PID" ] && kill "$CANARY_PID" 2>/dev/null
	[ -n "$COMM_PID" ] && kill "$COMM_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR" "$T/run" "$T/plain" "$T/red"

# The words carry this test's own tag: a bundle holds every process's command
# line, and another run of this test on the same host (a second worktree) greps
# for its canaries, bare words sonde has no reason to drop.
X=$(printf 'q%x' $$)
HOST=CANARYHOST$X-x1
CANARIES=(CANARYHOST$X CANARYPW1$X CANARYSECRET2$X canaryuser$X canarydomain$X 10.77.66.55
	203.0.113.77 2a00:1450::77 aa:bb:cc:11:22:33 CANARYTOKEN3$X CANARYSIG4$X CANARY6$X
	CANARYTOK7$X)

# perl keeps its arguments in /proc/PID/cmdline (sleep would not take them).
perl -e 'sleep 60' -- --password=CANARYPW1$X \
	https://canaryuser$X:CANARYSECRET2$X@canarydomain$X.example.org/x 10.77.66.55 \
	203.0.113.77 fe80::1234 2a00:1450::77 aa:bb:cc:11:22:33 /home/canaryuser$X/data \
	token=CANARYTOKEN3$X 127.0.0.1 \
	"https://bucket.example.org/o?X-Amz-Signature=CANARYSIG4$X&X-Amz-Expires=600" \
	"https://files.example.org/d?t=9a8b7c6d5e4f3a2b1c0dCANARY6$X&n=2" \
	"https://ghp1a2B3c4D5e6FCANARYTOK7$X@git.example.org/x" &
CANARY_PID=$!

# A process whose name looks like a secret: its stat line's COMM, "(token=...)",
# is redacted between its parentheses, and the ')' stays (readers parse from it).
mkdir -p "$T/bin"
cp "$(command -v perl)" "$T/bin/token=K$X"
"$T/bin/token=K$X" -e 'sleep 60' &
COMM_PID=$!

# sonde_as_canary OUT ARGS...: a run on a host named $HOST
sonde_as_canary() {
	local out=$1
	shift
	unshare -u sh -c 'hostname "$0" && exec "$@"' \
		"$HOST" "$SONDE" run --window 2 --no-progress --out "$out" "$@"
}

# quiet CMD...: CMD's status, without its output
quiet() {
	"$@" >/dev/null 2>&1
}

# no_canary NAME FILE: not one canary in FILE, whatever its case
no_canary() {
	local hits=0 c
	for c in "${CANARIES[@]}"; do
		if grep -qaiF -- "$c" "$2"; then
			diag "$1: found $c"
			hits=$((hits + 1))
		fi
	done
	is "$hits" 0 "$1: no canary"
}

# check_redacted WHAT BUNDLE: the whole bundle, decompressed, and its mapping
check_redacted() {
	local what=$1 b=$2 map
	map=${b%.tar.xz}.redaction-map.json
	ok "$what: the bundle is there" test -f "$b"
	no_canary "$what: the bundle's name" <(basename "$b")
	xz -dc "$b" >"$T/all.tar" 2>/dev/null
	ok "$what: it decompresses" test -s "$T/all.tar"
	no_canary "$what: the decompressed bundle" "$T/all.tar"
	# Not a vacuous pass: the canary process was captured, with its secrets dropped.
	ok "$what: the canary command line is in it, redacted" \
		grep -qaF -- "--password=REDACTED" "$T/all.tar"
	ok "$what: token= dropped" grep -qaF "token=REDACTED" "$T/all.tar"
	ok "$what: a signed URL's signature dropped, the rest kept" \
		grep -qaF "?X-Amz-Signature=REDACTED&X-Amz-Expires=600" "$T/all.tar"
	ok "$what: a parameter that reads as a token dropped" grep -qaF "?t=REDACTED&n=2" "$T/all.tar"
	ok "$what: a token as a URL's user part dropped" grep -qaF "https://REDACTED@" "$T/all.tar"
	ok "$what: a process named token=...: its stat line keeps its shape" \
		grep -qaE "^$COMM_PID \(token=REDACTED\) [RSD] " "$T/all.tar"
	is "$(grep -acE "^$COMM_PID \(token=REDACTED [RSD] " "$T/all.tar")" 0 \
		"$what: no stat line of it lost its ')'"
	ok "$what: the URL's password dropped, its user pseudonymized" \
		grep -qaE "https://user-[0-9]+:REDACTED@" "$T/all.tar"
	ok "$what: the loopback address stays" grep -qaF "127.0.0.1" "$T/all.tar"
	ok "$what: the mapping is next to the bundle" test -f "$map"
	is "$(stat -c %a "$map" 2>/dev/null)" 600 "$what: the mapping is mode 0600"
	ok "$what: the mapping names the host" grep -qF "\"$HOST\": \"host-1\"" "$map"
	ok "$what: it is valid JSON" quiet jq -e '.schema == "sonde.redaction-map/1"' "$map"
	p=$(jq -r '.ipv4["10.77.66.55"] // empty' "$map")
	ok "$what: 10.77.66.55 has a private pseudonym that the bundle uses ($p)" \
		sh -c "echo '$p' | grep -q '^10\.' && grep -qaF '$p' '$T/all.tar'"
	is "$(tar -tJf "$b" | grep -c 'redaction-map')" 0 "$what: the mapping is not in the bundle"
	ok "$what: the redacted bundle verifies" quiet "$SONDE" verify "$b"
	is "$(jq -r .host.hostname <("$SONDE" show "$b" --json))" host-1 \
		"$what: findings.json names host-1"
}

# ---- sonde run --redact ----
sonde_as_canary "$T/run" --redact >"$T/run.out" 2>"$T/run.err"
rc=$?
is "$rc" 0 "run --redact: exit 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/run.err"
B=$(ls "$T"/run/sonde-*.tar.xz 2>/dev/null | head -1)
check_redacted "run --redact" "$B"
no_canary "run --redact: the terminal" "$T/run.out"
ok "run --redact: the terminal names the mapping" grep -q "^Redaction map" "$T/run.out"
# The checks ran on the redacted captures: analyze over the bundle finds the same.
"$SONDE" show "$B" --json >"$T/run.json" 2>/dev/null
"$SONDE" analyze "$B" --json >"$T/analyze.json" 2>/dev/null
is "$(jq -c '[.checks[] | [.id, .status]]' "$T/analyze.json")" \
	"$(jq -c '[.checks[] | [.id, .status]]' "$T/run.json")" \
	"run --redact: analyze over the redacted bundle gives the run's checks and statuses"
is "$(ls -A "$T/run" | grep -vc -e '\.tar\.xz$' -e '\.redaction-map\.json$')" 0 \
	"run --redact: nothing else in --out"

# ---- sonde redact BUNDLE ----
sonde_as_canary "$T/plain" >/dev/null 2>&1
P=$(ls "$T"/plain/sonde-*.tar.xz 2>/dev/null | head -1)
ok "a run without --redact names the canary host (the test sees what it should)" \
	sh -c "echo '$P' | grep -q $HOST && xz -dc '$P' | grep -qaF CANARYPW1$X"
before=$(sha256sum <"$P")
"$SONDE" redact "$P" --out "$T/red" >"$T/redact.out" 2>"$T/redact.err"
is "$?" 0 "redact BUNDLE: exit 0"
R=$(ls "$T"/red/sonde-*.tar.xz 2>/dev/null | head -1)
check_redacted "redact BUNDLE" "$R"
no_canary "redact BUNDLE: what it prints" "$T/redact.out"
is "$(sha256sum <"$P")" "$before" "redact BUNDLE: the original is not changed"
is "$(ls -A "$TMPDIR" | wc -l)" 0 "redact BUNDLE: the private directory is removed"
"$SONDE" redact "$P" >/dev/null 2>&1
is "$(ls "$T"/plain/sonde-host-1-*.tar.xz 2>/dev/null | wc -l)" 1 \
	"redact BUNDLE: without --out, the copy goes next to the bundle"

# ---- refusals ----
"$SONDE" redact >/dev/null 2>&1
is "$?" 2 "redact without a bundle: usage error"
"$SONDE" redact --help >"$T/help" 2>&1
ok "redact --help teaches its usage" grep -q "usage: sonde redact BUNDLE" "$T/help"
mkdir "$T/x" && tar -xJf "$P" -C "$T/x"
"$SONDE" redact "$T/x" --out "$T/red" >/dev/null 2>&1
is "$?" 2 "redact a directory: usage error (it never rewrites one in place)"
printf x >>"$T/x/raw/sonde.cap"
tar -cJf "$T/tampered.tar.xz" -C "$T/x" .
mkdir "$T/none"
err=$("$SONDE" redact "$T/tampered.tar.xz" --out "$T/none" 2>&1 >/dev/null)
is "$?" 1 "a bundle that does not verify is refused (got: $err)"
is "$(ls -A "$T/none" | wc -l)" 0 "and nothing is written"

done_testing
