#!/usr/bin/env bash
# ensure-docker.sh — make sure a Docker engine answers on this machine.
#
# Idempotent and non-interactive: if `docker info` already works it exits at
# once. Otherwise it installs Debian's docker.io (apt-get update only when the
# package is unknown to apt), starts dockerd in the background as root with its
# log under /tmp, and waits (bounded) until the engine answers.
#
# Environment:
#   DOCKERD_LOG            dockerd log file (default /tmp/fabrictest-dockerd.log)
#   DOCKERD_WAIT_SECONDS   how long to wait for the engine (default 60)
#   DOCKERD_EXTRA_ARGS     extra dockerd flags, split on spaces (default none)
set -euo pipefail

log() { printf 'ensure-docker: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

DOCKERD_LOG=${DOCKERD_LOG:-/tmp/fabrictest-dockerd.log}
DOCKERD_WAIT_SECONDS=${DOCKERD_WAIT_SECONDS:-60}
DOCKERD_EXTRA_ARGS=${DOCKERD_EXTRA_ARGS:-}

docker_ok() { timeout 10 docker info >/dev/null 2>&1; }

if command -v docker >/dev/null 2>&1 && docker_ok; then
  log "docker engine already answers"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || die "not root and no docker engine answers; start dockerd yourself"

export DEBIAN_FRONTEND=noninteractive
apt_get() {
  # Bounded so a stuck mirror cannot hang CI; stdin closed for non-interactive runs.
  timeout 900 apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@" </dev/null
}

if ! command -v dockerd >/dev/null 2>&1; then
  start=$SECONDS
  if ! apt-cache show docker.io >/dev/null 2>&1; then
    log "apt lists do not know docker.io: apt-get update"
    apt_get update >&2
  fi
  log "installing docker.io from Debian"
  apt_get install --no-install-recommends docker.io iptables >&2
  log "docker.io installed in $((SECONDS - start)) s"
fi
command -v dockerd >/dev/null 2>&1 || die "dockerd not found after installing docker.io"

# A dockerd may already be starting (e.g. a parallel run): only start one if none runs.
if ! pgrep -x dockerd >/dev/null 2>&1; then
  # A stale pid file from a killed daemon stops a new one from starting.
  if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid 2>/dev/null)" 2>/dev/null; then
    rm -f /var/run/docker.pid
  fi
  if ! pgrep -x containerd >/dev/null 2>&1 && [ -f /run/docker/containerd/containerd.pid ]; then
    rm -f /run/docker/containerd/containerd.pid
  fi
  log "starting dockerd (log: $DOCKERD_LOG)"
  # shellcheck disable=SC2086 # DOCKERD_EXTRA_ARGS is a flag list on purpose
  setsid nohup dockerd $DOCKERD_EXTRA_ARGS </dev/null >>"$DOCKERD_LOG" 2>&1 &
else
  log "dockerd already running; waiting for it to answer"
fi

deadline=$((SECONDS + DOCKERD_WAIT_SECONDS))
until docker_ok; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    log "dockerd did not answer within ${DOCKERD_WAIT_SECONDS} s; last log lines:"
    tail -n 30 "$DOCKERD_LOG" >&2 || true
    exit 1
  fi
  if ! pgrep -x dockerd >/dev/null 2>&1; then
    log "dockerd exited; last log lines:"
    tail -n 30 "$DOCKERD_LOG" >&2 || true
    exit 1
  fi
  sleep 0.5
done
log "docker engine ready ($(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?'), storage $(docker info --format '{{.Driver}}' 2>/dev/null || echo '?'))"
