#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Containers named from what the host keeps (collect/containers.c,
# collect/analysis_containers.c): on a made-up root (sonde run --root), the
# cgroup paths and the state files each runtime writes, laid out as they write
# them (sources in core/util/cgpath.c and core/collect/containers.c):
# Docker (systemd driver, cgroup v2), Kubernetes on containerd (systemd
# driver, a pod's pause container beside its container) and on CRI-O
# (cgroupfs driver), podman, systemd-nspawn, LXC, runc by hand (no path
# convention: its state's cgroup_paths), containerd alone; and what cannot be
# named keeps its id and says why (a Docker file that is not JSON, containerd
# without the CRI's annotations, a pod known only by its hosts file). The
# runtimes' files hold the containers' environment: no secret of it reaches
# the bundle. --redact leaves no workload name in it.
. tests/lib/tap.sh

for tool in jq tar xz; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

T=$(mktemp -d /tmp/sonde-containers.XXXXXX)
KEEP_T=${KEEP:-}
trap '[ -n "$KEEP_T" ] || rm -rf "$T"' EXIT
export LC_ALL=C
R=$T/root
CG=$R/sys/fs/cgroup

ID_DOCKER=1111111111111111111111111111111111111111111111111111111111111111
ID_K8S=2222222222222222222222222222222222222222222222222222222222222222
ID_PAUSE=3333333333333333333333333333333333333333333333333333333333333333
ID_CRIO=4444444444444444444444444444444444444444444444444444444444444444
ID_PODMAN=5555555555555555555555555555555555555555555555555555555555555555
ID_BROKEN=6666666666666666666666666666666666666666666666666666666666666666
ID_CTR=7777777777777777777777777777777777777777777777777777777777777777
ID_LONELY=8888888888888888888888888888888888888888888888888888888888888888
UID_WEB=0d6b5e3c-1a2b-4c3d-8e9f-0a1b2c3d4e5f
UID_CACHE=1e7c6f4d-2b3c-4d4e-9f0a-1b2c3d4e5f60
UID_LONELY=2f8d7a5e-3c4d-4e5f-8a1b-2c3d4e5f6071
SECRET=hunter2-Sup3rSecretValue

# a cgroup with processes and a CPU and memory limit (cgroup v2 files)
cg() { # PATH PID...
	local d=$CG$1
	shift
	mkdir -p "$d"
	printf '%s\n' "$@" >"$d/cgroup.procs"
	echo "cpu memory pids io" >"$d/cgroup.controllers"
	printf 'usage_usec 1000\nnr_periods 10\nnr_throttled 5\nthrottled_usec 200\n' >"$d/cpu.stat"
	echo "50000 100000" >"$d/cpu.max"
	echo 1048576 >"$d/memory.current"
	echo 4194304 >"$d/memory.max"
}
mkdir -p "$R/proc/self" "$R/proc/sys/kernel" "$CG"
echo "30 1 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw" >"$R/proc/self/mountinfo"
echo "ctnode" >"$R/proc/sys/kernel/hostname"
echo "cpu memory pids io" >"$CG/cgroup.controllers"

# Docker, systemd driver
cg "/system.slice/docker-$ID_DOCKER.scope" 101
mkdir -p "$R/var/lib/docker/containers/$ID_DOCKER"
cat >"$R/var/lib/docker/containers/$ID_DOCKER/config.v2.json" <<EOF
{"ID":"$ID_DOCKER","Name":"/shop-web","Config":{"Image":"nginx:1.25","Env":["DB_PASSWORD=$SECRET"],"Labels":{"com.example":"x"}}}
EOF
# Docker, a config.v2.json cut mid-write
cg "/system.slice/docker-$ID_BROKEN.scope" 109
mkdir -p "$R/var/lib/docker/containers/$ID_BROKEN"
printf '{"ID":"%s","Name":"/half' "$ID_BROKEN" >"$R/var/lib/docker/containers/$ID_BROKEN/config.v2.json"
# Kubernetes on containerd, systemd driver: a container and its pod's pause container
POD=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_WEB//-/_}.slice
cg "$POD/cri-containerd-$ID_K8S.scope" 102
cg "$POD/cri-containerd-$ID_PAUSE.scope" 103
TASKS=$R/run/containerd/io.containerd.runtime.v2.task/k8s.io
mkdir -p "$TASKS/$ID_K8S" "$TASKS/$ID_PAUSE" "$R/var/log/pods/shop_web-1_$UID_WEB/nginx"
cat >"$TASKS/$ID_K8S/config.json" <<EOF
{"ociVersion":"1.1.0","process":{"env":["API_TOKEN=$SECRET"]},"annotations":{
 "io.kubernetes.cri.container-type":"container","io.kubernetes.cri.container-name":"nginx",
 "io.kubernetes.cri.sandbox-name":"web-1","io.kubernetes.cri.sandbox-namespace":"shop",
 "io.kubernetes.cri.sandbox-uid":"$UID_WEB","io.kubernetes.cri.image-name":"docker.io/library/nginx:1.25"}}
