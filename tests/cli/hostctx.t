#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The host context in every bundle (collect/hostctx.c, report/host.c,
# bundle/diff_host.c): on a made-up root (sonde run --root) every fact read
# and shown, write-only and secret sysctls never read, the kernel log tail
# redacted with --redact, the failed units from a systemctl that answers,
# fails, hangs (the run does not wait for it) or is missing; the installed
# packages (dpkg's status file, rpm -qa, neither), read after the window;
# sonde diff reporting a sysctl, module, kernel, boot parameter or package
# change as a finding; and on this host, the facts agree with what /proc and
# dpkg say.
. tests/lib/tap.sh

for tool in jq tar xz; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

T=$(mktemp -d /tmp/sonde-hostctx.XXXXXX)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
export LC_ALL=C

# ---- a made-up root ----
fake_root() { # DIR SWAPPINESS EXTRA_MODULE
	local r=$1
	mkdir -p "$r/etc" "$r/proc/sys/kernel" "$r/proc/sys/vm" "$r/proc/sys/net/core" \
		"$r/proc/sys/net/ipv4" "$r/proc/sys/fs/inotify" "$r/sys/fs/cgroup" \
		"$r/sys/kernel/mm/transparent_hugepage" "$r/sys/devices/system/node/node0" \
		"$r/sys/devices/system/node/node1" "$r/sys/devices/system/cpu/cpu0/cpufreq" \
		"$r/dev" "$r/run/systemd/system"
	printf 'NAME="Fakix"\nPRETTY_NAME="Fakix 7 (test)"\n' >"$r/etc/os-release"
	echo "fakehost" >"$r/proc/sys/kernel/hostname"
	echo "6.99.0-test" >"$r/proc/sys/kernel/osrelease"
	echo "#1 SMP test" >"$r/proc/sys/kernel/version"
	printf 'processor\t: 0\nmodel name\t: Fake CPU 9000\nflags\t\t: fpu sse2 avx512f\n' >"$r/proc/cpuinfo"
	echo "12345.67 20000.00" >"$r/proc/uptime"
	echo "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet" >"$r/proc/cmdline"
	echo 512 >"$r/proc/sys/kernel/tainted"
	printf 'virtio_net 57344 0 - Live 0x0\next4 1003520 1 - Live 0x0\n%s' "${3:+$3 1000 0 - Live 0x0
}" >"$r/proc/modules"
	echo "$2" >"$r/proc/sys/vm/swappiness"
	echo 20 >"$r/proc/sys/vm/dirty_ratio"
	echo 0 >"$r/proc/sys/vm/drop_caches"
	chmod 0200 "$r/proc/sys/vm/drop_caches"
	echo 4096 >"$r/proc/sys/net/core/somaxconn"
	printf '4096\t131072\t6291456\n' >"$r/proc/sys/net/ipv4/tcp_rmem"
	echo "00000000-00000000-00000000-00000000" >"$r/proc/sys/net/ipv4/tcp_fastopen_key"
	echo 1 >"$r/proc/sys/net/ipv4/ip_forward"
	echo 1 >"$r/proc/sys/kernel/sched_autogroup_enabled"
	echo 0 >"$r/proc/sys/kernel/panic"
	echo 9223372036854775807 >"$r/proc/sys/fs/file-max"
	echo 8192 >"$r/proc/sys/fs/inotify/max_user_watches"
	echo "cpuset cpu io memory pids" >"$r/sys/fs/cgroup/cgroup.controllers"
	echo "always [madvise] never" >"$r/sys/kernel/mm/transparent_hugepage/enabled"
	echo "always defer defer+madvise [madvise] never" >"$r/sys/kernel/mm/transparent_hugepage/defrag"
	echo "schedutil" >"$r/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
	echo "0-1" >"$r/sys/devices/system/node/online"
	echo "0" >"$r/sys/devices/system/node/node0/cpulist"
	echo "1" >"$r/sys/devices/system/node/node1/cpulist"
	echo "Node 0 MemTotal:        1048576 kB" >"$r/sys/devices/system/node/node0/meminfo"
	echo "10 20" >"$r/sys/devices/system/node/node0/distance"
	{
		echo "6,100,1000000,-;Linux version 6.99.0-test"
		echo "6,101,2000000,-;e1000e: eth0 NIC Link is Up, address 192.168.7.42 on fakehost"
		echo " SUBSYSTEM=net"
		echo "4,102,3000000,-;WARNING: CPU: 0 PID: 1 at fake.c:1"
		echo "3,103,4000000,-;OUT OF MEMORY: Killed Process 4242 (leaky) total-vm:1024kB"
		echo "3,104,5000000,-;Buffer I/O Error on dev sda1, logical block 0"
		echo "6,105,6000000,-;ext4 mounted, no oom here: Out-Of-Band IRQ"
	} >"$r/dev/kmsg"
}
# dpkg's status file: VARIANT old, or new (openssl upgraded, curl removed, htop
# added); libc6 of two architectures, a package removed but its configuration files.
dpkg_status() { # ROOT VARIANT
	mkdir -p "$1/var/lib/dpkg"
	{
		[ "$2" = old ] && printf 'Package: curl\nStatus: install ok installed\nVersion: 7.88.1-10\nArchitecture: amd64\n\n'
		[ "$2" = new ] && printf 'Package: htop\nStatus: install ok installed\nVersion: 3.2.2-2\nArchitecture: amd64\n\n'
		printf 'Package: libc6\nStatus: install ok installed\nArchitecture: amd64\nVersion: 2.36-9\n'
		printf 'Description: GNU C Library\n shared libraries\n\n'
		printf 'Package: libc6\nStatus: install ok installed\nVersion: 2.36-9\nArchitecture: i386\n\n'
		printf 'Package: oldtool\nStatus: deinstall ok config-files\nVersion: 1.0\nArchitecture: all\n\n'
		printf 'Package: openssl\nStatus: install ok installed\nVersion: %s\nArchitecture: amd64\n' \
			"$([ "$2" = old ] && echo 3.0.11-1 || echo 3.0.13-1)"
	} >"$1/var/lib/dpkg/status"
}
mkdir -p "$T/bin" "$T/checks/use" "$T/out1" "$T/out2"
# A check that needs no collector: only host, host.context and sonde run.
cat >"$T/checks/use/noop.lua" <<'EOF'
return { id = "use.noop", title = "nothing", methodology = "use", resource = "cpu",
  metric = "errors", collect = {}, run = function(ctx) end }
