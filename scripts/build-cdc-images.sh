#!/usr/bin/env bash
# build-cdc-images.sh — build the database images the CDC sources are tested
# against, on this machine, without any image registry (make cdc-images):
#
#   fabrictest/postgres:15-local    PostgreSQL 15, wal_level=logical
#   fabrictest/mariadb:10.11-local  MariaDB 10.11 (Debian's mariadb-server), row-based binlog
#
# 1. Makes sure a Docker engine runs (scripts/ensure-docker.sh).
# 2. Base image fabrictest/db-base:bookworm: a Debian bookworm minbase rootfs
#    made with debootstrap from the Debian mirror this machine's apt
#    configuration names, with postgresql-15 and mariadb-server installed in
#    it (services kept from starting), imported with `docker import`.
# 3. `docker build` of fixtures/cdc-image/Dockerfile.{postgres,mariadb} FROM it.
#
# Idempotent: each image carries a hash of its recipe in a label; an image
# whose label matches is kept, so a second run takes about a second.
#
# Options / environment:
#   --force                       rebuild the two images even if up to date
#   --force-base                  also rebuild the base image
#   FABRICTEST_POSTGRES_IMAGE     PostgreSQL tag (default fabrictest/postgres:15-local)
#   FABRICTEST_MARIADB_IMAGE      MariaDB tag (default fabrictest/mariadb:10.11-local)
#   FABRICTEST_DB_BASE_IMAGE      base tag (default fabrictest/db-base:bookworm)
#   FABRICTEST_DEBIAN_MIRROR      Debian mirror for debootstrap (default: read
#                                 from /etc/apt/sources.list.d/ or sources.list)
#   FABRICTEST_CACHE              cache dir (default ${XDG_CACHE_HOME:-~/.cache}/fabrictest)
set -euo pipefail

log() { printf 'build-cdc-images: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
recipe_dir=$repo_root/fixtures/cdc-image

pg_image=${FABRICTEST_POSTGRES_IMAGE:-fabrictest/postgres:15-local}
my_image=${FABRICTEST_MARIADB_IMAGE:-fabrictest/mariadb:10.11-local}
base_image=${FABRICTEST_DB_BASE_IMAGE:-fabrictest/db-base:bookworm}
cache_dir=${FABRICTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fabrictest}
hash_label=io.github.fabrictest.recipe-hash
suite=bookworm
db_packages=(postgresql-15 mariadb-server mariadb-client)

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
base_recipe="debootstrap --variant=minbase $suite; chroot apt-get install ${db_packages[*]}; policy-rc.d; v1"
base_hash=$(printf '%s' "$base_recipe" | sha256sum | cut -d' ' -f1)

# trim_rootfs removes the packages' own cluster and data dir: each
# entrypoint makes its own.
trim_rootfs() {
  rm -rf "$1"/var/lib/postgresql/15/main "$1"/etc/postgresql/15/main "$1"/var/lib/mysql/*
}

if [ "$force_base" = 1 ] || [ "$(label_of "$base_image" "$hash_label")" != "$base_hash" ]; then
  build_package_base db trim_rootfs "${db_packages[@]}"
else
  log "base image $base_image is up to date"
fi

# ---------------------------------------------------------------- the two images
built=0
build_recipe_image "$pg_image" db Dockerfile.postgres postgres-entrypoint.sh
build_recipe_image "$my_image" db Dockerfile.mariadb mariadb-entrypoint.sh
if [ "$built" = 0 ]; then
  log "$pg_image and $my_image are up to date; nothing to do ($((SECONDS - start_all)) s)"
  exit 0
fi
log "done in $((SECONDS - start_all)) s"
docker image ls --filter "reference=$pg_image" --filter "reference=$my_image" >&2