EOF
cat >"$TASKS/$ID_PAUSE/config.json" <<EOF
{"ociVersion":"1.1.0","annotations":{"io.kubernetes.cri.container-type":"sandbox",
 "io.kubernetes.cri.sandbox-name":"web-1","io.kubernetes.cri.sandbox-namespace":"shop"}}
EOF
# Kubernetes on CRI-O, cgroupfs driver; its name from the kubelet's log link too
cg "/kubepods/besteffort/pod$UID_CACHE/crio-$ID_CRIO" 104
UD=$R/var/lib/containers/storage/overlay-containers/$ID_CRIO/userdata
mkdir -p "$UD" "$R/var/log/pods/db_cache-0_$UID_CACHE/redis" "$R/var/log/containers"
cat >"$UD/config.json" <<EOF
{"annotations":{"io.kubernetes.container.name":"redis","io.kubernetes.pod.name":"cache-0",
 "io.kubernetes.pod.namespace":"db","io.kubernetes.cri-o.ImageName":"docker.io/library/redis:7"}}
EOF
touch "$R/var/log/containers/cache-0_db_redis-$ID_CRIO.log"
# podman, systemd driver, crun's "container" below the scope
cg "/machine.slice/libpod-$ID_PODMAN.scope/container" 105
cat >"$R/var/lib/containers/storage/overlay-containers/containers.json" <<EOF
[{"id":"$ID_PODMAN","names":["pgsql"],"image":"abc","metadata":"{\"image-name\":\"docker.io/library/postgres:16\",\"name\":\"pgsql\"}"}]
EOF
# systemd-nspawn, registered with machined
cg '/machine.slice/systemd-nspawn@build\x2dbox.service/payload' 106
mkdir -p "$R/run/systemd/machines"
printf 'NAME=build-box\nSCOPE=x\nCLASS=container\nSERVICE=nspawn\nROOT=/var/lib/machines/build-box\n' \
	>"$R/run/systemd/machines/build-box"
# LXC 4+
cg /lxc.payload.ci-runner 107
# runc by hand: no convention, its state says its cgroup
cg /mybox 108
mkdir -p "$R/run/runc/mybox"
cat >"$R/run/runc/mybox/state.json" <<EOF
{"id":"mybox","init_process_pid":108,"cgroup_paths":{"":"/sys/fs/cgroup/mybox"},
 "config":{"labels":["bundle=/srv/mybox"],"env":["SECRET=$SECRET"]}}
EOF
# containerd alone (ctr): a namespace and a bare id, no name annotation
cg "/default/$ID_CTR" 110
mkdir -p "$R/run/containerd/io.containerd.runtime.v2.task/default/$ID_CTR"
echo '{"ociVersion":"1.1.0","annotations":{}}' \
	>"$R/run/containerd/io.containerd.runtime.v2.task/default/$ID_CTR/config.json"
# a pod with no log directory: its name from the kubelet's hosts file
cg "/kubepods/pod$UID_LONELY/$ID_LONELY" 111
mkdir -p "$R/var/lib/kubelet/pods/$UID_LONELY"
printf '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n10.0.0.5\tlonely-pod\n' \
	>"$R/var/lib/kubelet/pods/$UID_LONELY/etc-hosts"
# not a container: a service
cg /system.slice/sshd.service 112

