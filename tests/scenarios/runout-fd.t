#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: file descriptors running out. sondefdleak, under ulimit -n 4096,
# opens /dev/null 100 times a second and closes none: it reaches its limit in
# about half a minute. sonde must give a time that matches what is left and the
# rate (within a factor of 2) and name it. Needs Linux 6.2 or later for the
# per-round fd counts (stat of /proc/PID/fd); skips with the reason before.
. tests/lib/tap.sh
. tests/lib/runout.sh

runout_needs jq perl
size=$(stat -c %s /proc/self/fd)
[ "${size:-0}" -gt 0 ] || skip_all "this kernel gives no fd count from stat(/proc/PID/fd) (Linux 6.2 or later)"

T=$(mktemp -d /tmp/sonde-scn-fd.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

cat >"$T/sondefdleak" <<'PERL'
#!/usr/bin/perl
$0 = "sondefdleak";
my @fds;
for (1 .. 3000) { open(my $f, '<', '/dev/null') or last; push @fds, $f; select(undef, undef, undef, 0.01) }
sleep 30;
PERL
chmod +x "$T/sondefdleak"
bash -c 'ulimit -n 4096 && exec "$1"' sh "$T/sondefdleak" &
PID=$!
PIDS+=($PID)
nfds() { ls /proc/$PID/fd | wc -l; }
runout_sample "$T/samples" nfds
sleep 1

runout_run "$T/f.json" --check use.fd-runout
F=$T/f.json
n=$(runout_at_end "$F" "$T/samples")
left=$(runout_metric "$F" use.fd-runout time_left_s "sondefdleak (pid $PID)")
diag "sondefdleak held $n fds at the end of the window"
# at most 100 a second (10 ms sleeps, plus the opens themselves)
runout_between "time to its limit matches what is left at 100 fds/s" "$left" \
	"$(awk -v n="$n" 'BEGIN { print (4096 - n) / 100 / 2 }')" "$(awk -v n="$n" 'BEGIN { print (4096 - n + 50) / 100 * 3 }')"
is "$(runout_status "$F" use.fd-runout)" crit "use.fd-runout is crit"
is "$(runout_finding "$F" use.fd-runout '.culprits[0].comm')" sondefdleak "it names sondefdleak"
done_testing
