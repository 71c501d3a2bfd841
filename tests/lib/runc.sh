# SPDX-License-Identifier: GPL-2.0-or-later
# Real OCI containers for the live tests, with runc (Debian's package): a
# bundle whose root file system is the host's programs bind-mounted read-only
# (no image to fetch), started detached, killed and deleted by the caller's
# trap (runc_cleanup). Usage: . tests/lib/runc.sh; runc_skip_unless_usable;
# runc_bundle DIR NAME -- ARGV... [options as environment: RUNC_QUOTA (cfs quota
# of 100000), RUNC_SHARES (cpu.shares: a Kubernetes pod's CPU request), RUNC_MEM (bytes), RUNC_HOSTPID=1 (no PID namespace),
# RUNC_PRIVILEGED=1 (every capability, the host's /sys/fs/cgroup and /run/runc),
# RUNC_BINDS="SRC:DST[:rw] ..."]; runc_start DIR NAME (its init's pid in RUNC_PID); RUNC_NAMES
# lists what runc_cleanup kills and deletes.

RUNC_NAMES=()

runc_skip_unless_usable() {
	command -v runc >/dev/null || skip_all "runc is not installed (make deps)"
	command -v python3 >/dev/null || skip_all "python3 is not installed (make deps)"
	[ "$(id -u)" -eq 0 ] || skip_all "needs root (runc runs containers as root here)"
}

runc_bundle() { # DIR NAME -- ARGV...
	local dir=$1 name=$2
	shift 3
	mkdir -p "$dir/rootfs"
	for d in bin sbin lib lib64 usr etc proc dev sys tmp run; do mkdir -p "$dir/rootfs/$d"; done
	(cd "$dir" && runc spec) || return 1
	python3 - "$dir/config.json" "$name" "$@" <<'EOF'
import json, os, sys
path, name, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
c = json.load(open(path))
env = os.environ
c["process"]["terminal"] = False
c["process"]["args"] = argv
c["hostname"] = name
c["root"] = {"path": "rootfs", "readonly": True}
for d in ["bin", "sbin", "lib", "lib64", "usr", "etc"]:
    if os.path.exists("/" + d):
        c["mounts"].append({"destination": "/" + d, "type": "bind", "source": "/" + d,
                            "options": ["rbind", "ro"]})
c["mounts"].append({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid"]})
for b in env.get("RUNC_BINDS", "").split():
    src, dst, *mode = b.split(":")
    c["mounts"].append({"destination": dst, "type": "bind", "source": src,
                        "options": ["rbind", "rw" if mode == ["rw"] else "ro"]})
res = c["linux"].setdefault("resources", {})
if env.get("RUNC_QUOTA"):
    res["cpu"] = {"quota": int(env["RUNC_QUOTA"]), "period": 100000}
if env.get("RUNC_SHARES"):
    res.setdefault("cpu", {})["shares"] = int(env["RUNC_SHARES"])
if env.get("RUNC_MEM"):
    res["memory"] = {"limit": int(env["RUNC_MEM"])}
if env.get("RUNC_HOSTPID"):
    c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "pid"]
if env.get("RUNC_PRIVILEGED"):
    eff = int(open("/proc/self/status").read().split("CapEff:")[1].split()[0], 16)
    names = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
             "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
             "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
             "CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
             "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
             "CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
             "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
             "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND",
             "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE"]
    held = [n for i, n in enumerate(names) if eff >> i & 1]
    for k in ["bounding", "effective", "permitted"]:
        c["process"]["capabilities"][k] = held
    c["linux"]["maskedPaths"] = []
    c["linux"]["readonlyPaths"] = []
    c["mounts"] = [m for m in c["mounts"] if m["destination"] not in ("/sys", "/sys/fs/cgroup")]
    c["mounts"].append({"destination": "/sys", "type": "bind", "source": "/sys", "options": ["rbind", "ro"]})
    c["mounts"].append({"destination": "/run/runc", "type": "bind", "source": "/run/runc", "options": ["rbind", "ro"]})
json.dump(c, open(path, "w"), indent=1)
EOF
}

runc_start() { # DIR NAME: started detached (not in a subshell: RUNC_NAMES is for the trap); RUNC_PID
	local dir=$1 name=$2
	RUNC_NAMES+=("$name")
	RUNC_PID=
	(cd "$dir" && runc run -d "$name" >"$dir/runc.out" 2>&1 </dev/null) || return 1
	RUNC_PID=$(runc state "$name" | python3 -c 'import json, sys; print(json.load(sys.stdin)["pid"])')
	[ -n "$RUNC_PID" ]
}

runc_cleanup() {
	for n in "${RUNC_NAMES[@]}"; do
		runc kill "$n" KILL 2>/dev/null
	done
	sleep 0.3
	for n in "${RUNC_NAMES[@]}"; do
		runc delete -f "$n" 2>/dev/null
	done
}
