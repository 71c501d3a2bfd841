#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fan-out, for real: contrib/ansible/sonde-fleet.yml (Debian's ansible)
# over two hosts on this machine, localhost through an sshd on 127.0.0.1 and
# a second host, "fleet-b", behind an sshd inside a network namespace (and a
# UTS namespace of its own name) that this test creates and removes, also on
# failure; a third through a local connection; plus a host where sonde is
# given a bad option, one that does not answer, and one whose directory a local
# user (uid 65534) made first and where that user keeps swapping in a program of
# its own for the sonde the play copies there: it is refused, and the program
# never runs. sonde runs on the real hosts at once, in a fresh private directory
# each, their bundles land in one directory (a folder per host, 0700, each
# bundle 0600), the failures are reported per host without stopping the
# others, and sonde fleet summarises what came back. A play where no host
# reaches the fetch still writes its fanout.txt.
. tests/lib/tap.sh
. tests/lib/net.sh
. tests/lib/sshd.sh

[ "$(id -u)" = 0 ] || skip_all "needs root (network namespaces, sshd, BPF)"
command -v ansible-playbook >/dev/null || skip_all "ansible is not installed (make deps: ansible-core)"
[ -x "$SSHD" ] || skip_all "sshd is not installed (make deps: openssh-server)"
for tool in ssh ssh-keygen ip unshare jq python3; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-live-ansible.XXXXXX)
NS=sonde-fleet-$$
VETH=sfl$$
SQUATTER=
cleanup() {
	[ -n "$SQUATTER" ] && kill -- "-$SQUATTER" 2>/dev/null
	sshd_stop
	sleep 0.2
	ip netns del "$NS" 2>/dev/null
	ip link del "$VETH" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The second host's network: a veth pair, 10.251.x.1 here, 10.251.x.2 in the namespace.
SUB=$(($$ % 250 + 1))
ip netns add "$NS" &&
	ip link add "$VETH" type veth peer name "${VETH}p" &&
	ip link set "${VETH}p" netns "$NS" &&
	ip addr add "10.251.$SUB.1/30" dev "$VETH" && ip link set "$VETH" up &&
	ip netns exec "$NS" ip addr add "10.251.$SUB.2/30" dev "${VETH}p" &&
	ip netns exec "$NS" ip link set "${VETH}p" up &&
	ip netns exec "$NS" ip link set lo up
ok "a network namespace for the second host ($NS)" test $? = 0

sshd_keys
P1=$(free_port)
ok "sshd on 127.0.0.1:$P1 (localhost)" sshd_start local 127.0.0.1 "$P1"
ok "sshd in $NS on 10.251.$SUB.2:22, host name fleet-b" sshd_start nsb "10.251.$SUB.2" 22 "$NS" fleet-b
ok "ssh into the second host sees its name" \
	test "$(ssh "${SSH_OPTS[@]}" "root@10.251.$SUB.2" hostname 2>/dev/null)" = fleet-b

# The squatter: uid 65534 made $T/squat first and, as fast as it can, renames its
# own program over squat/sonde (its directory: it may), a program that would
# leave $T/pwned and a fake bundle in --out for the play to report as fine.
chmod 0755 "$T" # uid 65534 reaches $T/squat
mkdir -m 0755 "$T/squat" "$T/evil" && chown 65534:65534 "$T/squat" "$T/evil"
cat >"$T/evil/sonde" <<EOF
#!/bin/sh
touch '$T/pwned'
while [ \$# -gt 1 ]; do [ "\$1" = --out ] && : >"\$2/sonde-pwned-1.tar.xz"; shift; done
EOF
chmod 0755 "$T/evil/sonde" && chown 65534:65534 "$T/evil/sonde"
setsid setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
	'while :; do cp "$0/evil/sonde" "$0/squat/.s" && mv -f "$0/squat/.s" "$0/squat/sonde"; sleep 0.05; done' \
	"$T" 2>/dev/null &
SQUATTER=$!

GONE=$(free_port)
cat >"$T/inventory" <<EOF
[fleet]
local ansible_host=127.0.0.1 ansible_port=$P1 sonde_remote_dir=$T/remote-local
netns ansible_host=10.251.$SUB.2 sonde_remote_dir=$T/remote-netns
self ansible_connection=local
broken ansible_host=127.0.0.1 ansible_port=$P1 sonde_remote_dir=$T/remote-broken sonde_options="--window nonsense"
gone ansible_host=127.0.0.1 ansible_port=$GONE
squat ansible_host=127.0.0.1 ansible_port=$P1 sonde_remote_dir=$T/squat

[fleet:vars]
sonde_options="--window 10 --interval 1 --no-drilldown"
ansible_user=root
ansible_python_interpreter=/usr/bin/python3
ansible_ssh_common_args=${SSH_OPTS[*]}
EOF

export ANSIBLE_HOME=$T/ansible ANSIBLE_LOCAL_TEMP=$T/ansible/tmp ANSIBLE_REMOTE_TEMP=$T/ansible/remote
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=1
# no ssh master left behind to hold a session (in the namespace) after the test
export ANSIBLE_SSH_ARGS="-o ControlMaster=no -o ControlPersist=no"
start=$SECONDS
# self runs in the default sonde_remote_dir, /var/tmp (root's, sticky): its run's directory there
VARTMP_RUNS=$(ls -d /var/tmp/sonde-run.* 2>/dev/null | wc -l)
ansible-playbook -i "$T/inventory" contrib/ansible/sonde-fleet.yml -f 6 \
	-e "sonde_binary=$SONDE" -e "sonde_fetch_dir=$T/bundles" -e sonde_case_id=FLEET-1 \
	>"$T/play.log" 2>&1
rc=$?
diag "ansible-playbook took $((SECONDS - start)) s, exit $rc"
kill -- "-$SQUATTER" 2>/dev/null
SQUATTER=
ok "the playbook fails overall, since three hosts did (exit $rc)" test "$rc" -ne 0
B1=$(ls "$T"/bundles/local/sonde-*.tar.xz 2>/dev/null)
B2=$(ls "$T"/bundles/netns/sonde-*.tar.xz 2>/dev/null)
B3=$(ls "$T"/bundles/self/sonde-*.tar.xz 2>/dev/null)
ok "localhost's bundle is fetched into bundles/local/" test -f "$B1"
ok "the second host's into bundles/netns/" test -f "$B2"
ok "the local connection's into bundles/self/" test -f "$B3"
is "$(stat -c %a "$B1" "$B2" "$B3" 2>&1 | tr '\n' ' ')" "600 600 600 " \
	"each fetched bundle is private (0600), as sonde wrote it"
is "$(stat -c %a "$T"/bundles/local "$T"/bundles/netns "$T"/bundles/self 2>&1 | tr '\n' ' ')" \
	"700 700 700 " "and so is each host's folder (0700)"
case $(basename "$B2") in
sonde-fleet-b-FLEET-1-*.tar.xz) ok "named by its host and the case ($(basename "$B2"))" true ;;
*) ok "named by its host and the case ($(basename "$B2"))" false ;;
esac
is "$(jq -r .case_id < <("$SONDE" show "$B2" manifest.json))" FLEET-1 "the case id is in its manifest"
# Both ran at once: their windows overlap, the later one starting before the earlier one
# ended. That, not a fixed bound on how far apart they start, is what tells the play's fan-out
# from a serial one: hosts taken one at a time (-f 1, serial: 1) start the second sonde only
# once the first has ended its window, written its bundle and returned, so their windows
# cannot overlap; taken at once, they start apart by what ssh and ansible's module take to
# reach each host, which grows with load (6 s once, with the play taking 323 s on a loaded
# host) but not with the window. The 10 s window (sonde_options) leaves room for that skew
# that a 3 s one did not; the ends are the windows' real ones, from findings.json.
epoch() { date -u -d "$(jq -r "$1" < <("$SONDE" show "$2" --json))" +%s.%N; }
s1=$(epoch .window.start "$B1") e1=$(epoch .window.end "$B1")
s2=$(epoch .window.start "$B2") e2=$(epoch .window.end "$B2")
apart=$(awk -v a="$s1" -v b="$s2" 'BEGIN { d = a - b; printf "%.1f", d < 0 ? -d : d }')
ok "sonde ran on both at once (windows start $apart s apart and overlap)" \
	awk -v s1="$s1" -v e1="$e1" -v s2="$s2" -v e2="$e2" \
	'BEGIN { exit !(s1 < e1 && s2 < e2 && (s1 > s2 ? s1 : s2) < (e1 < e2 ? e1 : e2)) }'

