#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The audit unit's sandbox (contrib/systemd/sonde-audit.service) costs the run
# nothing it needs. This machine has no systemd as PID 1 to start the unit, so
# the test applies, from the unit file itself, what can be applied without it,
# and checks the rest against what the audit did:
#  - its CapabilityBoundingSet= and NoNewPrivileges= (setpriv) and UMask=: the
#    audit script run so sees what an unconfined root run sees: the same BPF
#    tools loaded the same way, no known unknown about privileges that the
#    unconfined run lacks, no read of /proc or /sys refused that it made, and
#    none at all of a process of another user (uid 65534) that holds a file
#    open; again with --no-bpf, where every process is read from /proc; and,
#    so that these comparisons are seen to fail, once without CAP_SYS_PTRACE
#    and CAP_SYSLOG;
#  - under strace: no system call of its SystemCallFilter= deny list, no
#    socket family outside RestrictAddressFamilies=, no mapping both writable
#    and executable (MemoryDenyWriteExecute=), no namespace (RestrictNamespaces=),
#    nothing written outside the state directory, the textfile directory and
#    /tmp (ProtectSystem=strict, PrivateTmp=), nothing read from /lib/modules
#    (ProtectKernelModules=).
. tests/lib/tap.sh

[ "$(id -u)" = 0 ] || skip_all "needs root (the unit runs as root; setpriv, BPF)"
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
for tool in jq setpriv strace perl tar systemd-analyze; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
case $("$SONDE" list --no-perf 2>&1 | grep '^bpf\.execsnoop ') in
*" yes ("*) ;;
*) skip_all "BPF tools cannot run here (sonde list)" ;;
esac

