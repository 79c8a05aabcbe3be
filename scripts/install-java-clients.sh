#!/usr/bin/env bash
# install-java-clients.sh — the Java Kafka client of the TLS wire test
# (emulator/tls_clients_test.go) and of the compression matrix
# (fabrictest/compression_clients_test.go: its snappy, lz4 and zstd codecs
# are the runtime jars snappy-java, lz4-java and zstd-jni): Apache
# kafka-clients and its runtime jars,
# resolved from internal/testclients/java/pom.xml with Maven into
# $REPO/.cache/java-clients. The test fails with a message naming this
# script when the jars are missing.
#
# Idempotent and non-interactive: a stamp holding the hash of the pom makes a
# second run exit at once without calling Maven. Needs mvn and a JDK (the
# test runs the producer as a single-file source program). Progress goes to
# stderr.
#
# Environment:
#   MVN_TIMEOUT_SECONDS   bound on the Maven call (default 900)
set -euo pipefail

log() { printf 'install-java-clients: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
pom=$repo_root/internal/testclients/java/pom.xml
out=$repo_root/.cache/java-clients
stamp=$out/.fabrictest-java-clients.sha256
MVN_TIMEOUT_SECONDS=${MVN_TIMEOUT_SECONDS:-900}

[ -f "$pom" ] || die "missing $pom"
want=$(sha256sum "$pom" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && compgen -G "$out/kafka-clients-*.jar" >/dev/null; then
  log "up to date: $out"
  exit 0
fi

command -v mvn >/dev/null 2>&1 || die "mvn not found; install Maven (apt-get install maven)"
command -v javac >/dev/null 2>&1 || die "javac not found; the producer runs as a Java source program (apt-get install openjdk-17-jdk-headless)"
start=$SECONDS
rm -rf "$out"
mkdir -p "$out"
timeout "$MVN_TIMEOUT_SECONDS" mvn -B -q -ntp -Dstyle.color=never -f "$pom" dependency:copy-dependencies \
  -DoutputDirectory="$out" -DincludeScope=runtime </dev/null 2>&1 | sed "s/\x1b\[[0-9;]*m//g" >&2 \
  || die "mvn copy-dependencies of $pom failed"
compgen -G "$out/kafka-clients-*.jar" >/dev/null || die "no kafka-clients jar in $out after Maven"
printf '%s\n' "$want" >"$stamp"
log "done in $((SECONDS - start))s: $(find "$out" -name '*.jar' -printf '%f ')"