F=$T/bundles/fanout.txt
ok "a line per host in fanout.txt" test "$(wc -l <"$F")" = 6
ok "local: ok, with its bundle" grep -q "^local: ok sonde-" "$F"
ok "netns: ok, with its bundle" grep -q "^netns: ok sonde-fleet-b-" "$F"
ok "self: ok, with its bundle" grep -q "^self: ok sonde-" "$F"
ok "squat: refused, naming the directory's owner ($(grep '^squat' "$F"))" \
	grep -q "^squat: failed at .*$T/squat is owned by uid 65534, not by root" "$F"
ok "the squatter's program never ran" test ! -e "$T/pwned"
ok "nothing was fetched of squat" test ! -e "$T/bundles/squat"
ok "broken: sonde run's failure, in sonde's words ($(grep '^broken' "$F"))" \
	grep -q "^broken: failed at 'sonde run': sonde: --window" "$F"
ok "gone: unreachable ($(grep '^gone' "$F"))" grep -q "^gone: failed: unreachable" "$F"
ok "the play's log names the failed hosts" grep -q "broken: failed at 'sonde run'" "$T/play.log"
is "$(stat -c '%a %u' "$T/remote-local" "$T/remote-netns" 2>&1 | tr '\n' ' ')" "700 0 700 0 " \
	"the base directories the inventory named were made root's, 0700"