EOF
# systemctl as the test wants it: answers, fails, hangs.
systemctl_says() {
	case $1 in
	answer) cat <<'EOF'
#!/bin/sh
echo "nginx.service loaded failed failed The web server"
echo "backup.timer loaded failed failed Backups"
EOF
		;;
	fail) printf '#!/bin/sh\necho "Failed to connect to bus" >&2\nexit 1\n' ;;
	hang) printf '#!/bin/sh\nexec sleep 31.5\n' ;;
	esac >"$T/bin/systemctl"
	chmod 0755 "$T/bin/systemctl"
}
run_root() { # ROOT OUT [ARGS...]: a run over the made-up root, findings.json in OUT/f.json
	local root=$1 out=$2
	shift 2
	timeout 60 env PATH="${RUN_PATH:-$T/bin:$PATH}" "$SONDE" run --root "$root" --checks "$T/checks" --check use.noop \
		--window 1 --interval 1 --no-bpf --no-perf --no-progress --json --out "$out" "$@" \
		>"$out/f.json" 2>"$out/err"
}
J() { jq -r "$1" "$2/f.json"; }

fake_root "$T/r1" 60 ""
dpkg_status "$T/r1" old
systemctl_says answer
run_root "$T/r1" "$T/out1"
is "$?" 0 "a run over the made-up root: exit 0"
C='.host.context'
is "$(J "$C.os" "$T/out1")" "Fakix 7 (test)" "os: PRETTY_NAME"
is "$(J '.host.kernel' "$T/out1")" "6.99.0-test" "kernel release"
is "$(J "$C.kernel_build" "$T/out1")" "#1 SMP test" "kernel build"
is "$(J "$C.kernel_cmdline" "$T/out1")" "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet" "kernel command line"
is "$(J "$C.tainted" "$T/out1")" 512 "taint value"
is "$(J "$C.taint_flags" "$T/out1")" W "taint letters: W"
is "$(J "$C.uptime_seconds" "$T/out1")" 12345.67 "uptime"
is "$(J "$C.modules | join(\",\")" "$T/out1")" "virtio_net,ext4" "modules"
is "$(J "$C.cgroup" "$T/out1")" v2 "cgroup v2"
is "$(J "$C.transparent_hugepage" "$T/out1")" madvise "THP"
is "$(J "$C.transparent_hugepage_defrag" "$T/out1")" madvise "THP defrag"
is "$(J "$C.cpu.model" "$T/out1")" "Fake CPU 9000" "CPU model"
is "$(J "$C.cpu.flags | length" "$T/out1")" 3 "CPU flags"
is "$(J "$C.cpu.frequency_governor" "$T/out1")" schedutil "governor"
is "$(J "$C.cpu.numa | length" "$T/out1")" 2 "two NUMA nodes"
is "$(J "$C.cpu.numa[0].mem_bytes" "$T/out1")" 1073741824 "node 0's memory"
is "$(J "$C.sysctl[\"vm.swappiness\"]" "$T/out1")" 60 "sysctl vm.swappiness"
is "$(J "$C.sysctl[\"net.ipv4.tcp_rmem\"]" "$T/out1")" "4096 131072 6291456" "sysctl net.ipv4.tcp_rmem, one space between"
is "$(J "$C.sysctl[\"fs.inotify.max_user_watches\"]" "$T/out1")" 8192 "sysctl fs.inotify.max_user_watches"
is "$(J "$C.sysctl | has(\"vm.drop_caches\")" "$T/out1")" false "a write-only sysctl is not read"
is "$(J "$C.sysctl | has(\"net.ipv4.tcp_fastopen_key\")" "$T/out1")" false "the TCP Fast Open key is not read"
is "$(J "$C.sysctl | has(\"net.ipv4.ip_forward\")" "$T/out1")" false "a sysctl outside the list is not read"
is "$(J "$C.sysctl | has(\"kernel.panic\")" "$T/out1")" false "kernel.panic is not a performance sysctl"
is "$(J "$C.failed_units | join(\",\")" "$T/out1")" "nginx.service,backup.timer" "the failed units systemctl names"
is "$(J "$C.kernel_log | length" "$T/out1")" 6 "six kernel log records (a dictionary line is not one)"
is "$(J "$C.kernel_log[2]" "$T/out1")" "[3.000000] WARNING: CPU: 0 PID: 1 at fake.c:1" "a record as [seconds] text"
is "$(J "$C.packages.manager" "$T/out1")" dpkg "packages: dpkg's"
is "$(J "$C.packages.installed" "$T/out1")" 4 "packages: 4 installed (config-files only is not)"
# ---- the kernel.log collector keeps only the records the checks need, in any case ----
cat >"$T/checks/use/kmsg.lua" <<'EOF'
return { id = "use.kmsg", title = "kernel log", methodology = "use", resource = "memory",
  metric = "errors", collect = { "kernel.log" }, run = function(ctx)
    local log = ctx.proc.kernel_log() or {}
    ctx:metric("kept", #log)
    for _, l in ipairs(log) do ctx:note(l) end
  end }
EOF
mkdir -p "$T/outk"
run_root "$T/r1" "$T/outk" --check use.kmsg
is "$(J '.checks[] | select(.id == "use.kmsg") | .metrics[] | select(.name == "kept") | .value' "$T/outk")" 2 \
	"kernel.log keeps the OOM kill and the I/O error, whatever their case, and nothing else"
jq '.checks[] | select(.id == "use.kmsg")' "$T/outk/f.json" >"$T/outk/check.json"
ok "the OOM kill is one of them" grep -q 'Killed Process 4242' "$T/outk/check.json"
ok "the link, the warning and a near miss are not" sh -c "! grep -q 'Link is Up\|WARNING: CPU\|Out-Of-Band' '$T/outk/check.json'"
mkdir "$T/x1"
tar -xJf "$T"/out1/sonde-*.tar.xz -C "$T/x1"
ok "the capture is raw/host.context.cap" test -f "$T/x1/raw/host.context.cap"
ok "no record of the Fast Open key in the capture" sh -c "! grep -a -q 'tcp_fastopen_key' '$T/x1/raw/host.context.cap'"
ok "report.md has a Host section" grep -q '^## Host$' "$T/x1/report.md"
ok "it names the OS" sh -c "sed -n '/^## Host/,/^## /p' '$T/x1/report.md' | grep -q 'Fakix 7'"
ok "it lists the sysctls" sh -c "sed -n '/^## Host/,/^## /p' '$T/x1/report.md' | grep -q '^vm.swappiness = 60$'"
ok "it says what the taint means" sh -c "sed -n '/^## Host/,/^## /p' '$T/x1/report.md' | grep -q 'the kernel issued a warning'"
ok "report.html has it too" grep -q 'Fakix 7' "$T/x1/report.html"
ok "the Host section counts the packages" grep -q '^| packages installed | 4 (dpkg) |$' "$T/x1/report.md"
is "$(grep -a -A5 ' sonde:packages$' "$T/x1/raw/host.context.cap" | tail -n +2)" \
	"$(printf 'manager dpkg\ncurl\t7.88.1-10\tamd64\nlibc6\t2.36-9\tamd64\nlibc6\t2.36-9\ti386\nopenssl\t3.0.11-1\tamd64')" \
	"the capture lists them, name, version and architecture, sorted"
end=$(grep -a '^end_wall_ns: ' "$T/x1/raw/sonde.cap" | awk '{ print $2 }')
rec=$(grep -a ' sonde:packages$' "$T/x1/raw/host.context.cap" | awk '{ print $3 }')
ok "the packages are read after the window ends ($rec > $end)" test "${rec:-0}" -gt "${end:-0}"

# ---- packages from rpm, or from no database ----
mkdir -p "$T/rpmroot" "$T/outp" "$T/outq"
cp -a "$T/r1/." "$T/rpmroot/"
rm -rf "$T/rpmroot/var/lib/dpkg"
mkdir -p "$T/rpmroot/var/lib/rpm"
printf '#!/bin/sh\n[ "$1" = --root ] || exit 9\nprintf "bash\\t5.2.15-1.fc38\\tx86_64\\nkernel\\t6.5.6-300.fc38\\tx86_64\\n"\n' >"$T/bin/rpm"
chmod 0755 "$T/bin/rpm"
run_root "$T/rpmroot" "$T/outp"
is "$(J "$C.packages.manager" "$T/outp")/$(J "$C.packages.installed" "$T/outp")" rpm/2 \
	"no dpkg, an RPM database: rpm --root ROOT -qa's 2 packages"
rm -rf "$T/rpmroot/var/lib/rpm" "$T/bin/rpm"
run_root "$T/rpmroot" "$T/outq"
is "$(J "$C.packages" "$T/outq")" null "neither database: packages unknown"
is "$(J "$C.packages_unknown" "$T/outq")" "no package database (dpkg or rpm)" "and why"

# ---- redaction reaches the kernel log ----
mkdir "$T/outr"
run_root "$T/r1" "$T/outr" --redact
is "$?" 0 "--redact over the made-up root: exit 0"
ok "the kernel log's address is pseudonymized in findings.json" \
	sh -c "! grep -q '192.168.7.42' '$T/outr/f.json' && jq -e '$C.kernel_log[1] | test(\"Link is Up\")' '$T/outr/f.json' >/dev/null"
mkdir "$T/xr"
tar -xJf "$T"/outr/sonde-*.tar.xz -C "$T/xr"
ok "... and in the capture" sh -c "! grep -rqa '192.168.7.42' '$T/xr/raw'"
ok "... and the host name in it" sh -c "! grep -rqa 'fakehost' '$T/xr/raw/host.context.cap'"

# ---- systemctl that fails, hangs, or is not there; a host without systemd ----
mkdir "$T/outf" "$T/outh" "$T/outn" "$T/outs"
systemctl_says fail
run_root "$T/r1" "$T/outf"
is "$(J "$C.failed_units" "$T/outf")" null "systemctl fails: failed units unknown"
ok "... with the reason: $(J "$C.failed_units_unknown" "$T/outf")" \
	test "$(J "$C.failed_units_unknown | test(\"failed\")" "$T/outf")" = true
systemctl_says hang
start=$(date +%s%N)
run_root "$T/r1" "$T/outh"
took=$((($(date +%s%N) - start) / 1000000))
is "$(J "$C.failed_units_unknown" "$T/outh")" "systemctl did not answer within 2 s" "systemctl hangs: said so"
ok "the run did not wait for it beyond its 2 s (took $took ms for a 1 s window)" test "$took" -lt 8000
is "$(ps -eo args | grep -cx 'sleep 31.5')" 0 "the hung systemctl was killed, not left running"
rm "$T/bin/systemctl"
RUN_PATH=$T/bin run_root "$T/r1" "$T/outn"
is "$(J "$C.failed_units_unknown" "$T/outn")" "no systemctl in PATH" "no systemctl: said so"
rmdir "$T/r1/run/systemd/system"
run_root "$T/r1" "$T/outs"
ok "no /run/systemd/system: not booted with systemd" \
	test "$(J "$C.failed_units_unknown | test(\"not booted with systemd\")" "$T/outs")" = true

# ---- sonde diff: the host's changes are findings ----
fake_root "$T/r2" 10 xfs
dpkg_status "$T/r2" new
echo "6.99.1-test" >"$T/r2/proc/sys/kernel/osrelease"
echo "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro mitigations=off" >"$T/r2/proc/cmdline"
systemctl_says answer
run_root "$T/r2" "$T/out2"
B1=$(ls "$T"/out1/sonde-*.tar.xz)
B2=$(ls "$T"/out2/sonde-*.tar.xz)
"$SONDE" diff "$B1" "$B2" --json >"$T/diff.json" 2>"$T/diff.err"
is "$?" 0 "sonde diff of the two: exit 0"
hostf() { jq -r '[.findings[] | select(.change == "host") | "\(.check): \(.summary)"] | sort | join("|")' "$T/diff.json"; }
ok "the sysctl change is a finding: $(hostf)" grep -qF 'host.sysctl: sysctl vm.swappiness: 60 -> 10' <<<"$(hostf)"
ok "the module loaded since is one" grep -qF 'host.modules: module xfs: added' <<<"$(hostf)"
ok "the kernel update is one" grep -qF 'host.kernel: kernel release: 6.99.0-test -> 6.99.1-test' <<<"$(hostf)"
ok "a boot parameter added is one" grep -qF 'host.kernel: boot parameter mitigations: added (off)' <<<"$(hostf)"
ok "and one removed" grep -qF 'host.kernel: boot parameter quiet: gone' <<<"$(hostf)"
ok "a package upgraded is one" grep -qF 'host.packages: package openssl: 3.0.11-1 -> 3.0.13-1' <<<"$(hostf)"
ok "a package removed is one" grep -qF 'host.packages: package curl: gone (was 7.88.1-10)' <<<"$(hostf)"
ok "a package installed is one" grep -qF 'host.packages: package htop: added (3.2.2-2)' <<<"$(hostf)"
is "$(hostf | grep -c libc6)" 0 "libc6 of both architectures did not change"
is "$(jq -r .package_changes "$T/diff.json")" 3 "three package changes"
is "$(jq -r '[.findings[] | select(.change == "host") | .new_severity] | unique | join(",")' "$T/diff.json")" warn \
	"host changes are of severity warn"
is "$(jq -r .worst "$T/diff.json")" warn "they count for worst"
"$SONDE" diff "$B1" "$B2" >"$T/diff.txt"
ok "the text diff lists them" grep -q '^  host .*host.sysctl: sysctl vm.swappiness: 60 -> 10' "$T/diff.txt"
"$SONDE" diff "$B1" "$B2" --md >"$T/diff.md"
ok "the Markdown diff lists them" grep -qF 'swappiness' "$T/diff.md"
"$SONDE" diff "$B1" "$B2" --fail-on warn >/dev/null 2>"$T/diff.err"
is "$?" 3 "--fail-on warn: exit 3 on a host change"
ok "stderr names the finding: $(cat "$T/diff.err")" grep -q -- '--fail-on warn: host finding host\.' "$T/diff.err"
"$SONDE" diff "$B1" "$B1" --json >"$T/same.json"
is "$(jq '[.findings[] | select(.change == "host")] | length' "$T/same.json")" 0 "a bundle against itself: no host change"

# ---- sonde diff: mounts and their options, cgroup limits (proc.mounts, proc.cgroups) ----
cat >"$T/checks/use/mounts.lua" <<'EOF'
return { id = "use.mounts", title = "mounts and cgroups", methodology = "use", resource = "filesystem",
  metric = "errors", collect = { "proc.mounts", "proc.cgroups" }, run = function(ctx) end }
EOF
mounts_root() { # ROOT DATA_OPTIONS MEMORY_MAX
	local r=$1
	[ -n "$r" ] && [ -d "$r/etc" ] || return 1 # a made-up root only, never /
	mkdir -p "$r/proc/self" "$r/data" "$r/sys/fs/cgroup/app"
	printf '%s\n' "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw" \
		"30 22 254:16 / /data $2 shared:2 - xfs /dev/vdb rw,attr2,inode64" \
		"40 22 0:35 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw" >"$r/proc/self/mountinfo"
	echo "cpu memory pids" >"$r/sys/fs/cgroup/cgroup.controllers"
	echo "cpu memory pids" >"$r/sys/fs/cgroup/app/cgroup.controllers"
	echo 1 >"$r/sys/fs/cgroup/app/cgroup.procs"
	echo "$3" >"$r/sys/fs/cgroup/app/memory.max"
	echo "max 100000" >"$r/sys/fs/cgroup/app/cpu.max"
	echo max >"$r/sys/fs/cgroup/app/pids.max"
}
mounts_root "$T/r1" rw,relatime max
mounts_root "$T/r2" rw,noatime 536870912
mkdir -p "$T/outm1" "$T/outm2"
run_root "$T/r1" "$T/outm1" --check use.mounts
run_root "$T/r2" "$T/outm2" --check use.mounts
"$SONDE" diff "$T"/outm1/sonde-*.tar.xz "$T"/outm2/sonde-*.tar.xz --json >"$T/diffm.json" 2>"$T/diffm.err"
hostm() { jq -r '[.findings[] | select(.change == "host") | "\(.check): \(.summary)"] | sort | join("|")' "$T/diffm.json"; }
ok "a mount's options changed is a finding: $(hostm)" \
	grep -qF 'host.mounts: mount /data: xfs /dev/vdb rw,relatime,rw,attr2,inode64 -> xfs /dev/vdb rw,noatime,rw,attr2,inode64' <<<"$(hostm)"
ok "a cgroup's limit changed is one" grep -qF 'host.cgroup: cgroup /app memory.max: max -> 536870912' <<<"$(hostm)"
is "$(hostm | grep -o 'cpu.max' | wc -l)" 0 "an unchanged limit is none"

# ---- this host: the facts agree with /proc ----
mkdir "$T/live"
timeout 60 "$SONDE" run --checks "$T/checks" --check use.noop --window 1 --interval 1 --no-bpf --no-perf \
	--no-progress --json --out "$T/live" >"$T/live/f.json" 2>"$T/live/err"
is "$?" 0 "a run on this host: exit 0"
is "$(J "$C.kernel_cmdline" "$T/live")" "$(tr -d '\n' </proc/cmdline | sed 's/ *$//')" "this host: the kernel command line"
is "$(J "$C.sysctl[\"vm.swappiness\"]" "$T/live")" "$(cat /proc/sys/vm/swappiness)" "this host: vm.swappiness"
is "$(J "$C.tainted" "$T/live")" "$(cat /proc/sys/kernel/tainted)" "this host: the taint"
if [ -r /proc/modules ]; then
	is "$(J "$C.modules | length" "$T/live")" "$(wc -l </proc/modules)" "this host: the module count"
else
	is "$(J "$C.modules | length" "$T/live")" 0 "this host has no /proc/modules: no module"
fi
is "$(J "$C.os" "$T/live")" "$(. /etc/os-release && echo "$PRETTY_NAME")" "this host: the OS"
if command -v dpkg-query >/dev/null && [ -r /var/lib/dpkg/status ]; then
	is "$(J "$C.packages.installed" "$T/live")" \
		"$(dpkg-query -W -f '${db:Status-Status}\n' | grep -cx installed)" \
		"this host: as many packages installed as dpkg-query says"
else
	skip "this host's packages" "no dpkg here"
fi
ok "this host: every sysctl shown is readable here and equal" sh -c '
	jq -r ".host.context.sysctl | to_entries[] | \"\(.key)\t\(.value)\"" "$1" | while IFS="	" read -r k v; do
		f=/proc/sys/$(echo "$k" | tr . /)
		[ "$(tr -s "\t " "  " <"$f" | sed "s/ *$//")" = "$v" ] || case $k in
		*fs.file-nr | *dentry-state | *inode-*) ;; *) echo "differs: $k" >&2; exit 1 ;; esac
	done' _ "$T/live/f.json"
done_testing
