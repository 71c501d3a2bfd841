#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bring the bundles of every node home, for `sonde fleet DIR`: collect-bundles.sh DIR
# Through the DaemonSet's pods (sonde-daemonset.yaml), which see each node's
# /var/lib/sonde/bundles (the Jobs' bundles too): DIR/NODE/sonde-*.tar.xz, mode 0600.
set -eu
[ $# -eq 1 ] || { echo "usage: collect-bundles.sh DIR" >&2; exit 2; }
out=$1
umask 077
mkdir -p "$out"
kubectl -n sonde get pods -l app.kubernetes.io/component=audit \
	-o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodeName}{"\n"}{end}' |
while read -r pod node; do
	mkdir -p "$out/$node"
	# tar of the bundles alone (no other file of the host's directory)
	kubectl -n sonde exec "$pod" -- sh -c 'cd /var/lib/sonde/bundles && tar -cf - sonde-*.tar.xz 2>/dev/null || true' |
		tar -xf - -C "$out/$node" && echo "$node: $(ls "$out/$node" | wc -l) bundles"
done
echo "then: sonde fleet $out"
