#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/kubernetes and the Containerfile, without a cluster or an engine
# (none runs here): every manifest parses as YAML (python3's yaml) and holds
# what sonde needs to see the node (hostPID, privileged, the host's cgroups, a
# volume for every mount, the bundles directory it writes to) and the state
# of every runtime collect/containers.c reads; jobs-per-node.sh stamps one
# valid Job per node with a kubectl that answers as a cluster would, and
# refuses a name that is not a node's; the image's runtime stage installs the
# package of every library the sonde binary links.
. tests/lib/tap.sh

command -v python3 >/dev/null || skip_all "python3 is not installed (make deps)"
python3 -c 'import yaml' 2>/dev/null || skip_all "python3's yaml is not installed (make deps: python3-yaml)"
K=contrib/kubernetes
T=$(mktemp -d /tmp/sonde-k8s.XXXXXX)
trap 'rm -rf "$T"' EXIT

# the Job template with its placeholders filled as jobs-per-node.sh fills them
sed -e 's/@NODE@/node-1/g' -e 's|, @ARGS@||' "$K/sonde-job.yaml" >"$T/job.yaml"
# the state roots collect/containers.c reads (its string literals under /run and /var)
grep -oE '"/(run|var)/[a-z0-9/._-]+' core/collect/containers.c | tr -d '"' | sort -u >"$T/roots"
ok "collect/containers.c names the runtimes' state ($(wc -l <"$T/roots") paths)" test -s "$T/roots"

check() { # FILE: the manifest's pod spec, checked; one line per failure
	python3 - "$1" "$T/roots" <<'EOF'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
roots = [l.strip() for l in open(sys.argv[2]) if l.strip()]
bad = []
for d in docs:
    kind = d.get("kind")
    if kind == "Namespace":
        continue
    if d.get("metadata", {}).get("namespace") != "sonde":
        bad.append(f"{kind}: not in namespace sonde")
    spec = d["spec"]["template"]["spec"]
    if spec.get("hostPID") is not True:
        bad.append(f"{kind}: no hostPID (sonde would see its own container only)")
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    for c in spec["containers"]:
        if not c.get("image"):
            bad.append(f"{kind}: container {c['name']} has no image")
        if c.get("securityContext", {}).get("privileged") is not True:
            bad.append(f"{kind}: not privileged (no BPF, no perf counters)")
        mounts = c.get("volumeMounts", [])
        paths = [m["mountPath"] for m in mounts]
        if len(paths) != len(set(paths)):
            bad.append(f"{kind}: a mount path twice")
        for m in mounts:
            v = vols.get(m["name"])
            if not v:
                bad.append(f"{kind}: mount {m['name']} has no volume")
            elif not v["hostPath"]["path"].startswith("/"):
                bad.append(f"{kind}: volume {m['name']} is not an absolute hostPath")
            elif v["hostPath"]["path"] != m["mountPath"]:
                bad.append(f"{kind}: {m['name']} mounted elsewhere than the host has it")
            if m["mountPath"] != "/var/lib/sonde/bundles" and not m.get("readOnly"):
                bad.append(f"{kind}: {m['mountPath']} is not read-only")
        if "/sys/fs/cgroup" not in paths:
            bad.append(f"{kind}: no host /sys/fs/cgroup (its cgroup namespace shows its own subtree)")
        if "/var/lib/sonde/bundles" not in paths:
            bad.append(f"{kind}: no bundles directory")
        # every runtime root sonde reads is under a mount (the kubelet's pods directory
        # apart: it holds the pods' secrets, and /var/log/pods names the pods)
        for r in roots:
            if r.startswith("/var/lib/kubelet"):
                continue
            if not any(r == p or r.startswith(p + "/") for p in paths):
                bad.append(f"{kind}: {r} (read by collect/containers.c) is not mounted")
        line = " ".join(c.get("command", []) + c.get("args", []))
        if "sonde run" not in line and "sonde" not in c.get("command", [""])[0]:
            bad.append(f"{kind}: does not run sonde run")
        if "--out /var/lib/sonde/bundles" not in line and "\"--out\", \"/var/lib/sonde/bundles\"" not in line:
            if "/var/lib/sonde/bundles" not in line:
                bad.append(f"{kind}: its bundles do not go to /var/lib/sonde/bundles")
print("\n".join(bad))
EOF
}
for f in "$K/namespace.yaml" "$K/sonde-daemonset.yaml" "$T/job.yaml"; do
	python3 -c 'import sys, yaml; list(yaml.safe_load_all(open(sys.argv[1])))' "$f" 2>"$T/err"
	ok "$(basename "$f") parses as YAML $(head -c 200 "$T/err")" test ! -s "$T/err"
	out=$(check "$f" 2>&1)
	ok "$(basename "$f"): what sonde needs to see the node${out:+: $out}" test -z "$out"
