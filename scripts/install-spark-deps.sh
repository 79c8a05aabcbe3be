#!/usr/bin/env bash
# install-spark-deps.sh — what the Spark adapter (python/spark_agent) and its
# pytest suite need, on both engines:
#
#   * a virtual environment at $REPO/.cache/venv (created if missing, the same
#     one scripts/install-python-deps.sh uses) with python/requirements-spark.txt
#     installed — pyspark 3.5.5 (JVM Spark, and the Spark Connect client for
#     Sail), pysail, kafka-python, gssapi — plus python/requirements-test.txt
#     when it exists, in one pip call so one resolver sees both files; and the
#     spark_agent package itself, editable (pip install -e python/).
#   * JVM Spark for offline use, resolved with Maven:
#     - $REPO/.cache/spark-3.5.5-scala2.13: a SPARK_HOME holding the Scala 2.13
#       build of Spark 3.5.5 (jars/: spark-sql_2.13 and its runtime closure,
#       from python/jvm/pom.xml; bin/: the launcher scripts of the pyspark
#       wheel). Why not the wheel's own Scala 2.12 jars: the Maven registry
#       reachable here does not serve spark-sql-kafka-0-10_2.12 (no 3.5.x
#       version, jar or pom), only the _2.13 build, and Scala 2.12 Spark cannot
#       load a Scala 2.13 connector.
#     - $REPO/.cache/spark-jars: the Kafka source for spark.jars:
#       spark-sql-kafka-0-10_2.13:3.5.5, spark-token-provider-kafka-0-10_2.13:3.5.4
#       (3.5.5 of that artifact is not served; the module is unchanged between
#       the two patch releases), kafka-clients 3.4.1, commons-pool2 2.11.1 —
#       the versions spark-sql-kafka 3.5.5's pom names; and Delta Lake,
#       delta-spark_2.13:3.3.2 with delta-storage:3.3.2 (session_builder(delta=True)).
#   * the Debian packages pip needs to build gssapi (kafka-python's Kerberos
#     mechanism, which has no Linux wheel and compiles against MIT Kerberos):
#     libkrb5-dev (krb5-config and the headers), gcc, and python3-dev when the
#     interpreter has no Python.h — installed with apt-get (root only) when
#     gssapi is not importable from the venv yet and one of them is missing.
#
# Idempotent and non-interactive: a stamp file records a hash of both
# requirement files, this script and the interpreter version; when it matches,
# the venv imports pyspark/pysail/kafka and every jar is present, the script
# exits at once. Progress goes to stderr.
#
# Environment:
#   FABRICTEST_VENV         venv directory (default $REPO/.cache/venv)
#   FABRICTEST_BASE_PYTHON  interpreter that creates the venv (default python3)
#   FABRICTEST_SPARK_JARS   Kafka jar directory (default $REPO/.cache/spark-jars)
#   FABRICTEST_SPARK_HOME   Scala 2.13 SPARK_HOME (default $REPO/.cache/spark-3.5.5-scala2.13)
#   PIP_TIMEOUT_SECONDS     bound on the pip install (default 1200)
#   MVN_TIMEOUT_SECONDS     bound on each Maven call (default 600)
#   APT_TIMEOUT_SECONDS     bound on each apt-get call (default 900)
set -euo pipefail

