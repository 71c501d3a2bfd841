#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: an OOM kill in a small memory cgroup is captured by the oomkill tool
# and reported by use.memory-errors. We make a v1 memory cgroup limited to
# 32 MiB (swap too, when memsw is there), run a memory hog with a distinctive
# comm inside it during the window, and assert that raw/bpf/oomkill.json names
# the hog as the victim (its pid and comm), the hog as the trigger (it is the
# only task charging that cgroup), our cgroup as the memory cgroup, and a
# resident size near the limit; and that the check is crit and blames the hog.
# Other kills on the shared host may be in the capture too: we look for ours.
. tests/lib/tap.sh

HOG=sondeoomhog
LIMIT=$((32 * 1024 * 1024))
CGROOT=/sys/fs/cgroup/memory

for tool in jq tar xz perl; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (BPF and a memory cgroup)"
[ -w "$CGROOT/cgroup.procs" ] ||
	skip_all "no writable cgroup v1 memory controller at $CGROOT"

T=$(mktemp -d /tmp/sonde-live-oom.XXXXXX)
CG=$CGROOT/sonde-oomtest-$$
HOGPID=
cleanup() {
	[ -n "$HOGPID" ] && kill -9 "$HOGPID" 2>/dev/null
	wait 2>/dev/null
	if [ -d "$CG" ]; then
		# anything left inside goes back to the root before the cgroup can go
		while read -r p; do echo "$p" >"$CGROOT/cgroup.procs" 2>/dev/null; done <"$CG/cgroup.procs"
		rmdir "$CG" 2>/dev/null || diag "could not remove $CG"
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$SONDE" list 2>/dev/null | grep -E '^bpf\.oomkill' | grep -q 'yes' ||
	skip_all "the oomkill tool cannot run here: $("$SONDE" list 2>/dev/null | grep -E '^bpf\.oomkill')"

mkdir "$CG" || skip_all "cannot make $CG"
echo "$LIMIT" >"$CG/memory.limit_in_bytes" || skip_all "cannot set memory.limit_in_bytes"
[ -e "$CG/memory.memsw.limit_in_bytes" ] && echo "$LIMIT" >"$CG/memory.memsw.limit_in_bytes"
echo 0 >"$CG/memory.oom_control" 2>/dev/null # the OOM killer on (the default)

# The hog: a script, so that its comm is the file name; 1 MiB a step, touched.
cat >"$T/$HOG" <<'PERL'
#!/usr/bin/perl
my @a;
sleep 1;
while (1) { push @a, "x" x (1 << 20); select(undef, undef, undef, 0.002) }
PERL
chmod +x "$T/$HOG"

mkdir "$T/out"
"$SONDE" run --window 5 --interval 1 --check use.memory-errors --no-progress --json \
	--out "$T/out" >"$T/findings.json" 2>"$T/stderr" &
SP=$!
sleep 0.5
# enter the cgroup, then become the hog (same pid)
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2"' sh "$CG" "$T/$HOG" &
HOGPID=$!
wait "$HOGPID"
hog_rc=$?
HOGPID_WAS=$HOGPID
HOGPID=
wait "$SP"
rc=$?
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
is "$hog_rc" 137 "the hog was killed by SIGKILL (the OOM killer)"

shopt -s nullglob
bundles=("$T"/out/sonde-*.tar.xz)
shopt -u nullglob
[ "${#bundles[@]}" -eq 1 ] || { diag "no bundle"; done_testing; exit; }
mkdir "$T/x"
tar -xJf "${bundles[0]}" -C "$T/x" raw
J=$T/x/raw/bpf/oomkill.json
is "$(jq -r .status "$J")" ok "oomkill ran ($(jq -r '.attach // .reason' "$J"))"

jq_true() {
	jq -e "$@" >/dev/null 2>&1
}
ours() { # the kill record of our hog
	jq -c --argjson p "$HOGPID_WAS" '.data.kills_list[] | select(.victim.pid == $p)' "$J"
}
K=$(ours)
ok "a kill record names the hog's pid $HOGPID_WAS as the victim" test -n "$K"
is "$(jq -r .victim.comm <<<"$K")" "$HOG" "victim comm"
is "$(jq -r .trigger.comm <<<"$K")" "$HOG" "trigger: the hog itself, the only task charging the cgroup"
is "$(jq -r .trigger.pid <<<"$K")" "$HOGPID_WAS" "trigger pid"
is "$(jq -r '.victim.memcg // .oom_memcg' <<<"$K")" "sonde-oomtest-$$" "memory cgroup of the victim"
# anonymous memory is what the hog charged; file pages (perl, libc) may be charged elsewhere
anon=$(jq -r '.victim.anon_bytes // 0' <<<"$K")
ok "victim anon rss ($anon bytes) between 16 MiB and 34 MiB (limit 32 MiB)" \
	test "$anon" -ge $((16 << 20)) -a "$anon" -le $((34 << 20))
rss=$(jq -r '.victim.rss_bytes // 0' <<<"$K")
ok "victim rss ($rss bytes) at least its anon rss" test "$rss" -ge "$anon"
at=$(jq -r '.at_s' <<<"$K")
ok "the kill is inside the traced span (at $at s after attach)" \
	awk -v a="$at" 'BEGIN { exit !(a > 0 && a < 6) }'

C='.checks[] | select(.id == "use.memory-errors")'
is "$(jq -r "$C | .status" "$T/findings.json")" crit "use.memory-errors is crit"
ok "the finding blames the hog" jq_true --arg h "$HOG" "[.findings[] | select(.check == \"use.memory-errors\") | .culprits[].comm] | index(\$h)" "$T/findings.json"
ok "the summary names the hog" jq_true --arg h "$HOG" "$C | .summary | contains(\$h)" "$T/findings.json"
done_testing