done
is "$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["kind"])' "$K/sonde-daemonset.yaml")" \
	DaemonSet "the audits are a DaemonSet"
is "$(python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); print(d["kind"], d["spec"]["template"]["spec"]["nodeName"], d["spec"]["template"]["spec"]["restartPolicy"])' "$T/job.yaml")" \
	"Job node-1 Never" "the run is a Job pinned to its node, run once"

# jobs-per-node.sh with a kubectl that lists two nodes and keeps what it is asked to create
mkdir -p "$T/bin"
cat >"$T/bin/kubectl" <<EOF
#!/bin/sh
case "\$1 \$2" in
"get nodes") printf 'node-a node-b.example' ;;
"create -f") cat >>"$T/created.yaml"; echo '---' >>"$T/created.yaml"; echo "job.batch/sonde-run-x" ;;
*) echo "kubectl: unexpected \$*" >&2; exit 1 ;;
esac
EOF
chmod +x "$T/bin/kubectl"
PATH="$T/bin:$PATH" "$K/jobs-per-node.sh" -a --window -a 30 >"$T/out" 2>"$T/err"
is "$?" 0 "jobs-per-node.sh: exit 0 $(head -c 200 "$T/err")"
is "$(wc -l <"$T/out")" 2 "a Job per node"
got=$(python3 -c '
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d:
        s = d["spec"]["template"]["spec"]
        print(s["nodeName"], " ".join(s["containers"][0]["args"]))' "$T/created.yaml")
is "$got" "node-a --out /var/lib/sonde/bundles --no-progress --window 30
node-b.example --out /var/lib/sonde/bundles --no-progress --window 30" "each pinned to its node, with the options given"
PATH="$T/bin:$PATH" "$K/jobs-per-node.sh" 'bad/node' >/dev/null 2>"$T/err"
is "$?" 2 "a name that is not a node's is refused"

# the image: its runtime stage installs the package of every library sonde links
if command -v readelf >/dev/null && command -v dpkg >/dev/null && [ -x "$SONDE" ]; then
	runtime=$(sed -n '/^FROM debian:12-slim$/,$p' Containerfile | sed -n '/apt-get install/,/rm -rf/p')
	for lib in $(readelf -d "$SONDE" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p'); do
		path=$(ldd "$SONDE" | awk -v l="$lib" '$1 == l { print $3 }')
		pkg=$(dpkg -S "$path" 2>/dev/null || dpkg -S "/usr$path" 2>/dev/null)
		pkg=$(head -1 <<<"$pkg" | cut -d: -f1)
		case $pkg in libc6 | "") continue ;; esac # the C library is in every image
		ok "the image installs $pkg (for $lib)" grep -qw -- "$pkg" <<<"$runtime"
	done
else
	skip "the image's libraries" "no readelf, dpkg or sonde binary"
fi
if ! command -v ldd >/dev/null; then
	skip "the image's libraries" "no ldd"
fi
ok "the image runs sonde as its entry point" grep -q '^ENTRYPOINT \["/usr/bin/sonde"\]' Containerfile
done_testing