log() { printf 'install-spark-deps: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
spark_requirements=$repo_root/python/requirements-spark.txt
test_requirements=$repo_root/python/requirements-test.txt
venv=${FABRICTEST_VENV:-$repo_root/.cache/venv}
jar_dir=${FABRICTEST_SPARK_JARS:-$repo_root/.cache/spark-jars}
spark_home=${FABRICTEST_SPARK_HOME:-$repo_root/.cache/spark-3.5.5-scala2.13}
runtime_pom=$repo_root/python/jvm/pom.xml
# The dependency plugin's version, pinned (Maven 3.8's default is 2.8).
mdep=org.apache.maven.plugins:maven-dependency-plugin:3.6.1
base_python=${FABRICTEST_BASE_PYTHON:-python3}
PIP_TIMEOUT_SECONDS=${PIP_TIMEOUT_SECONDS:-1200}
MVN_TIMEOUT_SECONDS=${MVN_TIMEOUT_SECONDS:-600}
APT_TIMEOUT_SECONDS=${APT_TIMEOUT_SECONDS:-900}
stamp=$venv/.fabrictest-spark.sha256

# group:artifact:version of the Kafka source jars and of Delta Lake (delta-spark
# 3.3.2 is the release for Spark 3.5; delta-storage is its one dependency not
# in Spark's closure), passed with spark.jars.
# Keep in step with spark_agent.jvm.KAFKA_JARS and DELTA_JARS.
artifacts=(
  org.apache.spark:spark-sql-kafka-0-10_2.13:3.5.5
  org.apache.spark:spark-token-provider-kafka-0-10_2.13:3.5.4
  org.apache.kafka:kafka-clients:3.4.1
  org.apache.commons:commons-pool2:2.11.1
  io.delta:delta-spark_2.13:3.3.2
  io.delta:delta-storage:3.3.2
)
jar_name() { local a v; IFS=: read -r _ a v <<<"$1"; printf '%s-%s.jar' "$a" "$v"; }

[ -f "$spark_requirements" ] || die "missing $spark_requirements"
command -v "$base_python" >/dev/null 2>&1 || die "$base_python not found; install Python 3 (apt-get install python3 python3-venv)"

base_version=$("$base_python" -c 'import sys; print(sys.version.split()[0])')
want=$( {
  cat "$spark_requirements"
  [ ! -f "$test_requirements" ] || cat "$test_requirements"
  cat "${BASH_SOURCE[0]}" "$runtime_pom"
  printf 'python %s\n' "$base_version"
} | sha256sum | cut -d' ' -f1)

jars_present() {
  local a
  for a in "${artifacts[@]}"; do [ -s "$jar_dir/$(jar_name "$a")" ] || return 1; done
}
pom_hash=$(sha256sum "$runtime_pom" | cut -d' ' -f1)
spark_home_ok() {
  [ -x "$spark_home/bin/spark-submit" ] && [ -s "$spark_home/jars/spark-sql_2.13-3.5.5.jar" ] \
    && [ -s "$spark_home/jars/scala-library-2.13.8.jar" ] \
    && [ "$(cat "$spark_home/.pom.sha256" 2>/dev/null)" = "$pom_hash" ]
}
venv_ok() {
  "$venv/bin/python" -c 'import pyspark, pysail, kafka, gssapi, pandas, pyarrow, grpc, spark_agent' >/dev/null 2>&1
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && venv_ok && jars_present && spark_home_ok; then
  log "up to date: $venv, $spark_home, $jar_dir"
  exit 0
fi

start=$SECONDS

# --- Python -----------------------------------------------------------------
if ! "$base_python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  die "$base_python has no venv module; run scripts/install-python-deps.sh (installs python3-venv) or apt-get install python3-venv"
fi
if [ -d "$venv" ] && ! "$venv/bin/python" -c "import sys; assert sys.version.split()[0] == '$base_version'" >/dev/null 2>&1; then
  log "removing stale venv $venv (not made by $base_python $base_version)"
  rm -rf "$venv"
fi
if [ ! -x "$venv/bin/python" ]; then
  log "creating venv $venv with $base_python $base_version"
  mkdir -p "$(dirname "$venv")"
  "$base_python" -m venv "$venv" >&2
fi

# gssapi builds from source: MIT Kerberos' krb5-config and headers, a C
# compiler, the interpreter's headers. Only while it is not installed yet.
if ! "$venv/bin/python" -c 'import gssapi' >/dev/null 2>&1; then
  build_packages=()
  command -v krb5-config >/dev/null 2>&1 || build_packages+=(libkrb5-dev)
  command -v gcc >/dev/null 2>&1 || build_packages+=(gcc)
  "$venv/bin/python" -c 'import os, sys, sysconfig; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    || build_packages+=(python3-dev)
  if [ "${#build_packages[@]}" -gt 0 ]; then
    log "gssapi builds from source and needs ${build_packages[*]}: apt-get install"
    [ "$(id -u)" -eq 0 ] || die "not root; install ${build_packages[*]} yourself (apt-get install ${build_packages[*]})"
    command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install MIT Kerberos' development files (krb5-config) and a C compiler by other means"
    export DEBIAN_FRONTEND=noninteractive
    apt_get() {
      timeout "$APT_TIMEOUT_SECONDS" apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@" </dev/null >&2
    }
    # An install from stale lists fails; apt-get update only then.
    apt_get install --no-install-recommends "${build_packages[@]}" \
      || { log "apt-get install failed: apt-get update, then again"; apt_get update && apt_get install --no-install-recommends "${build_packages[@]}"; } \
      || die "apt-get install ${build_packages[*]} failed"
    command -v krb5-config >/dev/null 2>&1 || die "libkrb5-dev installed but krb5-config still not on PATH"
  fi
fi

req_args=(-r "$spark_requirements")
[ ! -f "$test_requirements" ] || req_args+=(-r "$test_requirements")
rm -f "$stamp"
log "pip install ${req_args[*]//$repo_root\//} and -e python/"
timeout "$PIP_TIMEOUT_SECONDS" "$venv/bin/python" -m pip install --disable-pip-version-check \
  --no-input -q "${req_args[@]}" -e "$repo_root/python" </dev/null >&2 || die "pip install failed"
venv_ok || die "pyspark/pysail/kafka/gssapi/spark_agent not importable from $venv after install"

# --- Maven: JVM Spark (Scala 2.13) and the Kafka source jars ----------------------
command -v java >/dev/null 2>&1 || die "java not found; JVM Spark 3.5 needs Java 8/11/17 (apt-get install openjdk-17-jre-headless)"
mvn_() {
  command -v mvn >/dev/null 2>&1 || die "mvn not found; install Maven (apt-get install maven) to resolve the Spark jars"
  timeout "$MVN_TIMEOUT_SECONDS" mvn -B -q -ntp -Dstyle.color=never "$@" </dev/null 2>&1 | sed "s/\x1b\[[0-9;]*m//g" >&2
}
if ! spark_home_ok; then
  log "maven: Spark 3.5.5 (Scala 2.13) runtime from ${runtime_pom#"$repo_root"/} into $spark_home"
  tmp_home=$spark_home.tmp
  rm -rf "$tmp_home"
  mkdir -p "$tmp_home"
  mvn_ -f "$runtime_pom" "$mdep:copy-dependencies" -DincludeScope=runtime -DoutputDirectory="$tmp_home/jars" \
    || die "mvn copy-dependencies of $runtime_pom failed"
  pyspark_dir=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
  cp -R "$pyspark_dir/bin" "$tmp_home/bin"
  printf 'Spark 3.5.5 (Scala 2.13) laid out by scripts/install-spark-deps.sh from Maven jars\n' >"$tmp_home/RELEASE"
  printf '%s\n' "$pom_hash" >"$tmp_home/.pom.sha256"
  rm -rf "$spark_home"
  mv "$tmp_home" "$spark_home"
  spark_home_ok || die "no usable SPARK_HOME at $spark_home after Maven"
fi
if ! jars_present; then
  mkdir -p "$jar_dir"
  for a in "${artifacts[@]}"; do
    [ -s "$jar_dir/$(jar_name "$a")" ] && continue
    log "maven: $a"
    mvn_ "$mdep:copy" -Dartifact="$a" -DoutputDirectory="$jar_dir" || die "mvn dependency:copy $a failed"
  done
  jars_present || die "jars missing from $jar_dir after Maven"
fi

printf '%s\n' "$want" >"$stamp"
log "done in $((SECONDS - start))s: $("$venv/bin/python" -c 'import importlib.metadata as m, pyspark, pysail, kafka, gssapi; print("pyspark", pyspark.__version__, "pysail", m.version("pysail"), "kafka-python", kafka.__version__, "gssapi", m.version("gssapi"))'); SPARK_HOME $spark_home ($(find "$spark_home/jars" -name '*.jar' | wc -l) jars); Kafka jars: $(find "$jar_dir" -name '*.jar' -printf '%f ')"
