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

# trim_rootfs removes the packages' own realm configuration: the entrypoint
# writes krb5.conf, kdc.conf and the database on each start.
trim_rootfs() {
  rm -rf "$1"/var/lib/krb5kdc/* "$1"/etc/krb5kdc/kdc.conf "$1"/etc/krb5.conf
}

if [ "$force_base" = 1 ] || [ "$(label_of "$base_image" "$hash_label")" != "$base_hash" ]; then
  build_package_base kdc trim_rootfs "${kdc_packages[@]}"
else
  log "base image $base_image is up to date"
fi

# ---------------------------------------------------------------- the KDC image
built=0
build_recipe_image "$kdc_image" kdc Dockerfile kdc-entrypoint.sh
if [ "$built" = 0 ]; then
  log "nothing to do ($((SECONDS - start_all)) s)"
  exit 0
fi
log "done in $((SECONDS - start_all)) s"
docker image ls --filter "reference=$kdc_image" >&2
