#!/usr/bin/env bash
# check-scripts.sh — the scripts' own test (called by `make check-scripts`,
# part of `make test`).
#
# Every script must succeed on its "work to do" path, not only when its work
# is already done; a machine that already has the images or the venv never
# runs that path. This check runs it on purpose:
#
# 1. shellcheck (every severity) on every script under scripts/ and on .ci/run.
# 2. Each builder on its "work to do" path, asserting exit 0 and that what it
#    builds is really there, then once more on the "up to date" path,
#    asserting it did no work:
#      build-kafka-image.sh --force      image fabrictest/kafka:3.9.1-local
#      build-emulator-image.sh --force   image fabrictest/emulator:local
#      build-cdc-images.sh --force       image fabrictest/postgres:15-local (and mariadb)
#      build-kdc-image.sh --force        image fabrictest/kdc:bookworm-local
#      install-python-deps.sh            a fresh venv in a temporary directory
#      install-node-clients.sh           a fresh npm ci in a temporary directory
#      install-test-deps.sh              kcat removed first (root only), axe-core removed first
#    --force rebuilds only the top images: a base image whose recipe label
#    matches is kept, so no builder runs debootstrap again.
# 3. The other installers on their "up to date" path (ensure-docker.sh;
#    install-spark-deps.sh and install-java-clients.sh when their stamps exist).
#
# Environment:
#   CHECK_SCRIPTS_SKIP_APT=1   do not remove and reinstall kcat
set -euo pipefail

log() { printf 'check-scripts: %s\n' "$*" >&2; }
fail() { log "FAIL: $*"; failures=$((failures + 1)); }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
failures=0
scratch=$(mktemp -d)
on_exit() {
  local status=$?
  rm -rf "$scratch"
  exit "$status"
}
trap on_exit EXIT

# run NAME ARGS... — runs a script, keeps its stderr in $scratch/NAME.log,
# and records a failure (with the log's tail) when it exits non-zero.
run() {
  local name=$1 rc=0
  shift
  local t0=$SECONDS
  bash "$script_dir/$name" "$@" 2>"$scratch/$name.log" >/dev/null || rc=$?
  log "$name $* -> exit $rc in $((SECONDS - t0)) s"
  if [ "$rc" -ne 0 ]; then
    tail -n 20 "$scratch/$name.log" >&2
    fail "$name $* exited $rc"
    return 1
  fi
}

# said NAME PATTERN — the last run of NAME printed PATTERN.
said() { grep -q -- "$2" "$scratch/$1.log"; }

image_id() { docker image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }

check_shellcheck() {
  command -v shellcheck >/dev/null 2>&1 || { fail "shellcheck not installed (scripts/install-test-deps.sh installs it)"; return; }
  if shellcheck "$script_dir"/*.sh "$repo_root/.ci/run"; then
    log "shellcheck: $(find "$script_dir" -maxdepth 1 -name '*.sh' | wc -l) scripts and .ci/run clean"
  else
    fail "shellcheck found problems"
  fi
}

# check_image SCRIPT IMAGE — builds IMAGE with --force, then expects the
# up-to-date path to keep the same image and say it did nothing.
check_image() {
  local script=$1 image=$2 built
  run "$script" --force || return 0
  built=$(image_id "$image")
  [ -n "$built" ] || { fail "$script --force exited 0 but $image is not there"; return; }
  run "$script" || return 0
  said "$script" "nothing to do" || fail "$script did work on its up-to-date path"
  [ "$(image_id "$image")" = "$built" ] || fail "$script replaced $image on its up-to-date path"
}

check_python_deps() {
  local venv=$scratch/venv
  FABRICTEST_VENV=$venv run install-python-deps.sh || return 0
  "$venv/bin/python" -c 'import deltalake, pyarrow' 2>/dev/null || fail "install-python-deps.sh exited 0 but $venv cannot import deltalake"
  FABRICTEST_VENV=$venv run install-python-deps.sh || return 0
  said install-python-deps.sh "up to date" || fail "install-python-deps.sh did work on its up-to-date path"
}

check_node_clients() {
  local dir=$scratch/node-clients
  FABRICTEST_NODE_CLIENTS=$dir run install-node-clients.sh || return 0
  [ -f "$dir/node_modules/@azure/event-hubs/package.json" ] || fail "install-node-clients.sh exited 0 but $dir has no @azure/event-hubs"
  FABRICTEST_NODE_CLIENTS=$dir run install-node-clients.sh || return 0
  said install-node-clients.sh "up to date" || fail "install-node-clients.sh did work on its up-to-date path"
}

check_test_deps() {
  if [ "$(id -u)" -eq 0 ] && [ "${CHECK_SCRIPTS_SKIP_APT:-0}" != 1 ] && command -v kcat >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get -y -q remove kcat </dev/null >/dev/null 2>&1 || fail "could not remove kcat to test the install path"
    run install-test-deps.sh || return 0
    if ! kcat -V >/dev/null 2>&1; then fail "install-test-deps.sh exited 0 but kcat is not usable"; fi
  fi
  # The vendored axe-core on its "work to do" path too.
  rm -rf "$repo_root/.cache/axe-core"
  run install-test-deps.sh || return 0
  [ -s "$repo_root/.cache/axe-core/axe.min.js" ] || fail "install-test-deps.sh exited 0 but did not vendor axe-core"
  run install-test-deps.sh || return 0
  said install-test-deps.sh "already installed" || fail "install-test-deps.sh did work on its up-to-date path"
  said install-test-deps.sh "already vendored" || fail "install-test-deps.sh vendored axe-core again on its up-to-date path"
}

check_up_to_date() {
  run ensure-docker.sh || return 0
  said ensure-docker.sh "already answers" || fail "ensure-docker.sh did work with an engine running"
  if [ -f "$repo_root/.cache/venv/.fabrictest-spark.sha256" ]; then
    run install-spark-deps.sh || return 0
    said install-spark-deps.sh "up to date" || fail "install-spark-deps.sh did work on its up-to-date path"
  fi
  if [ -f "$repo_root/.cache/java-clients/.fabrictest-java-clients.sha256" ]; then
    run install-java-clients.sh || return 0
    said install-java-clients.sh "up to date" || fail "install-java-clients.sh did work on its up-to-date path"
  fi
}

check_shellcheck
check_test_deps
check_image build-kafka-image.sh "${FABRICTEST_KAFKA_LOCAL_IMAGE:-fabrictest/kafka:3.9.1-local}"
check_image build-emulator-image.sh "${FABRICTEST_EMULATOR_IMAGE:-fabrictest/emulator:local}"
check_image build-cdc-images.sh "${FABRICTEST_POSTGRES_IMAGE:-fabrictest/postgres:15-local}"
check_image build-kdc-image.sh "${FABRICTEST_KDC_IMAGE:-fabrictest/kdc:bookworm-local}"
check_python_deps
check_node_clients
check_up_to_date

if [ "$failures" -ne 0 ]; then
  log "$failures failure(s)"
  exit 1
fi
log "all scripts pass on their work-to-do and up-to-date paths"
