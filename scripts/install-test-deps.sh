#!/usr/bin/env bash
# install-test-deps.sh — install the Debian packages the Go test tier needs
# (called by `make test-deps`; emulator/wire_test.go names it when they are
# missing):
#
#   kcat           librdkafka's command-line client (wire tests consume with it)
#   python3-kafka  kafka-python for /usr/bin/python3 (wire tests produce with it)
#   the shellcheck package: lints every script (scripts/check-scripts.sh)
#   chromium       the browser the portal's tests drive with chromedp
#                  (emulator/internal/portal/browser_test.go), headless
#   curl, jq       the docs' shell blocks, which docs/run_test.go executes
#
# It also vendors axe-core (npm), the accessibility checker the portal's
# browser test injects, into .cache/axe-core/axe.min.js of the repository
# (offline at test time); `npm` installs it, Debian's npm package when the
# machine has none.
#
# Idempotent and non-interactive: when both are installed and usable it exits
# at once without touching apt. Otherwise it installs only the missing
# packages; `apt-get update` runs only then, and only when apt does not know a
# package or the install from the current lists fails (stale lists).
# Progress goes to stderr.
#
# Environment:
#   APT_TIMEOUT_SECONDS   bound on each apt-get call (default 900)
set -euo pipefail

log() { printf 'install-test-deps: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

APT_TIMEOUT_SECONDS=${APT_TIMEOUT_SECONDS:-900}
PYTHON=/usr/bin/python3

# package → check that it is usable, not just that dpkg lists it.
usable() {
  case "$1" in
    kcat) command -v kcat >/dev/null 2>&1 && kcat -V >/dev/null 2>&1 ;;
    python3-kafka) [ -x "$PYTHON" ] && "$PYTHON" -c 'import kafka' >/dev/null 2>&1 ;;
    shellcheck) command -v shellcheck >/dev/null 2>&1 && shellcheck --version >/dev/null 2>&1 ;;
    npm) command -v npm >/dev/null 2>&1 ;;
    curl) command -v curl >/dev/null 2>&1 ;;
    jq) command -v jq >/dev/null 2>&1 && jq --version >/dev/null 2>&1 ;;
    chromium) command -v chromium >/dev/null 2>&1 && chromium --headless --no-sandbox --version >/dev/null 2>&1 ;;
    *) return 1 ;;
  esac
}

AXE_VERSION=4.14.1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AXE_DIR=$ROOT/.cache/axe-core

# vendor_axe puts axe-core $AXE_VERSION's axe.min.js in $AXE_DIR, unless it
# is there already (its VERSION file names the version).
vendor_axe() {
  if [ -s "$AXE_DIR/axe.min.js" ] && [ "$(cat "$AXE_DIR/VERSION" 2>/dev/null)" = "$AXE_VERSION" ]; then
    log "axe-core $AXE_VERSION already vendored"
    return 0
  fi
  command -v npm >/dev/null 2>&1 || die "npm not found: install npm (apt-get install npm), then run this again"
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && timeout "$APT_TIMEOUT_SECONDS" npm pack --silent "axe-core@$AXE_VERSION" >/dev/null) || { rm -rf "$tmp"; die "npm pack axe-core@$AXE_VERSION failed"; }
  tar -xzf "$tmp"/axe-core-"$AXE_VERSION".tgz -C "$tmp" package/axe.min.js
  mkdir -p "$AXE_DIR"
  mv "$tmp/package/axe.min.js" "$AXE_DIR/axe.min.js"
  printf '%s\n' "$AXE_VERSION" > "$AXE_DIR/VERSION"
  rm -rf "$tmp"
  log "vendored axe-core $AXE_VERSION in $AXE_DIR"
}

packages=(kcat python3-kafka shellcheck chromium curl jq)
command -v npm >/dev/null 2>&1 || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  usable "$p" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
  log "already installed: ${packages[*]}"
  vendor_axe
  exit 0
fi

[ "$(id -u)" -eq 0 ] || die "not root; install ${missing[*]} yourself (apt-get install ${missing[*]})"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install ${missing[*]} by other means"

export DEBIAN_FRONTEND=noninteractive
apt_get() {
  # Bounded so a stuck mirror cannot hang CI; stdin closed for non-interactive runs.
  timeout "$APT_TIMEOUT_SECONDS" apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@" </dev/null
}
install() { apt_get install --no-install-recommends "${missing[@]}" >&2; }

start=$SECONDS
log "missing: ${missing[*]}"
known=1
for p in "${missing[@]}"; do
  # apt-cache policy prints "Candidate: (none)" (or nothing) for a package it
  # cannot install. Captured first: grep -q closing the pipe early would fail
  # the pipeline under pipefail.
  policy=$(apt-cache policy "$p" 2>/dev/null || true)
  case "$policy" in
    *"Candidate: ("*|"") known=0 ;;
    *"Candidate: "*) ;;
    *) known=0 ;;
  esac
done
updated=0
if [ "$known" -eq 0 ]; then
  log "apt lists do not offer ${missing[*]}: apt-get update"
  apt_get update >&2
  updated=1
fi
log "installing ${missing[*]} from Debian"
if ! install; then
  [ "$updated" -eq 0 ] || die "apt-get install ${missing[*]} failed"
  log "install failed (stale apt lists?): apt-get update and retry"
  apt_get update >&2
  install || die "apt-get install ${missing[*]} failed"
fi

for p in "${missing[@]}"; do
  usable "$p" || die "$p installed but not usable (kcat -V / $PYTHON -c 'import kafka' / shellcheck --version / chromium --version failed)"
done
log "installed ${missing[*]} in $((SECONDS - start)) s ($(kcat -V 2>&1 | sed -n 's/^Version \([^ ]*\).*librdkafka \([^ ]*\).*/kcat \1, librdkafka \2/p'); kafka-python $("$PYTHON" -c 'import kafka; print(kafka.__version__)'); $(chromium --headless --no-sandbox --version 2>/dev/null))"
vendor_axe
