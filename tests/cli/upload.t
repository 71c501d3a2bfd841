#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sonde run --upload URL --case-id ID against a ticket system's endpoint this
# test starts on 127.0.0.1 (tests/lib/upload-server.py): HTTPS PUT with a
# private CA, POST multipart with the case id, retries with backoff through
# 503s, and failures (a server that refuses, no server at all) that keep the
# bundle, exit 4 and say where it is. A URL's secrets, read from a file, never
# reach the bundle.
. tests/lib/tap.sh
. tests/lib/net.sh
. tests/lib/sshd.sh

for tool in python3 openssl jq tar; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-cli-upload.XXXXXX)
trap 'sshd_stop; stop_servers; rm -rf "$T"' EXIT
R=(--window 1 --interval 0.5 --no-progress --no-bpf --check use.cpu-utilization)

# start_server NAME ARGS...: an endpoint storing into $T/NAME; its port in PORT
start_server() {
	local name=$1
	shift
	mkdir -p "$T/$name"
	python3 tests/lib/upload-server.py --dir "$T/$name" --port-file "$T/$name.port" "$@" \
		2>"$T/$name.err" &
	SERVERS+=($!)
	for _ in $(seq 50); do
		[ -s "$T/$name.port" ] && break
		sleep 0.1
	done
	PORT=$(cat "$T/$name.port" 2>/dev/null)
}

# A private CA and a certificate for 127.0.0.1 signed by it.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=sonde-test-ca \
	-keyout "$T/ca.key" -out "$T/ca.pem" >/dev/null 2>&1
openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout "$T/srv.key" \
	-out "$T/srv.csr" >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1\n' >"$T/ext"
openssl x509 -req -in "$T/srv.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial \
	-days 2 -extfile "$T/ext" -out "$T/srv.pem" >/dev/null 2>&1
ok "a private CA and a server certificate" test -s "$T/srv.pem"

# ---- HTTPS PUT, the URL with its secrets in a file ----
start_server tls --cert "$T/srv.pem" --key "$T/srv.key"
ok "the HTTPS endpoint listens" test -n "$PORT"
mkdir -p "$T/out1"
echo "https://alice:CANARYPASS@127.0.0.1:$PORT/cases/?token=CANARYTOKEN" >"$T/url"
"$SONDE" run "${R[@]}" --out "$T/out1" --case-id SR-1234.5 --upload "@$T/url" \
	--upload-cacert "$T/ca.pem" >"$T/stdout" 2>"$T/stderr"
