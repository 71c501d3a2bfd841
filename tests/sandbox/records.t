#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What a check gets through ctx.proc from sonde's composed records
# (docs/capture-format.md) when a record reached its bound: the "cut" line of
# sonde:listen, sonde:ports, sonde:owners and sonde:files each reaches the
# check as its table's cut (docs/writing-a-check.md), and the lines before it
# are all there. A hand-made capture (tests/checks/mkcap) and a check of our
# own read it through sonde analyze; nothing is read from this host.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"
command -v perl >/dev/null || skip_all "perl is not installed (tests/checks/mkcap)"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/case" "$T/checks/use"

printf '%s\n' \
	'=== sonde 1 1.001 sonde:run' 'version: 0.1.0' 'window_s: 1.000' 'interval_s: 1.000' \
	'start_wall_ns: 1763700000000000000' 'end_wall_ns: 1763700001001000000' \
	'start_mono_ns: 1000000000000' 'end_mono_ns: 1001001000000' 'samples: 2' 'partial: 0' \
	'stop_reason: complete' 'clk_tck: 100' 'page_size: 4096' \
	'=== net.sockets 0 0 sonde:listen' '4 127.0.0.1 8080 3 128 5555 1000' 'cut' \
	'=== net.sockets 0 0 sonde:ports' 'range 32768 60999' 'sockets 3' \
	'dst 127.0.0.1 8080 3 5556,5557 0' 'cut' \
	'=== net.sockets 1 1 sonde:owners' '5555 4242 3' 'scanned 10 200 cut' \
	'=== proc.pids 1 1 sonde:files' $'suspect\t4242\tfds' \
	$'cwd\t4242\t254:0\t2\t/' \
	$'file\t4242\t7\tw\t254:0\t12\t4096\t4096\t0\t/tmp/a\\040b' 'cut' \
	>"$T/case.txt"
"$TOP/tests/checks/mkcap" "$T/case.txt" "$T/case/raw" 2>"$T/mkcap.err"
rc=$?
is "$rc" 0 "the capture is made"
[ "$rc" = 0 ] || diag "$(head -c 300 "$T/mkcap.err")"

cat >"$T/checks/use/records.lua" <<'EOF'
--- records test: what the bound of each composed record gives a check
return {
  id = "use.records", title = "records",
  methodology = "use", resource = "cpu", metric = "errors",
  tags = { "default" }, collect = { "net.sockets", "proc.pids" },
  run = function(ctx, args)
    local function flag(b) return b and 1 or 0 end
    local l = ctx.proc.listeners()
    ctx:metric("listen_cut", flag(l.cut))
    ctx:metric("listeners", #l)
    ctx:metric("owner_walk_cut", flag(l.owner_walk and l.owner_walk.cut))
    local p = ctx.proc.local_ports()
    ctx:metric("ports_cut", flag(p.series[1].cut))
    local f = ctx.proc.open_files()
    ctx:metric("files_cut", flag(f.cut))
    ctx:metric("files", #f.files)
    ctx:metric("deleted", flag(f.files[1] and f.files[1].deleted))
    ctx:metric("path_unescaped", flag(f.files[1] and f.files[1].path == "/tmp/a b"))
  end,
}
EOF

"$SONDE" analyze "$T/case" --json --checks "$T/checks" --check use.records \
	>"$T/findings.json" 2>"$T/stderr"
rc=$?
is "$rc" 0 "analyze exits 0"
[ "$rc" = 0 ] || diag "$(head -c 300 "$T/stderr")"
metric() {
	jq -r --arg m "$1" '.checks[] | select(.id == "use.records") | .metrics[] |
		select(.name == $m) | .value' "$T/findings.json"
}
is "$(jq -r '.checks[] | select(.id == "use.records") | .status' "$T/findings.json")" ok \
	"the check ran to its end"
is "$(metric listeners)" 1 "sonde:listen: the listener before the cut"
is "$(metric listen_cut)" 1 "sonde:listen: cut reaches the check"
is "$(metric ports_cut)" 1 "sonde:ports: cut reaches the check"
is "$(metric owner_walk_cut)" 1 "sonde:owners: the walk's cut reaches the check"
is "$(metric files)" 1 "sonde:files: the file before the cut"
is "$(metric deleted)" 1 "sonde:files: NLINK 0 is a deleted file"
is "$(metric path_unescaped)" 1 "sonde:files: the path unescaped"
is "$(metric files_cut)" 1 "sonde:files: cut reaches the check"

done_testing
