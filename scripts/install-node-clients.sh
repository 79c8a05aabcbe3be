#!/usr/bin/env bash
# install-node-clients.sh — Microsoft's JavaScript Event Hubs SDK
# (@azure/event-hubs) for the custom-app tutorial's producer
# (python/tests/eventhubs_node/send.js, run by
# python/tests/test_eventhubs_node.py): `npm ci` of the package.json and
# package-lock.json there into $REPO/.cache/node-clients. The test runs the
# producer with NODE_PATH=$REPO/.cache/node-clients/node_modules and fails
# with a message naming this script when the module is missing.
#
# Idempotent and non-interactive: a stamp holding the hash of the package
# files and of the node version makes a second run exit at once without
# calling npm. Needs node and npm (apt-get install nodejs npm). Progress goes
# to stderr.
#
# Environment:
#   FABRICTEST_NODE_CLIENTS  install directory (default $REPO/.cache/node-clients)
#   NPM_TIMEOUT_SECONDS      bound on the npm call (default 600)
set -euo pipefail

log() { printf 'install-node-clients: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
src=$repo_root/python/tests/eventhubs_node
out=${FABRICTEST_NODE_CLIENTS:-$repo_root/.cache/node-clients}
stamp=$out/.fabrictest-node-clients.sha256
NPM_TIMEOUT_SECONDS=${NPM_TIMEOUT_SECONDS:-600}

for f in package.json package-lock.json; do
  [ -f "$src/$f" ] || die "missing $src/$f"
done
command -v node >/dev/null 2>&1 || die "node not found; install Node.js 18 or later (apt-get install nodejs npm)"
command -v npm >/dev/null 2>&1 || die "npm not found; install it (apt-get install npm)"
want=$( { cat "$src/package.json" "$src/package-lock.json"; node --version; } | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$out/node_modules/@azure/event-hubs/package.json" ]; then
  log "up to date: $out"
  exit 0
fi

start=$SECONDS
rm -rf "$out"
mkdir -p "$out"
cp "$src/package.json" "$src/package-lock.json" "$out/"
(cd "$out" && timeout "$NPM_TIMEOUT_SECONDS" npm ci --no-audit --no-fund --loglevel=error </dev/null >&2) \
  || die "npm ci in $out failed"
version=$(node -p 'require(process.argv[1]).version' "$out/node_modules/@azure/event-hubs/package.json") \
  || die "@azure/event-hubs not installed in $out after npm ci"
printf '%s\n' "$want" >"$stamp"
log "done in $((SECONDS - start))s: @azure/event-hubs $version in $out"