is "$?" 0 "run --upload https (PUT): exit 0"
B=$(ls "$T"/out1/*.tar.xz 2>/dev/null)
case $(basename "$B") in
sonde-*-SR-1234.5-*.tar.xz) ok "the case id is in the bundle's name ($(basename "$B"))" true ;;
*) ok "the case id is in the bundle's name ($(basename "$B"))" false ;;
esac
ok "the server holds the bundle, byte for byte" cmp -s "$B" "$T/tls/$(basename "$B")"
ok "PUT to the directory URL plus the bundle's name, the query kept" \
	grep -qx "PUT /cases/$(basename "$B")?token=CANARYTOKEN 201" "$T/tls/requests.log"
ok "the summary says where it went (got: $(tail -1 "$T/stdout"))" \
	grep -qx "Uploaded: https://127.0.0.1:$PORT/cases/$(basename "$B") (HTTP 201, 1 attempt)" \
	"$T/stdout"
is "$("$SONDE" show "$B" manifest.json | jq -r .case_id)" SR-1234.5 "the manifest names the case"
is "$(xz -dc "$B" | grep -acE 'CANARYPASS|CANARYTOKEN|alice')" 0 \
	"no secret of the URL anywhere in the bundle (captures included)"
ok "the recorded command line names the file" \
	grep -qF -- "--upload @$T/url " < <("$SONDE" show "$B" manifest.json | jq -r .command)

# A credential on the command line is refused: every process's command line is
# readable by all, and sonde's own is captured in the bundle. A password, a
# signed query, a token-like parameter, a token as the user part.
for url in "https://bob:CANARYPASS@127.0.0.1:1/x/" \
	"https://127.0.0.1:1/q/?X-Amz-Signature=CANARYSIG&X-Amz-Expires=60" \
	"https://127.0.0.1:1/q/?sig=CANARYSIG" "https://127.0.0.1:1/q/?access_token=CANARYTOK" \
	"https://127.0.0.1:1/q/?t=8f14e45fceea167a5a36dedd4bea2543" \
	"https://ghp_1a2B3c4D5e6F7g8H9i0j@127.0.0.1:1/q/"; do
	err=$("$SONDE" run "${R[@]}" --out "$T" --upload "$url" 2>&1 >/dev/null)
	is "$?" 2 "a credential on the command line ($url): usage error"
	ok "it says where it goes instead (got: $err)" \
		grep -q "upload @FILE.*--upload-token-file.*netrc" <<<"$err"
done
mkdir -p "$T/out1b"
"$SONDE" run "${R[@]}" --out "$T/out1b" --upload "https://127.0.0.1:$PORT/q/?case=SR-1" \
	--upload-cacert "$T/ca.pem" >/dev/null 2>&1
is "$?" 0 "a URL with a plain query on the command line: exit 0"
ok "the manifest's command line has the URL without its query" \
	grep -qF -- "--upload https://127.0.0.1:$PORT/q/ " \
	< <("$SONDE" show "$(ls "$T"/out1b/*.tar.xz)" manifest.json | jq -r .command)
# The same URL, credential and all, from the environment: not on any command line.
mkdir -p "$T/out1c"
SONDE_RUN_UPLOAD="https://127.0.0.1:$PORT/e/?sig=CANARYENVSIG" \
	"$SONDE" run "${R[@]}" --out "$T/out1c" --upload-cacert "$T/ca.pem" >/dev/null 2>&1
is "$?" 0 "a signed URL from \$SONDE_RUN_UPLOAD: exit 0"
ok "it went where it said" grep -q "^PUT /e/sonde-.*?sig=CANARYENVSIG 201" "$T/tls/requests.log"
is "$(xz -dc "$(ls "$T"/out1c/*.tar.xz)" | grep -ac CANARYENVSIG)" 0 \
	"and the signature is nowhere in the bundle"

# ---- a bearer token from a file or the environment ----
TLS_PORT=$PORT
echo CANARYBEARER7 >"$T/token"
start_server bearer --token-file "$T/token"
mkdir -p "$T/out1d"
"$SONDE" run "${R[@]}" --out "$T/out1d" --upload "http://127.0.0.1:$PORT/b/" \
	--upload-token-file "$T/token" >/dev/null 2>"$T/stderr"
is "$?" 0 "--upload-token-file: exit 0 $(head -c 200 "$T/stderr")"
ok "the server saw the bearer token" grep -q "^PUT /b/sonde-.* 201 bearer$" "$T/bearer/requests.log"
is "$(xz -dc "$(ls "$T"/out1d/*.tar.xz)" | grep -ac CANARYBEARER7)" 0 "the token is nowhere in the bundle"
SONDE_UPLOAD_TOKEN=CANARYBEARER7 "$SONDE" run "${R[@]}" --out "$T/out1d" \
	--upload "http://127.0.0.1:$PORT/b2/" >/dev/null 2>&1
is "$?" 0 "\$SONDE_UPLOAD_TOKEN: exit 0"
ok "the server saw it" grep -q "^PUT /b2/sonde-.* 201 bearer$" "$T/bearer/requests.log"
"$SONDE" run "${R[@]}" --out "$T/out1d" --upload "http://127.0.0.1:$PORT/b3/" \
	--upload-backoff 0.1 >/dev/null 2>&1
is "$?" 4 "without the token the server refuses: exit 4"
: >"$T/empty"
for args in "--upload-token-file $T/empty" "--upload-token-file $T/no-such" \
	"--upload sftp://127.0.0.1/x/ --upload-token-file $T/token"; do
	err=$("$SONDE" run "${R[@]}" --out "$T" --upload "http://127.0.0.1:1/x/" $args 2>&1 >/dev/null)
	is "$?" 2 "$args: usage error ($err)"
done
PORT=$TLS_PORT

# Without the private CA the server is not trusted: no retry, exit 4, the bundle stays.
mkdir -p "$T/out2"
"$SONDE" run "${R[@]}" --out "$T/out2" --upload "https://127.0.0.1:$PORT/cases/" \
	--upload-backoff 0.1 >/dev/null 2>"$T/stderr"
is "$?" 4 "an untrusted certificate: exit 4"
ok "one attempt only (a certificate does not fix itself)" \
	grep -q "failed after 1 attempt: " "$T/stderr"
ok "the message says the bundle stays, and where (got: $(tail -1 "$T/stderr"))" \
	grep -q "the bundle stays at $T/out2/sonde-.*\.tar\.xz$" "$T/stderr"
ok "and it is there" test -f "$(ls "$T"/out2/*.tar.xz)"

# ---- POST multipart, through two 503s ----
start_server post --fail 2
mkdir -p "$T/out3"
"$SONDE" run "${R[@]}" --out "$T/out3" --case-id CASE-9 --upload "http://127.0.0.1:$PORT/api/upload" \
	--upload-method post --upload-backoff 0.2 >"$T/stdout" 2>"$T/stderr"
is "$?" 0 "POST through two 503s: exit 0"
B=$(ls "$T"/out3/*.tar.xz)
is "$(grep -c 'POST /api/upload 503' "$T/post/requests.log")" 2 "two 503s were answered"
ok "the third attempt was taken" grep -qx "POST /api/upload 200" "$T/post/requests.log"
ok "each retry was said, with its wait" \
	test "$(grep -c 'upload attempt [12] of 4 failed: HTTP 503; again in' "$T/stderr")" = 2
ok "the waits double (0.2 s, then 0.4 s)" grep -q "attempt 2 of 4 failed: HTTP 503; again in 0.4 s" "$T/stderr"
ok "the file field holds the bundle" cmp -s "$B" "$T/post/$(basename "$B")"
is "$(cat "$T/post/$(basename "$B").fields")" "case_id=CASE-9" "the case id is a form field"

# ---- failures: a server that keeps failing, a refusal, no server ----
start_server down --status 503
mkdir -p "$T/out4"
start=$(date +%s.%N)
"$SONDE" run "${R[@]}" --out "$T/out4" --upload "http://127.0.0.1:$PORT/x/" \
	--upload-backoff 0.1 >/dev/null 2>"$T/stderr"
is "$?" 4 "503 every time: exit 4"
is "$(grep -c 'PUT /x/sonde-.* 503' "$T/down/requests.log")" 4 "four attempts"
ok "the message counts them (got: $(tail -1 "$T/stderr"))" \
	grep -q "upload to http://127.0.0.1:$PORT/x/sonde-.* failed after 4 attempts: HTTP 503" "$T/stderr"
ok "the bundle stays" test -f "$(ls "$T"/out4/*.tar.xz)"

start_server refuse --status 403
mkdir -p "$T/out5"
"$SONDE" run "${R[@]}" --out "$T/out5" --upload "http://127.0.0.1:$PORT/x/" \
	--upload-backoff 0.1 >/dev/null 2>"$T/stderr"
is "$?" 4 "403: exit 4"
is "$(wc -l <"$T/refuse/requests.log")" 1 "a refusal is not retried"

# A port nothing listens on (a closed server's).
kill "${SERVERS[-1]}" 2>/dev/null
wait "${SERVERS[-1]}" 2>/dev/null
mkdir -p "$T/out6"
"$SONDE" run "${R[@]}" --out "$T/out6" --upload "http://127.0.0.1:$PORT/x/" --upload-backoff 0.1 \
	--json >"$T/stdout" 2>"$T/stderr"
is "$?" 4 "no server: exit 4"
ok "connection refused is retried" test "$(grep -c 'upload attempt' "$T/stderr")" = 3
is "$(jq -r .schema "$T/stdout")" sonde.findings/1 "--json still prints findings.json on stdout"
ok "the bundle stays" test -f "$(ls "$T"/out6/*.tar.xz)"

# ---- a reply that never ends: the upload's deadline ----
# The server takes the bundle, then answers 200 with 4 KiB a second for ever:
# faster than the stall limit, so only the deadline ends it.
start_server slow --trickle
mkdir -p "$T/out9"
start=$(date +%s)
timeout 60 "$SONDE" run "${R[@]}" --out "$T/out9" --upload "http://127.0.0.1:$PORT/x/" \
	--upload-timeout 3 --upload-backoff 0.1 >/dev/null 2>"$T/stderr"
rc=$?
took=$(($(date +%s) - start))
is "$rc" 4 "a reply without end: exit 4 at the deadline (124: killed by the test's timeout)"
ok "it ended at the deadline, not at the test's timeout (took $took s)" test "$took" -lt 20
ok "the message says the deadline passed (got: $(tail -1 "$T/stderr"))" \
	grep -q "upload to http://127.0.0.1:$PORT/x/sonde-.* failed after 1 attempt: its deadline passed (--upload-timeout 3 s); last: .*the bundle stays at $T/out9/" "$T/stderr"
ok "the bundle stays" test -f "$(ls "$T"/out9/*.tar.xz)"
"$SONDE" run --help >"$T/help" 2>&1
is "$(grep -A1 -- "--upload-timeout" "$T/help" | grep -c "(default 300)")" 1 \
	"--help gives the deadline's default"

# libcurl is opened when an upload starts, not linked: without it a run works,
# and the upload fails with what to install (libcurl hidden in a private mount
# namespace, /dev/null bound over each of its files).
if ! command -v unshare >/dev/null; then
	skip "no libcurl" "unshare (util-linux) is not installed"
elif ldd "$SONDE" | grep -q libcurl; then
	ok "sonde is not linked with libcurl ($(ldd "$SONDE" | grep -o 'libcurl[^ ]*' | head -1))" false
else
	ok "sonde is not linked with libcurl" true
	hide=
	for f in $(ldconfig -p | awk '/libcurl(-gnutls)?\.so\.4 /{print $NF}'); do
		hide+="mount --bind /dev/null $(readlink -f "$f") && "
	done
	mkdir -p "$T/out-nocurl"
	unshare -m --propagation private sh -c "${hide}exec \"\$@\"" sh \
		"$SONDE" run "${R[@]}" --out "$T/out-nocurl" --upload "http://127.0.0.1:$PORT/x/" \
		>"$T/stdout" 2>"$T/stderr"
	is "$?" 4 "libcurl missing: exit 4"
	ok "it names the package to install (got: $(tail -1 "$T/stderr"))" \
		grep -q "needs libcurl (Debian package libcurl4)" "$T/stderr"
	ok "the bundle stays" test -f "$(ls "$T"/out-nocurl/*.tar.xz)"
fi

# ---- SFTP, to an sshd of this test's on 127.0.0.1 ----
if [ "$(id -u)" = 0 ] && [ -x "$SSHD" ] && command -v ssh-keygen >/dev/null; then
	sshd_keys
	SP=$(free_port)
	ok "an sshd on 127.0.0.1:$SP" sshd_start sftp 127.0.0.1 "$SP"
	mkdir -p "$T/home/.ssh" "$T/sftp-in" "$T/out7"
	ssh-keygen -q -t ed25519 -N '' -f "$T/home/.ssh/id_ed25519"
	cat "$T/home/.ssh/id_ed25519.pub" >>"$T/ssh/authorized_keys"
	cp "$T/ssh/known_hosts" "$T/home/.ssh/known_hosts"
	HOME=$T/home "$SONDE" run "${R[@]}" --out "$T/out7" --case-id SFTP-1 \
		--upload "sftp://root@127.0.0.1:$SP$T/sftp-in/" >"$T/stdout" 2>"$T/stderr"
	is "$?" 0 "sftp: exit 0$(head -c 200 "$T/stderr")"
	B=$(ls "$T"/out7/*.tar.xz)
	ok "the bundle is on the server, byte for byte" cmp -s "$B" "$T/sftp-in/$(basename "$B")"
	ok "the summary says where it went" grep -q "^Uploaded: sftp://127.0.0.1:$SP$T/sftp-in/sonde-" "$T/stdout"
	# A server that is not the one known_hosts names: refused at once, the bundle stays.
	grep -v "127.0.0.1\]:$SP" "$T/ssh/known_hosts" >"$T/home/.ssh/known_hosts"
	echo "[127.0.0.1]:$SP $(cat "$T/home/.ssh/id_ed25519.pub" | cut -d' ' -f1,2)" \
		>>"$T/home/.ssh/known_hosts"
	mkdir -p "$T/out8"
	HOME=$T/home "$SONDE" run "${R[@]}" --out "$T/out8" --upload "sftp://root@127.0.0.1:$SP$T/sftp-in/" \
		--upload-backoff 0.1 >/dev/null 2>"$T/stderr"
	is "$?" 4 "sftp to a server whose key is not the known one: exit 4"
	ok "no retry, the bundle stays ($(tail -1 "$T/stderr"))" \
		grep -q "failed after 1 attempt: .*the bundle stays at $T/out8/" "$T/stderr"
	rm -f "$T/home/.ssh/known_hosts"
	HOME=$T/home "$SONDE" run "${R[@]}" --out "$T/out8" --upload "sftp://root@127.0.0.1:$SP/x/" \
		>/dev/null 2>"$T/stderr"
	is "$?" 4 "sftp without a known_hosts: exit 4"
	ok "it says why ($(tail -1 "$T/stderr"))" grep -q "no readable .*known_hosts" "$T/stderr"
	sshd_stop
else
	skip "sftp" "needs root and Debian's openssh-server (make deps)"
fi

# ---- usage errors, before any window ----
for args in "--upload ftp://127.0.0.1/x" "--upload https:///nohost" "--case-id ../x" \
	"--case-id -x" "--upload-method post" "--upload http://h/ --upload-cacert $T/none" \
	"--upload-timeout 5" "--upload http://h/ --upload-timeout 0" "--upload-token-file $T/url" \
	"--upload @$T/no-such-file"; do
	err=$("$SONDE" run "${R[@]}" --out "$T" $args 2>&1 >/dev/null)
	is "$?" 2 "run $args: usage error"
	is "$(wc -l <<<"$err")" 1 "run $args: one line ($err)"
done

done_testing