is "$(find "$T/remote-local" "$T/remote-netns" "$T/remote-broken" -mindepth 1 | wc -l)" 0 \
	"no run directory (nor its copy of sonde) left on the hosts"
is "$(ls -d /var/tmp/sonde-run.* 2>/dev/null | wc -l)" "$VARTMP_RUNS" "nor in /var/tmp, self's default"

# No host reaches the fetch, none reachable or sonde failing on each: the report is
# still written, in a directory that was not there before.
for h in gone broken; do
	{ echo "[fleet]"; grep "^$h " "$T/inventory"; sed -n '/^\[fleet:vars\]/,$p' "$T/inventory"; } \
		>"$T/inventory-$h"
	ansible-playbook -i "$T/inventory-$h" contrib/ansible/sonde-fleet.yml -e "sonde_binary=$SONDE" \
		-e "sonde_fetch_dir=$T/none-$h/bundles" >"$T/play-$h.log" 2>&1
	rc=$?
	ok "only $h: the playbook fails (exit $rc)" test "$rc" -ne 0
	ok "only $h: fanout.txt is written, its one line: $(cat "$T/none-$h/bundles/fanout.txt" 2>&1)" \
		grep -q "^$h: failed" "$T/none-$h/bundles/fanout.txt"
done

# The local connection's bundle is of this host too: sonde fleet takes the two others.
rm -rf "$T/bundles/self"
"$SONDE" fleet "$T/bundles" --out "$T" --json >"$T/fleet.json" 2>"$T/fleet.err"
is "$?" 0 "sonde fleet over the fetched directory"
is "$(jq -c '[.hosts[].host] | sort' "$T/fleet.json")" "$(jq -nc --arg h "$(hostname)" '[$h, "fleet-b"] | sort')" \
	"one row per host: this one and fleet-b"
is "$(jq -r '[.hosts[].case_id] | unique | join(",")' "$T/fleet.json")" FLEET-1 "both carry the case"

done_testing
