#!/usr/bin/env bash
# build-kdc-image.sh — build the MIT Kerberos KDC image the Kerberos (GSSAPI)
# tests run against, on this machine, without any image registry
# (make kdc-image):
#
#   fabrictest/kdc:bookworm-local   krb5kdc from Debian bookworm's krb5-kdc,
#                                   realm FABRICTEST.LOCAL, keytabs written to
#                                   a mounted folder (fixtures/kdc-image/README.md)
#
# 1. Makes sure a Docker engine runs (scripts/ensure-docker.sh).
# 2. Base image fabrictest/kdc-base:bookworm: a Debian bookworm minbase rootfs
#    made with debootstrap from the Debian mirror this machine's apt
#    configuration names, with krb5-kdc and krb5-admin-server installed in it
#    (services kept from starting), imported with `docker import`.
# 3. `docker build` of fixtures/kdc-image/Dockerfile FROM it.
#
# Idempotent: each image carries a hash of its recipe in a label; an image
# whose label matches is kept, so a second run takes about a second.
#
# Options / environment:
#   --force                       rebuild the KDC image even if up to date
#   --force-base                  also rebuild the base image
#   FABRICTEST_KDC_IMAGE          KDC tag (default fabrictest/kdc:bookworm-local)
#   FABRICTEST_KDC_BASE_IMAGE     base tag (default fabrictest/kdc-base:bookworm)
#   FABRICTEST_DEBIAN_MIRROR      Debian mirror for debootstrap (default: read
#                                 from /etc/apt/sources.list.d/ or sources.list)
#   FABRICTEST_CACHE              cache dir (default ${XDG_CACHE_HOME:-~/.cache}/fabrictest)
set -euo pipefail

log() { printf 'build-kdc-image: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
recipe_dir=$repo_root/fixtures/kdc-image

kdc_image=${FABRICTEST_KDC_IMAGE:-fabrictest/kdc:bookworm-local}
base_image=${FABRICTEST_KDC_BASE_IMAGE:-fabrictest/kdc-base:bookworm}
cache_dir=${FABRICTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fabrictest}
hash_label=io.github.fabrictest.recipe-hash
suite=bookworm
kdc_packages=(krb5-kdc krb5-admin-server krb5-user)

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

bash "$script_dir/ensure-docker.sh"

# ---------------------------------------------------------------- base image
base_recipe="debootstrap --variant=minbase $suite; chroot apt-get install ${kdc_packages[*]}; policy-rc.d; v1"
base_hash=$(printf '%s' "$base_recipe" | sha256sum | cut -d' ' -f1)

# install_packages installs the Kerberos packages into rootfs $1 with a
# policy-rc.d that keeps their services from starting in the chroot.
install_packages() {
  local rootfs=$1
  printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
  chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$rootfs/etc/resolv.conf" 2>/dev/null || true
  mount -t proc proc "$rootfs/proc"
  if ! timeout 1200 chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 \
    apt-get -y -q install --no-install-recommends "${kdc_packages[@]}" </dev/null >>"$cache_dir/kdc-debootstrap.log" 2>&1; then
    umount -l "$rootfs/proc" || true
    tail -n 20 "$cache_dir/kdc-debootstrap.log" >&2 || true
    die "installing ${kdc_packages[*]} failed (log: $cache_dir/kdc-debootstrap.log)"
  fi
  umount -l "$rootfs/proc"
  rm -f "$rootfs/usr/sbin/policy-rc.d"
  # The packages' own realm configuration is not the image's: the entrypoint
  # writes krb5.conf, kdc.conf and the database on each start.
  rm -rf "$rootfs"/var/lib/krb5kdc/* "$rootfs"/etc/krb5kdc/kdc.conf "$rootfs"/etc/krb5.conf
}

build_base() {
  local t0=$SECONDS mirror rootfs
  [ "$(id -u)" -eq 0 ] || die "building $base_image needs root (debootstrap)"
  ensure_debootstrap
  mirror=$(debian_mirror "$suite")
  mkdir -p "$cache_dir"
  : >"$cache_dir/kdc-debootstrap.log"
  rootfs=$(mktemp -d "$cache_dir/kdc-rootfs.XXXXXX")
  tmp_dirs+=("$rootfs")
  log "debootstrap $suite minbase (about a minute) ..."
  if ! timeout 1200 debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >>"$cache_dir/kdc-debootstrap.log" 2>&1; then
    tail -n 20 "$cache_dir/kdc-debootstrap.log" >&2 || true
    die "debootstrap failed (log: $cache_dir/kdc-debootstrap.log)"
  fi
  log "installing ${kdc_packages[*]} in the rootfs ..."
  install_packages "$rootfs"
  rm -rf "${rootfs:?}"/var/cache/apt/archives/*.deb "${rootfs:?}"/var/lib/apt/lists/* "${rootfs:?}"/tmp/* "${rootfs:?}"/var/log/*.log
  log "importing rootfs as $base_image ($(du -sh --one-file-system "$rootfs" | cut -f1)) ..."
  tar --numeric-owner --one-file-system -C "$rootfs" -c . |
    docker import \
      --change "ENV LANG=C.UTF-8" \
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

# ---------------------------------------------------------------- the KDC image
recipe_hash=$(
  {
    printf 'base %s\n' "$base_id"
    sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1
    (cd "$recipe_dir" && sha256sum Dockerfile kdc-entrypoint.sh)
  } | sha256sum | cut -d' ' -f1
)
if [ "$force" = 0 ] && [ "$(label_of "$kdc_image" "$hash_label")" = "$recipe_hash" ]; then
  log "$kdc_image is up to date (recipe ${recipe_hash:0:12}); nothing to do ($((SECONDS - start_all)) s)"
  exit 0
fi
t0=$SECONDS
mkdir -p "$cache_dir"
context=$(mktemp -d "$cache_dir/kdc-context.XXXXXX")
tmp_dirs+=("$context")
cp "$recipe_dir/Dockerfile" "$recipe_dir/kdc-entrypoint.sh" "$context/"
log "docker build $kdc_image (recipe ${recipe_hash:0:12}) ..."
if ! DOCKER_BUILDKIT=0 timeout 900 docker build --quiet \
  --build-arg "BASE_IMAGE=$base_image" --build-arg "RECIPE_HASH=$recipe_hash" \
  -t "$kdc_image" "$context" >"$cache_dir/kdc-docker-build.log" 2>&1; then
  tail -n 30 "$cache_dir/kdc-docker-build.log" >&2 || true
  die "docker build $kdc_image failed (log: $cache_dir/kdc-docker-build.log)"
fi
log "$kdc_image built in $((SECONDS - t0)) s"
log "done in $((SECONDS - start_all)) s"
docker image ls --filter "reference=$kdc_image" >&2
