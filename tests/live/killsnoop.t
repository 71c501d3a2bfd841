#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: killsnoop names who sent which signal to whom. A process with a
# distinctive comm (sondekiller) starts a sleep that ignores SIGUSR1, sends it
# SIGUSR1 (generated, outcome "ignored") then SIGTERM (delivered, fatal), and
# reaps it. We assert the counted rows (sender pid and comm, target pid and
# comm, signal, origin "user", outcome), the fatal record of the SIGTERM, the
# SIGCHLD the dying sleep sent back, and that workload.signal-who warns.
# Then sonde is never its own finding: a run ended by Ctrl-C (SIGINT to sonde)
# counts that signal apart (self_signals, the appendix's line on sonde
# itself), and no signal finding names sonde or a signal sent to it.
# Other signals on the shared host are in the capture too: we look for ours.
. tests/lib/tap.sh

KILLER=sondekiller

for tool in jq tar xz perl; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (BPF)"
"$SONDE" list 2>/dev/null | grep -E '^bpf\.killsnoop' | grep -q 'yes' ||
	skip_all "the killsnoop tool cannot run here: $("$SONDE" list 2>/dev/null | grep -E '^bpf\.killsnoop')"

T=$(mktemp -d /tmp/sonde-live-kill.XXXXXX)
KP=
cleanup() {
	[ -n "$KP" ] && kill -9 "$KP" 2>/dev/null
	[ -s "$T/child" ] && kill -9 "$(cat "$T/child")" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The killer: a script, so that its comm is the file name. It writes the
# sleep's pid to $1, signals it, reaps it, and exits 0 only if SIGTERM killed it.
cat >"$T/$KILLER" <<'PERL'
#!/usr/bin/perl
use POSIX ();
my $pid = fork() // exit 2;
if (!$pid) { $SIG{USR1} = 'IGNORE'; exec("sleep", "30"); exit 127 }
open(my $f, ">", $ARGV[0]) or die; print $f "$pid\n"; close($f);
select(undef, undef, undef, 0.5);    # the sleep has exec'd
kill("USR1", $pid);
select(undef, undef, undef, 0.2);
kill("TERM", $pid);
waitpid($pid, 0);
exit(POSIX::WIFSIGNALED($?) && POSIX::WTERMSIG($?) == 15 ? 0 : 1);
PERL
chmod +x "$T/$KILLER"

mkdir "$T/out"
"$SONDE" run --window 3 --interval 1 --check workload.signal-who --no-progress --json \
	--out "$T/out" >"$T/findings.json" 2>"$T/stderr" &
SP=$!
sleep 0.5
"$T/$KILLER" "$T/child" &
KP=$!
wait "$KP"
krc=$?
KPID=$KP
KP=
wait "$SP"
rc=$?
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
is "$krc" 0 "the sleep died of our SIGTERM"
CPID=$(cat "$T/child")

shopt -s nullglob
bundles=("$T"/out/sonde-*.tar.xz)
shopt -u nullglob
[ "${#bundles[@]}" -eq 1 ] || { diag "no bundle"; done_testing; exit; }
mkdir "$T/x"
tar -xJf "${bundles[0]}" -C "$T/x" raw
J=$T/x/raw/bpf/killsnoop.json
is "$(jq -r .status "$J")" ok "killsnoop ran ($(jq -r '.attach // .reason' "$J"))"

row() { # SIGNAME: our row of that signal, sender -> sleep
	jq -c --argjson s "$KPID" --argjson t "$CPID" --arg sig "$1" \
		'[.data.signals[] | select(.sender_pid == $s and .target_pid == $t and .signal == $sig)] | .[0] // empty' "$J"
}
U=$(row SIGUSR1)
ok "a row: $KILLER ($KPID) sent SIGUSR1 to sleep ($CPID)" test -n "$U"
is "$(jq -r '[.sender_comm, .target_comm, .count, .origin, .outcome] | join(" ")' <<<"$U")" \
	"$KILLER sleep 1 user ignored" "SIGUSR1: comms, once, from kill(2), ignored by the sleep"
S=$(row SIGTERM)
ok "a row: $KILLER ($KPID) sent SIGTERM to sleep ($CPID)" test -n "$S"
is "$(jq -r '[.sender_comm, .target_comm, .count, .origin, .outcome] | join(" ")' <<<"$S")" \
	"$KILLER sleep 1 user delivered" "SIGTERM: comms, once, from kill(2), delivered"
is "$(jq -r '.target_tgid' <<<"$S")" "$CPID" "target tgid known (tp_btf/raw_tp give the task)"

F=$(jq -c --argjson s "$KPID" --argjson t "$CPID" \
	'[.data.fatal[] | select(.sender_pid == $s and .target_pid == $t)]' "$J")
is "$(jq -r 'map(.signal) | join(" ")' <<<"$F")" "SIGTERM" "the fatal list has our SIGTERM, not the SIGUSR1"
at=$(jq -r '.[0].at_s // -1' <<<"$F")
ok "its time ($at s after attach) is inside the traced span" awk -v a="$at" 'BEGIN { exit !(a > 0 && a < 4) }'

C=$(jq -c --argjson s "$CPID" --argjson t "$KPID" \
	'[.data.signals[] | select(.sender_pid == $s and .target_pid == $t and .signal == "SIGCHLD")] | .[0] // empty' "$J")
if [ -z "$C" ] && [ "$(jq '.data.signals_seen > (.data.signals | length)' "$J")" = true ]; then
	# SIGCHLD rows come last and the list is cut: a busy shared host can push ours out
	skip "the dying sleep sent SIGCHLD to $KILLER" "$(jq .data.signals_seen "$J") distinct rows, the list keeps $(jq '.data.signals | length' "$J")"
else
	is "$(jq -r '.origin // ""' <<<"$C")" child "the dying sleep sent SIGCHLD to $KILLER (origin child)"
fi

st=$(jq -r '.checks[] | select(.id == "workload.signal-who") | .status' "$T/findings.json")
is "$st" warn "workload.signal-who warns (a fatal signal was sent)"
# culprits are the top 3 senders of fatal signals: ours unless the shared host sent more
if jq -e --arg k "$KILLER" '[.findings[] | select(.check == "workload.signal-who") | .culprits[].comm] | index($k)' \
	"$T/findings.json" >/dev/null; then
	ok "the finding blames $KILLER" true
else
	n=$(jq '[.data.fatal[] | select(.outcome != "ignored") | .sender_pid] | unique | length' "$J")
	if [ "$n" -gt 3 ]; then
		skip "the finding blames $KILLER" "$n processes sent fatal signals on this shared host"
	else
		ok "the finding blames $KILLER" false
	fi
fi

# ---- a Ctrl-C is not the host's signal ----
rm -rf "$T/out" && mkdir "$T/out"
"$SONDE" run --window 10 --interval 1 --check workload.signal-who --no-progress --json \
	--out "$T/out" >"$T/int.json" 2>"$T/int.err" &
SP=$!
sleep 2
kill -INT "$SP"
wait "$SP"
is "$?" 0 "a run ended by SIGINT exits 0 with its report"
B=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
self=$(tar -xJOf "$B" raw/bpf/killsnoop.json 2>/dev/null | jq '.data.self_signals // -1')
ok "killsnoop counted the SIGINT to sonde apart (self_signals $self)" test "$self" -ge 1
ok "no row of the capture has sonde as sender or target" \
	sh -c "tar -xJOf '$B' raw/bpf/killsnoop.json | jq -e --argjson p $SP '[.data.signals[] | select(.target_pid == \$p or .target_tgid == \$p or .sender_pid == \$p)] | length == 0' >/dev/null"
ok "no finding names sonde" \
	sh -c "jq -e --argjson p $SP '[.findings[].culprits[]? | select(.pid == \$p)] | length == 0' '$T/int.json' >/dev/null"
ok "the appendix counts it in its line on sonde itself" \
	sh -c "tar -xJOf '$B' report.md | grep -q 'sonde itself, left out of every finding and culprit: .* [1-9][0-9]* signals sent to it or by it'"
done_testing
