#!/usr/bin/env bash
# build-kafka-image.sh — build fabrictest/kafka:3.9.1-local on this machine,
# without any image registry (called by `make kafka-image`).
#
# 1. Makes sure a Docker engine runs (scripts/ensure-docker.sh).
# 2. Base image fabrictest/jre17-base:bookworm: a Debian bookworm minbase rootfs
#    with openjdk-17-jre-headless, made with debootstrap from the Debian mirror
#    this machine's apt configuration names, imported with `docker import`.
# 3. Apache Kafka 3.9.1 jars resolved by Maven from fixtures/kafka-image/pom.xml.
# 4. `docker build` of fixtures/kafka-image/Dockerfile FROM the local base.
#
# Idempotent: each image carries a hash of its recipe in a label; an image
# whose label matches is kept, so a second run takes about a second.
#
# Options / environment:
#   --force                        rebuild the Kafka image even if up to date
#   --force-base                   also rebuild the JRE base image
#   FABRICTEST_KAFKA_LOCAL_IMAGE   tag to build (default fabrictest/kafka:3.9.1-local)
#   FABRICTEST_JRE_BASE_IMAGE      base tag (default fabrictest/jre17-base:bookworm)
#   FABRICTEST_DEBIAN_MIRROR       Debian mirror for debootstrap (default: read
#                                  from /etc/apt/sources.list.d/ or sources.list)
#   FABRICTEST_CACHE               cache dir (default ${XDG_CACHE_HOME:-~/.cache}/fabrictest)
set -euo pipefail

log() { printf 'build-kafka-image: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
recipe_dir=$repo_root/fixtures/kafka-image

image=${FABRICTEST_KAFKA_LOCAL_IMAGE:-fabrictest/kafka:3.9.1-local}
base_image=${FABRICTEST_JRE_BASE_IMAGE:-fabrictest/jre17-base:bookworm}
cache_dir=${FABRICTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fabrictest}
hash_label=io.github.fabrictest.recipe-hash
suite=bookworm
base_packages=openjdk-17-jre-headless

force=0
force_base=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    --force-base) force=1; force_base=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $arg" ;;
  esac
done

start_all=$SECONDS
# shellcheck source=scripts/debian-image-lib.sh
. "$script_dir/debian-image-lib.sh"

# ---------------------------------------------------------------- docker
bash "$script_dir/ensure-docker.sh"

# ---------------------------------------------------------------- base image
base_recipe="debootstrap --variant=minbase --include=$base_packages $suite; env LANG JAVA_HOME PATH; v1"
base_hash=$(printf '%s' "$base_recipe" | sha256sum | cut -d' ' -f1)

build_base() {
  local t0=$SECONDS mirror rootfs arch java_home
  [ "$(id -u)" -eq 0 ] || die "building $base_image needs root (debootstrap)"
  ensure_debootstrap
  mirror=$(debian_mirror "$suite")
  mkdir -p "$cache_dir"
  rootfs=$(mktemp -d "$cache_dir/rootfs.XXXXXX")
  tmp_dirs+=("$rootfs")
  log "debootstrap $suite minbase + $base_packages (about a minute) ..."
  if ! timeout 1200 debootstrap --variant=minbase --include="$base_packages" "$suite" "$rootfs" "$mirror" \
    >"$cache_dir/debootstrap.log" 2>&1; then
    tail -n 20 "$cache_dir/debootstrap.log" >&2 || true
    die "debootstrap failed (log: $cache_dir/debootstrap.log)"
  fi
  arch=$(chroot "$rootfs" dpkg --print-architecture)
  java_home=/usr/lib/jvm/java-17-openjdk-$arch
  [ -x "$rootfs$java_home/bin/java" ] || die "no JRE at $java_home in the rootfs"
  rm -rf "${rootfs:?}"/var/cache/apt/archives/*.deb "${rootfs:?}"/var/lib/apt/lists/* "${rootfs:?}"/tmp/* "${rootfs:?}"/var/log/*.log
  log "importing rootfs as $base_image ($(du -sh --one-file-system "$rootfs" | cut -f1)) ..."
  tar --numeric-owner --one-file-system -C "$rootfs" -c . |
    docker import \
      --change "ENV LANG=C.UTF-8" \
      --change "ENV JAVA_HOME=$java_home" \
      --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
      --change "LABEL $hash_label=$base_hash" \
      --change 'CMD ["/bin/bash"]' \
      - "$base_image" >/dev/null
  rm -rf --one-file-system "$rootfs"
  log "base image $base_image ready in $((SECONDS - t0)) s"
}

if [ "$force_base" = 1 ] || [ "$(label_of "$base_image" "$hash_label")" != "$base_hash" ]; then
  build_base
else
  log "base image $base_image is up to date"
fi
base_id=$(docker image inspect --format '{{.Id}}' "$base_image")

# ---------------------------------------------------------------- kafka image
recipe_hash=$(
  {
    printf 'base %s\n' "$base_id"
    sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1
    (cd "$recipe_dir" && find . -type f ! -name '*.md' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
  } | sha256sum | cut -d' ' -f1
)

if [ "$force" = 0 ] && [ "$(label_of "$image" "$hash_label")" = "$recipe_hash" ]; then
  log "$image is up to date (recipe ${recipe_hash:0:12}); nothing to do ($((SECONDS - start_all)) s)"
  exit 0
fi

# Kafka jars, cached per pom.xml content (Maven's own repository caches the downloads too).
pom_hash=$(sha256sum "$recipe_dir/pom.xml" | cut -c1-16)
libs_dir=$cache_dir/kafka-libs-$pom_hash
if [ ! -f "$libs_dir/.complete" ]; then
  command -v mvn >/dev/null 2>&1 || die "mvn not found (install Debian's maven)"
  t0=$SECONDS
  log "resolving Apache Kafka 3.9.1 jars with Maven ..."
  rm -rf "$libs_dir" "$libs_dir.tmp"
  mkdir -p "$libs_dir.tmp"
  if ! timeout 900 mvn -B -q -f "$recipe_dir/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$libs_dir.tmp" </dev/null >"$cache_dir/mvn.log" 2>&1; then
    tail -n 30 "$cache_dir/mvn.log" >&2 || true
    die "maven failed (log: $cache_dir/mvn.log)"
  fi
  touch "$libs_dir.tmp/.complete"
  mv "$libs_dir.tmp" "$libs_dir"
  log "$(find "$libs_dir" -name '*.jar' | wc -l) jars resolved in $((SECONDS - t0)) s"
fi

t0=$SECONDS
context=$(mktemp -d "$cache_dir/context.XXXXXX")
tmp_dirs+=("$context")
cp -R "$recipe_dir/." "$context/"
mkdir -p "$context/libs"
cp "$libs_dir"/*.jar "$context/libs/"
log "docker build $image (recipe ${recipe_hash:0:12}) ..."
if ! DOCKER_BUILDKIT=0 timeout 900 docker build --quiet \
  --build-arg "BASE_IMAGE=$base_image" --build-arg "RECIPE_HASH=$recipe_hash" \
  -t "$image" "$context" >"$cache_dir/docker-build.log" 2>&1; then
  tail -n 30 "$cache_dir/docker-build.log" >&2 || true
  die "docker build failed (log: $cache_dir/docker-build.log)"
fi
log "$image built in $((SECONDS - t0)) s (total $((SECONDS - start_all)) s)"
docker image ls "$image" >&2
