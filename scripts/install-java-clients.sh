#!/usr/bin/env bash
# install-java-clients.sh — the Java clients of the Go tests, resolved with
# Maven (`mvn dependency:copy-dependencies`, nothing is built):
#   - internal/testclients/java/pom.xml into $REPO/.cache/java-clients: Apache
#     kafka-clients and its runtime jars, for the TLS wire test
#     (emulator/tls_clients_test.go) and the compression matrix
#     (fabrictest/compression_clients_test.go: its snappy, lz4 and zstd codecs
#     are the runtime jars snappy-java, lz4-java and zstd-jni);
#   - internal/testclients/java/eventhubs/pom.xml into
#     $REPO/.cache/java-eventhubs: azure-messaging-eventhubs and azure-identity
#     at azure-sdk-bom's versions, for the Event Hubs test
#     (emulator/eventhubs_java_test.go).
# The tests fail with a message naming this script when the jars are missing.
#
# Idempotent and non-interactive: per pom, a stamp holding the hash of the
# pom makes a second run skip it without calling Maven. Needs mvn and a JDK
# (the tests run the clients as single-file source programs). Progress goes
# to stderr.
#
# Environment:
#   MVN_TIMEOUT_SECONDS   bound on each Maven call (default 900)
set -euo pipefail

log() { printf 'install-java-clients: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
MVN_TIMEOUT_SECONDS=${MVN_TIMEOUT_SECONDS:-900}

# resolve POM OUT JAR_GLOB: the runtime jars of POM into OUT, unless OUT's
# stamp holds POM's hash and a JAR_GLOB jar is there.
resolve() {
  local pom=$1 out=$2 jar=$3 stamp want start
  stamp=$out/.fabrictest-java-clients.sha256
  [ -f "$pom" ] || die "missing $pom"
  want=$(sha256sum "$pom" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && compgen -G "$out/$jar" >/dev/null; then
    log "up to date: $out"
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found; install Maven (apt-get install maven)"
  command -v javac >/dev/null 2>&1 || die "javac not found; the clients run as Java source programs (apt-get install openjdk-17-jdk-headless)"
  start=$SECONDS
  rm -rf "$out"
  mkdir -p "$out"
  timeout "$MVN_TIMEOUT_SECONDS" mvn -B -q -ntp -Dstyle.color=never -f "$pom" dependency:copy-dependencies \
    -DoutputDirectory="$out" -DincludeScope=runtime </dev/null 2>&1 | sed "s/\x1b\[[0-9;]*m//g" >&2 \
    || die "mvn copy-dependencies of $pom failed"
  compgen -G "$out/$jar" >/dev/null || die "no $jar in $out after Maven"
  printf '%s\n' "$want" >"$stamp"
  log "done in $((SECONDS - start))s: $(find "$out" -name '*.jar' -printf '%f ')"
}

resolve "$repo_root/internal/testclients/java/pom.xml" "$repo_root/.cache/java-clients" 'kafka-clients-*.jar'
resolve "$repo_root/internal/testclients/java/eventhubs/pom.xml" "$repo_root/.cache/java-eventhubs" 'azure-messaging-eventhubs-*.jar'
