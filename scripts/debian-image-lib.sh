#!/usr/bin/env bash
# debian-image-lib.sh — what the image builders that bootstrap Debian share
# (build-kafka-image.sh, build-cdc-images.sh); sourced, never run. The
# sourcing script defines log and die first.
#
#   tmp_dirs          directories removed at exit (mounts under them first)
#   label_of IMG KEY  an image's label, or empty
#   debian_mirror S   the Debian mirror for suite S from the apt configuration
#                     (or FABRICTEST_DEBIAN_MIRROR)
#   ensure_debootstrap  installs debootstrap when it is missing

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
