#!/usr/bin/env bash
# debian-image-lib.sh — what the image builders that bootstrap Debian share
# (build-kafka-image.sh, build-cdc-images.sh, build-kdc-image.sh); sourced,
# never run. The sourcing script defines log and die first, and for the two
# builders below suite, cache_dir, hash_label, base_image, base_hash,
# recipe_dir and force.
#
#   tmp_dirs          directories removed at exit (mounts under them first)
#   label_of IMG KEY  an image's label, or empty
#   debian_mirror S   the Debian mirror for suite S from the apt configuration
#                     (or FABRICTEST_DEBIAN_MIRROR)
#   ensure_debootstrap  installs debootstrap when it is missing
#   build_package_base NAME TRIM PKG...  the base image: a minbase with PKGs
#   build_recipe_image IMAGE NAME DOCKERFILE FILE  an image FROM the base
#
# The variables named above are the sourcing script's (and built is read
# back by it), which shellcheck cannot see from here.
# shellcheck disable=SC2154,SC2034

tmp_dirs=()
cleanup() {
  local d
  for d in "${tmp_dirs[@]+"${tmp_dirs[@]}"}"; do
    [ -d "$d" ] || continue
    # debootstrap and a chroot install mount proc/sys inside the target:
    # never delete through a mount.
    if command -v findmnt >/dev/null 2>&1; then
      # No mount under $d is the usual case: grep then exits 1, which under
      # pipefail and errexit would become the script's exit status.
      { findmnt -rno TARGET | grep -F "$d/" || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
    fi
    rm -rf --one-file-system "$d" 2>/dev/null || true
  done
}
# The script's status is its own: cleanup runs without errexit and cannot change it.
on_exit() {
  local status=$?
  set +e
  cleanup
  exit "$status"
}
trap on_exit EXIT

label_of() { # image label -> value or empty
  docker image inspect --format "{{ index .Config.Labels \"$2\" }}" "$1" 2>/dev/null || true
}

debian_mirror() {
  local suite=$1
  if [ -n "${FABRICTEST_DEBIAN_MIRROR:-}" ]; then
    printf '%s\n' "$FABRICTEST_DEBIAN_MIRROR"
    return
  fi
  local f uri=
  # deb822 sources: the first URIs of a "deb" stanza whose Suites name the plain suite.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk -v suite="$suite" '
      function flush() { if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uris != "" && found == "") { split(uris, u, " "); found = u[1] } types = ""; suites = ""; uris = "" }
      /^[[:space:]]*$/ { flush(); next }
      /^[[:space:]]*#/ { next }
      tolower($1) == "types:" { $1 = ""; types = $0 }
      tolower($1) == "suites:" { $1 = ""; suites = $0 }
      tolower($1) == "uris:" { $1 = ""; uris = $0 }
      END { flush(); print found }' "$f")
    [ -n "$uri" ] && break
  done
  if [ -z "$uri" ]; then
    # one-line sources: deb [options] URI SUITE COMPONENTS...
    uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk -v suite="$suite" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ } if ($(i + 1) == suite) { print $i; exit } }')
  fi
  [ -n "$uri" ] || die "no Debian mirror for $suite in the apt configuration; set FABRICTEST_DEBIAN_MIRROR"
  printf '%s\n' "${uri%/}"
}

ensure_debootstrap() {
  command -v debootstrap >/dev/null 2>&1 && return
  log "installing debootstrap"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-cache show debootstrap >/dev/null 2>&1; then
    timeout 600 apt-get -y -q update </dev/null >&2
  fi
  timeout 600 apt-get -y -q install --no-install-recommends debootstrap </dev/null >&2
}

# install_into_rootfs ROOTFS LOG PKG... installs the packages in the chroot
# ROOTFS, with a policy-rc.d that keeps their services from starting.
install_into_rootfs() {
  local rootfs=$1 logf=$2
  shift 2
  printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
  chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$rootfs/etc/resolv.conf" 2>/dev/null || true
  mount -t proc proc "$rootfs/proc"
  if ! timeout 1200 chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 \
    apt-get -y -q install --no-install-recommends "$@" </dev/null >>"$logf" 2>&1; then
    umount -l "$rootfs/proc" || true
    tail -n 20 "$logf" >&2 || true
    die "installing $* failed (log: $logf)"
  fi
  umount -l "$rootfs/proc"
  rm -f "$rootfs/usr/sbin/policy-rc.d"
}

# build_package_base NAME TRIM PKG... builds $base_image, labelled
# $hash_label=$base_hash: a debootstrap minbase of $suite with the packages
# installed, then the function TRIM given the rootfs (to remove what the
# packages set up that the image's entrypoint makes its own), imported with
# `docker import`. Logs go to $cache_dir/NAME-debootstrap.log.
build_package_base() {
  local name=$1 trim=$2 t0=$SECONDS mirror rootfs logf
  shift 2
  logf=$cache_dir/$name-debootstrap.log
  [ "$(id -u)" -eq 0 ] || die "building $base_image needs root (debootstrap)"
  ensure_debootstrap
  mirror=$(debian_mirror "$suite")
  mkdir -p "$cache_dir"
  : >"$logf"
  rootfs=$(mktemp -d "$cache_dir/$name-rootfs.XXXXXX")
  tmp_dirs+=("$rootfs")
  log "debootstrap $suite minbase (about a minute) ..."
  if ! timeout 1200 debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >>"$logf" 2>&1; then
    tail -n 20 "$logf" >&2 || true
    die "debootstrap failed (log: $logf)"
  fi
  log "installing $* in the rootfs ..."
  install_into_rootfs "$rootfs" "$logf" "$@"
  "$trim" "$rootfs"
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

# build_recipe_image IMAGE NAME DOCKERFILE FILE builds IMAGE FROM
# $base_image out of $recipe_dir's DOCKERFILE (as Dockerfile) and FILE,
# unless $force is 0 and IMAGE's label holds the recipe's hash (the base's
# id, the builder scripts and the two files). Sets built=1 when it builds.
build_recipe_image() {
  local image=$1 name=$2 dockerfile=$3 file=$4 recipe_hash t0=$SECONDS context base_id
  base_id=$(docker image inspect --format '{{.Id}}' "$base_image")
  recipe_hash=$(
    {
      printf 'base %s\n' "$base_id"
      sha256sum "$0" "${BASH_SOURCE[0]}" | cut -d' ' -f1
      (cd "$recipe_dir" && sha256sum "$dockerfile" "$file")
    } | sha256sum | cut -d' ' -f1
  )
  if [ "$force" = 0 ] && [ "$(label_of "$image" "$hash_label")" = "$recipe_hash" ]; then
    log "$image is up to date (recipe ${recipe_hash:0:12})"
    return
  fi
  built=1
  mkdir -p "$cache_dir"
  context=$(mktemp -d "$cache_dir/$name-context.XXXXXX")
  tmp_dirs+=("$context")
  cp "$recipe_dir/$dockerfile" "$context/Dockerfile"
  cp "$recipe_dir/$file" "$context/"
  log "docker build $image (recipe ${recipe_hash:0:12}) ..."
  if ! DOCKER_BUILDKIT=0 timeout 900 docker build --quiet \
    --build-arg "BASE_IMAGE=$base_image" --build-arg "RECIPE_HASH=$recipe_hash" \
    -t "$image" "$context" >"$cache_dir/$name-docker-build.log" 2>&1; then
    tail -n 30 "$cache_dir/$name-docker-build.log" >&2 || true
    die "docker build $image failed (log: $cache_dir/$name-docker-build.log)"
  fi
  log "$image built in $((SECONDS - t0)) s"
}