U=$TOP/contrib/systemd/sonde-audit.service
T=$(mktemp -d /tmp/sonde-live-sandbox.XXXXXX)
OTHER=
cleanup() {
	[ -n "$OTHER" ] && kill "$OTHER" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A process of another user, with a file open: what the unit's capabilities must still read.
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'exec 3</etc/hostname; exec sleep 600' &
OTHER=$!

directive() { sed -n "s/^$1=//p" "$U" | tail -1; }
CAPS=$(directive CapabilityBoundingSet)
ok "the unit bounds its capabilities ($CAPS)" test -n "$CAPS"
is "$(directive NoNewPrivileges)" yes "the unit sets NoNewPrivileges=yes"
# CAP_BPF CAP_SYS_ADMIN -> -all,+bpf,+sys_admin (setpriv's names)
BOUND=-all$(for c in $CAPS; do c=${c#CAP_}; printf ',+%s' "${c,,}"; done)

# audit NAME CAPS [VAR=VALUE...]: the audit script as the unit runs it, into $T/NAME,
# under the bounding set CAPS ("" for none); its bundle is $T/NAME.tar.xz
audit() {
	local name=$1 bound=$2
	shift 2
	mkdir -p "$T/$name/state" "$T/$name/textfile"
	(
		umask "$(directive UMask)"
		export SONDE="$SONDE" SONDE_OUT="$T/$name/state" SONDE_KEEP=2 SONDE_WINDOW=2 \
			SONDE_METRICS="$T/$name/textfile/sonde.prom" "$@"
		if [ -n "$bound" ]; then
			setpriv --bounding-set="$bound" --inh-caps=-all --no-new-privs \
				"$TOP/contrib/systemd/sonde-audit"
		else
			"$TOP/contrib/systemd/sonde-audit"
		fi
	) >"$T/$name/out" 2>&1
	echo $? >"$T/$name/rc"
	cp "$(ls "$T/$name/state"/sonde-*.tar.xz 2>/dev/null | head -1)" "$T/$name.tar.xz" 2>/dev/null
	mkdir -p "$T/$name/x" && tar -xJf "$T/$name.tar.xz" -C "$T/$name/x" 2>/dev/null
}

# What a run could load and read, one line each, for comparing two runs:
# tool NAME ATTACH (those that loaded) or tool NAME STATUS (those that could not;
# over_budget and disabled depend on the load, not on privileges), the known
# unknowns that speak of privileges, and the refused reads (EPERM, EACCES) by
# capture and path, PIDs as PID.
seen() {
	local x=$T/$1/x
	jq -r '[.tools[]?, .drilldown.tools[]?] | .[] |
		if .status == "ok" then "tool \(.name) \(.attach)"
		elif (.status == "unavailable" or .status == "failed" or .status == "unreadable")
		then "tool \(.name) \(.status)" else empty end' "$x/findings.json"
	jq -r '.unknowns[] | select(.reason | test("denied|not permitted|CAP_|privilege|root"; "i")) |
		"unknown \(.check) \(.metric)"' "$x/findings.json"
	cat "$x"/raw/*.cap "$x"/raw/*/*.cap 2>/dev/null |
		LC_ALL=C sed -nE 's/^! [0-9]+ [0-9]+ [0-9]+ (1|13) - (.*)$/refused \1 \2/p' |
		sed -E 's|/proc/[0-9]+/|/proc/PID/|'
}
# refused_other NAME: reads of the other user's process that were refused
refused_other() {
	cat "$T/$1/x"/raw/*.cap "$T/$1/x"/raw/*/*.cap 2>/dev/null |
		LC_ALL=C grep -acE "^! [0-9]+ [0-9]+ [0-9]+ (1|13) - /proc/$OTHER/"
}
# lost A B: what run B lacks of run A (sorted, unique)
lost() { comm -13 <(seen "$1" | sort -u) <(seen "$2" | sort -u); }

for mode in bpf no-bpf; do
	env=()
	[ "$mode" = no-bpf ] && env=(SONDE_RUN_NO_BPF=yes)
	audit "free-$mode" "" "${env[@]}"
	audit "unit-$mode" "$BOUND" "${env[@]}"
	for r in "free-$mode" "unit-$mode"; do
		ok "$r: the audit ran (exit 0 or 3: $(tail -1 "$T/$r/out"))" grep -Eqx '0|3' "$T/$r/rc"
		ok "$r: its bundle is there" test -s "$T/$r/x/findings.json"
	done
	is "$(lost "free-$mode" "unit-$mode")" "" \
		"$mode: under the unit's capabilities nothing is refused that root unconfined reads"
	is "$(refused_other "unit-$mode")" 0 "$mode: nothing of uid 65534's process (pid $OTHER) refused"
done
ok "the unit's run loaded BPF tools" grep -q '^tool .* tp_btf$' <(seen unit-bpf)
is "$(stat -c %a "$T/unit-bpf/textfile/sonde.prom" 2>&1)" 644 \
	"under UMask=$(directive UMask) the metrics file is still readable by node_exporter"
is "$(stat -c %a "$T/unit-bpf.tar.xz" "$T/unit-bpf/state" 2>&1 | tr '\n' ' ')" "600 700 " \
	"and the bundle and the state directory private"
# The comparisons can fail: without CAP_SYS_PTRACE the other user's /proc files are
# refused, without CAP_SYSLOG the kernel log and the kernel's symbols.
B=${BOUND/,+sys_ptrace/}
audit fewer "${B/,+syslog/}" SONDE_RUN_NO_BPF=yes
ok "without CAP_SYS_PTRACE reads of pid $OTHER are refused ($(refused_other fewer))" \
	test "$(refused_other fewer)" -gt 0
ok "without CAP_SYSLOG too, the comparison names what is lost: $(lost free-no-bpf fewer | tr '\n' ';')" \
	grep -q 'kmsg' <(lost free-no-bpf fewer)

# ---- the audit under strace: what the rest of the sandbox forbids, it never does ----
S=$T/trace
mkdir -p "$S/state" "$S/textfile"
cp "$T/free-bpf.tar.xz" "$S/state/sonde-earlier-20000101T000000Z.tar.xz" # so it diffs
(
	cd "$S" &&
		SONDE="$SONDE" SONDE_OUT="$S/state" SONDE_KEEP=3 SONDE_WINDOW=2 \
			SONDE_METRICS="$S/textfile/sonde.prom" \
			strace -ff -qq -y -s 256 -o "$S/st" "$TOP/contrib/systemd/sonde-audit"
) >"$S/out" 2>&1
ok "the audit under strace ran (exit 0 or 3: $(tail -1 "$S/out"))" grep -Eqx '0|3' <<<"$?"
ok "and wrote the diff of the latest two" test -s "$S/state/diff-latest.json"
calls() { sed -nE 's/^([a-z0-9_]+)\(.*/\1/p' "$S"/st.* | sort -u; }
ok "strace saw the run's system calls ($(calls | wc -l) kinds)" grep -qx bpf <(calls)

# SystemCallFilter=~@group...: the groups' calls, as systemd-analyze lists them (nested groups too)
expand() {
	local g
	for g; do
		systemd-analyze syscall-filter "$g" | sed -n 's/^    \([@a-z0-9_-]*\)$/\1/p' |
			while read -r s; do
				case $s in @*) expand "$s" ;; *) echo "$s" ;; esac
			done
	done
}
filter=$(directive SystemCallFilter)
ok "the unit has a system call deny list ($filter)" test "${filter:0:1}" = "~"
# shellcheck disable=SC2086
expand ${filter#\~} | sort -u >"$S/denied"
ok "the deny list expands to system calls ($(wc -l <"$S/denied"))" test -s "$S/denied"
is "$(comm -12 <(calls) "$S/denied" | tr '\n' ' ')" "" "no denied system call was made"
fams=$(directive RestrictAddressFamilies)
used=$(grep -ohE '^socket(pair)?\(AF_[A-Z0-9]+' "$S"/st.* | sed 's/.*(//' | sort -u | tr '\n' ' ')
is "$(for f in $used; do grep -qw "$f" <<<"$fams" || echo "$f"; done)" "" \
	"every socket family used ($used) is in RestrictAddressFamilies=$fams"
is "$(grep -hE '^(mmap|mprotect|pkey_mprotect)\(' "$S"/st.* | grep 'PROT_WRITE' | grep -c 'PROT_EXEC')" 0 \
	"no writable and executable mapping (MemoryDenyWriteExecute=$(directive MemoryDenyWriteExecute))"
is "$(grep -hcE '^(unshare|setns)\(|CLONE_NEW' "$S"/st.* | awk '{ n += $1 } END { print n }')" 0 \
	"no namespace created or entered (RestrictNamespaces=$(directive RestrictNamespaces))"
is "$(grep -hE '^[a-z0-9_]+\(.*"/(usr/)?lib/modules' "$S"/st.* | head -3)" "" \
	"nothing under /lib/modules (ProtectKernelModules=$(directive ProtectKernelModules))"

# Each file written, created, renamed or removed (the call succeeded), as an absolute path.
cat >"$S/writes.pl" <<'EOF'
my $cwd = shift;
for my $f (@ARGV) {
	open(my $in, '<', $f) or next;
	my $dir = $cwd; # a child starts where the audit does; chdir moves it
	while (<$in>) {
		next unless /^(\w+)\((.*)\)\s+=\s+(-?\d+)/;
		my ($sc, $args, $rc) = ($1, $2, $3);
		next if $rc < 0;
		if ($sc eq 'chdir' && $args =~ /^"([^"]*)"/) {
			$dir = $1 =~ m{^/} ? $1 : "$dir/$1";
			next;
		}
		if ($sc =~ /^(open|openat|openat2)$/) {
			next unless $args =~ /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC/;
		} elsif ($sc !~ /^(creat|mkdir|mkdirat|rmdir|unlink|unlinkat|rename|renameat|renameat2|link|linkat|symlink|symlinkat|chmod|fchmodat|truncate|mknod|mknodat)$/) {
			next;
		}
		while ($args =~ /(?:\d+<([^>]*)>,\s*|AT_FDCWD(?:<([^>]*)>)?,\s*)?"((?:[^"\\]|\\.)*)"/g) {
			my $p = $3;
			$p = ($1 // $2 // $dir) . "/$p" unless $p =~ m{^/};
			print "$p\n";
		}
	}
}
EOF
# ProtectSystem=strict leaves writable the API file systems, the state directory,
# ReadWritePaths= and (PrivateTmp=) a private /tmp and /var/tmp; ProtectControlGroups= not cgroupfs.
perl "$S/writes.pl" "$S" "$S"/st.* | sort -u >"$S/writes"
ok "strace saw files written ($(wc -l <"$S/writes"))" grep -q "^$S/state/" "$S/writes"
is "$(grep -vE "^($S/state|$S/textfile|/tmp|/var/tmp|/dev|/proc|/sys)(/|$)" "$S/writes" |
	grep -v "^/sys/fs/cgroup" | head -5 | tr '\n' ' ')" "" \
	"nothing written outside the state and textfile directories and /tmp"
is "$(grep -c "^/sys/fs/cgroup" "$S/writes")" 0 "nothing written to /sys/fs/cgroup (ProtectControlGroups=)"

done_testing
