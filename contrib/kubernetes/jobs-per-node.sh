#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One sonde Job per node (sonde-job.yaml), now: jobs-per-node.sh [-a 'OPTION', ...] [NODE...]
#   -a ARG   one more `sonde run` argument (repeat: -a --window -a 30); default: none
#   NODE     the nodes (default: every node kubectl lists)
# Prints the Jobs it created. Needs kubectl and the namespace (namespace.yaml).
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
args=""
while getopts a: o; do
	case $o in
	a) args="$args${args:+, }\"$(printf '%s' "$OPTARG" | sed 's/[\\"]/\\&/g')\"" ;;
	*) echo "usage: jobs-per-node.sh [-a ARG]... [NODE...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- $(kubectl get nodes -o jsonpath='{.items[*].metadata.name}')
for node in "$@"; do
	case $node in
	*[!a-z0-9.-]*|"") echo "jobs-per-node.sh: not a node name: $node" >&2; exit 2 ;;
	esac
	sed -e "s/@NODE@/$node/g" -e "s|, @ARGS@|${args:+, $args}|" "$dir/sonde-job.yaml" |
		kubectl create -f - -o name
done
