#!/usr/bin/env bash
# build-emulator-image.sh — build fabrictest/emulator:local on this machine,
# without any image registry (for `make emulator-image`).
#
# 1. Makes sure a Docker engine runs (scripts/ensure-docker.sh).
# 2. Compiles fabric-emulator as a static binary on the host
#    (CGO_ENABLED=0, -trimpath, -buildvcs=false, for the engine's
#    architecture), so no golang image is needed.
# 3. `docker build` of emulator/cmd/fabric-emulator/Dockerfile (FROM scratch)
#    in a context that holds only that binary.
#
# Idempotent: the image carries a hash of the binary and the Dockerfile in a
# label; when it matches, nothing is rebuilt (the Go build is cached, so a
# second run takes a few seconds).
#
# Options / environment:
#   --force                      rebuild even if up to date
#   FABRICTEST_EMULATOR_IMAGE    tag to build (default fabrictest/emulator:local)
#   GO                           go command (default go)
#   FABRICTEST_CACHE             cache dir (default ${XDG_CACHE_HOME:-~/.cache}/fabrictest)
set -euo pipefail

log() { printf 'build-emulator-image: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
dockerfile=$repo_root/emulator/cmd/fabric-emulator/Dockerfile

image=${FABRICTEST_EMULATOR_IMAGE:-fabrictest/emulator:local}
go_cmd=${GO:-go}
cache_dir=${FABRICTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fabrictest}
hash_label=io.github.fabrictest.recipe-hash

force=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $arg" ;;
  esac
done

start_all=$SECONDS
bash "$script_dir/ensure-docker.sh"

mkdir -p "$cache_dir"
context=$(mktemp -d "$cache_dir/emulator-context.XXXXXX")
# The script's status is its own: the cleanup cannot change it.
on_exit() {
  local status=$?
  rm -rf "$context"
  exit "$status"
}
trap on_exit EXIT

arch=$(docker version --format '{{.Server.Arch}}' 2>/dev/null || true)
[ -n "$arch" ] || arch=$("$go_cmd" env GOARCH)

t0=$SECONDS
log "go build fabric-emulator (linux/$arch, static) ..."
(cd "$repo_root" && CGO_ENABLED=0 GOOS=linux GOARCH=$arch "$go_cmd" build -trimpath -buildvcs=false \
  -ldflags '-s -w' -o "$context/fabric-emulator" ./emulator/cmd/fabric-emulator)
log "binary built in $((SECONDS - t0)) s ($(du -h "$context/fabric-emulator" | cut -f1))"
mkdir -p "$context/data" "$context/tmp"
cp "$dockerfile" "$context/Dockerfile"

recipe_hash=$(
  {
    sha256sum "$context/fabric-emulator" "$context/Dockerfile" "${BASH_SOURCE[0]}" | cut -d' ' -f1
  } | sha256sum | cut -d' ' -f1
)
current=$(docker image inspect --format "{{ index .Config.Labels \"$hash_label\" }}" "$image" 2>/dev/null || true)
if [ "$force" = 0 ] && [ "$current" = "$recipe_hash" ]; then
  log "$image is up to date (recipe ${recipe_hash:0:12}); nothing to do ($((SECONDS - start_all)) s)"
  exit 0
fi

t0=$SECONDS
log "docker build $image (recipe ${recipe_hash:0:12}) ..."
if ! DOCKER_BUILDKIT=0 timeout 600 docker build --quiet \
  --build-arg "RECIPE_HASH=$recipe_hash" -t "$image" "$context" >"$cache_dir/emulator-docker-build.log" 2>&1; then
  tail -n 30 "$cache_dir/emulator-docker-build.log" >&2 || true
  die "docker build failed (log: $cache_dir/emulator-docker-build.log)"
fi
log "$image built in $((SECONDS - t0)) s (total $((SECONDS - start_all)) s)"
docker image ls "$image" >&2