# A check listing what ctx.proc.containers() says, a row per container.
mkdir -p "$T/checks/workload" "$T/out"
cat >"$T/checks/workload/container-what.lua" <<'EOF'
return { id = "workload.container-what", title = "containers listed", methodology = "workload",
  resource = "container", metric = "what", collect = { "proc.cgroups" },
  run = function(ctx)
    local ix, why = ctx.proc.containers()
    if not ix then ctx:unknown("n", why) return end
    local rows = {}
    for _, c in ipairs(ix) do
      rows[#rows + 1] = { c.id, c.label, c.runtime or "-", c.image or "-", c.why or "-",
        c.pod and c.pod.qos or "-", c.processes }
    end
    ctx:table { title = "containers", columns = { "id", "label", "runtime", "image", "why", "qos", "procs" }, rows = rows }
    local cgs = {}
    for path, e in pairs(ix.cgroups) do cgs[#cgs + 1] = { path, e.label, e.monitor and "monitor" or "-" } end
    table.sort(cgs, function(a, b) return a[1] < b[1] end)
    ctx:table { title = "cgroups", columns = { "path", "label", "monitor" }, rows = cgs }
    ctx:metric("n", #ix)
  end }
EOF
run_root() { # OUT [ARGS...]
	local out=$1
	shift
	timeout 60 "$SONDE" run --root "$R" --checks "$T/checks" --check workload.container-what \
		--window 1 --interval 1 --no-bpf --no-perf --no-progress --json --out "$out" "$@" \
		>"$out/f.json" 2>"$out/err"
}
run_root "$T/out"
is "$?" 0 "a run over the made-up root: exit 0"
W='.checks[] | select(.id == "workload.container-what")'
row() { # ID COLUMN: the cell of that container's row
	jq -r --arg id "$1" --argjson c "$2" \
		"$W | .evidence[] | select(.title == \"containers\") | .rows[] | select(.[0] == \$id) | .[\$c]" \
		"$T/out/f.json"
}
is "$(jq -r "$W | .metrics[0].value" "$T/out/f.json")" 11 "eleven containers (sshd.service is none)"
is "$(row "$ID_DOCKER" 1)" "docker shop-web" "Docker: named from config.v2.json"
is "$(row "$ID_DOCKER" 3)" "nginx:1.25" "Docker: its image"
is "$(row "$ID_K8S" 1)" "pod shop/web-1, container nginx" "containerd under Kubernetes: pod and container"
is "$(row "$ID_K8S" 3)" "docker.io/library/nginx:1.25" "its image from the CRI annotation"
is "$(row "$ID_K8S" 5)" "burstable" "its pod's QoS class from the path"
is "$(row "$ID_PAUSE" 1)" "pod shop/web-1, pause container" "the pod's sandbox is its pause container"
is "$(row "$ID_PAUSE" 4)" "-" "named by its pod: no why"
is "$(row "$ID_CRIO" 1)" "pod db/cache-0, container redis" "CRI-O, cgroupfs driver: pod and container"
is "$(row "$ID_CRIO" 2)" "cri-o" "its runtime from the path"
is "$(row "$ID_CRIO" 3)" "docker.io/library/redis:7" "its image"
is "$(row "$ID_PODMAN" 1)" "podman pgsql" "podman: from containers.json"
is "$(row "$ID_PODMAN" 3)" "docker.io/library/postgres:16" "its image from the metadata"
is "$(row build-box 1)" "systemd-nspawn build-box" "systemd-nspawn: the machine, escapes undone"
is "$(row build-box 3)" "/var/lib/machines/build-box" "its root from machined"
is "$(row ci-runner 1)" "lxc ci-runner" "LXC"
is "$(row mybox 1)" "runc mybox" "runc by hand: found by its state's cgroup_paths"
is "$(row "$ID_BROKEN" 1)" "docker ${ID_BROKEN:0:12}" "a broken config.v2.json: runtime and short id"
ok "it says why its name is unknown: $(row "$ID_BROKEN" 4)" \
	grep -q "config.v2.json: not JSON sonde can read" <<<"$(row "$ID_BROKEN" 4)"
is "$(row "$ID_CTR" 1)" "containerd ${ID_CTR:0:12}" "containerd alone: runtime from its task, short id"
ok "why: containerd keeps names in its database ($(row "$ID_CTR" 4))" \
	grep -q "keeps names in its database" <<<"$(row "$ID_CTR" 4)"
is "$(row "$ID_LONELY" 1)" "pod ?/lonely-pod, container ${ID_LONELY:0:12}" \
	"a pod without a log directory: named by its hosts file, namespace unknown"
cgl() { # PATH: the label of a cgroup
	jq -r --arg p "$1" "$W | .evidence[] | select(.title == \"cgroups\") | .rows[] | select(.[0] == \$p) | .[1]" \
		"$T/out/f.json"
}
is "$(cgl "/machine.slice/libpod-$ID_PODMAN.scope/container")" "podman pgsql" \
	"a cgroup below a container's is the container's"
is "$(cgl "$POD")" "pod shop/web-1" "the pod's own cgroup is the pod's"
is "$(cgl /system.slice/sshd.service)" "" "a service is no container"

# ---- no secret of the runtimes' files reaches the bundle ----
B=$(ls "$T"/out/*.tar.xz)
mkdir -p "$T/x"
tar -xJf "$B" -C "$T/x"
ok "the environment in config.v2.json, config.json and state.json is not in the bundle" \
	test -z "$(grep -rl -- "$SECRET" "$T/x")"
ok "sonde:containers is in proc.cgroups" grep -aq "sonde:containers" "$T/x/raw/proc.cgroups.cap"

# ---- --redact: no workload name left, the containers still told apart ----
mkdir -p "$T/outr"
run_root "$T/outr" --redact
is "$?" 0 "a redacted run: exit 0"
mkdir -p "$T/xr"
tar -xJf "$(ls "$T"/outr/*.tar.xz)" -C "$T/xr"
left=$(grep -rlE 'shop-web|web-1|cache-0|pgsql|nginx:1\.25|postgres:16|build-box|build.x2dbox|ci-runner|mybox|lonely-pod' "$T/xr" || true)
is "$left" "" "no container, pod or image name is left in the redacted bundle"
n=$(jq -r "$W | .evidence[] | select(.title == \"containers\") | .rows | map(.[1]) | unique | length" \
	"$T/outr/f.json")
is "$n" 11 "the eleven containers keep eleven labels"
ok "labels are pseudonyms" grep -q "workload-" "$T/outr/f.json"
done_testing
