#!/usr/bin/env bash
# install-python-deps.sh — the project's Python test environment.
#
# Creates a virtual environment at $REPO/.cache/venv and pip-installs
# python/requirements-test.txt into it (deltalake, the independent Delta
# reader the Go tests of emulator/delta run; pyarrow; pytest). The Go tests
# look for $REPO/.cache/venv/bin/python (FABRICTEST_PYTHON overrides it) and
# fail with a message naming this script when it is missing.
#
# Idempotent and non-interactive. A stamp file in the venv records a hash of
# the requirements file and of the interpreter; when it matches and the venv's
# python runs, the script exits at once without touching pip. When the venv
# module is missing (Debian without python3-venv) it installs python3-venv
# with apt-get (root only). Progress goes to stderr.
#
# Environment:
#   FABRICTEST_VENV        venv directory (default $REPO/.cache/venv)
#   FABRICTEST_BASE_PYTHON interpreter that creates the venv (default python3)
#   PIP_TIMEOUT_SECONDS    bound on the pip install (default 1200)
#   APT_TIMEOUT_SECONDS    bound on each apt-get call (default 900)
set -euo pipefail

log() { printf 'install-python-deps: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/.." && pwd)
requirements=$repo_root/python/requirements-test.txt
venv=${FABRICTEST_VENV:-$repo_root/.cache/venv}
base_python=${FABRICTEST_BASE_PYTHON:-python3}
PIP_TIMEOUT_SECONDS=${PIP_TIMEOUT_SECONDS:-1200}
APT_TIMEOUT_SECONDS=${APT_TIMEOUT_SECONDS:-900}
stamp=$venv/.fabrictest-requirements.sha256

[ -f "$requirements" ] || die "missing $requirements"
command -v "$base_python" >/dev/null 2>&1 || die "$base_python not found; install Python 3 (apt-get install python3)"

base_version=$("$base_python" -c 'import sys; print(sys.version.split()[0])')
want=$( { cat "$requirements"; printf 'python %s\n' "$base_version"; } | sha256sum | cut -d' ' -f1)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && "$venv/bin/python" -c 'import deltalake, pyarrow' >/dev/null 2>&1; then
  log "up to date: $venv"
  exit 0
fi

start=$SECONDS

if ! "$base_python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  log "$base_python has no venv/ensurepip module; installing python3-venv"
  [ "$(id -u)" -eq 0 ] || die "not root; install python3-venv yourself (apt-get install python3-venv)"
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install the venv module of $base_python by other means"
  export DEBIAN_FRONTEND=noninteractive
  apt_get() { timeout "$APT_TIMEOUT_SECONDS" apt-get -y -q "$@" </dev/null >&2; }
  apt_get install --no-install-recommends python3-venv || { apt_get update && apt_get install --no-install-recommends python3-venv; }
  "$base_python" -c 'import venv, ensurepip' >/dev/null 2>&1 || die "python3-venv installed but $base_python still has no venv module"
fi

# A venv made by another interpreter (or half made) is rebuilt from scratch.
if [ -d "$venv" ] && ! "$venv/bin/python" -c "import sys; assert sys.version.split()[0] == '$base_version'" >/dev/null 2>&1; then
  log "removing stale venv $venv"
  rm -rf "$venv"
fi
if [ ! -x "$venv/bin/python" ]; then
  log "creating venv $venv with $base_python $base_version"
  mkdir -p "$(dirname "$venv")"
  "$base_python" -m venv "$venv" >&2
fi

log "installing $(grep -cvE '^\s*(#|$)' "$requirements") requirements from ${requirements#"$repo_root"/}"
rm -f "$stamp"
timeout "$PIP_TIMEOUT_SECONDS" "$venv/bin/python" -m pip install --disable-pip-version-check \
  --no-input -q -r "$requirements" </dev/null >&2 || die "pip install failed"
"$venv/bin/python" -c 'import deltalake, pyarrow' || die "deltalake/pyarrow not importable after install"
printf '%s\n' "$want" >"$stamp"
log "done in $((SECONDS - start))s: $("$venv/bin/python" -c 'import deltalake, pyarrow; print("deltalake", deltalake.__version__, "pyarrow", pyarrow.__version__)')"
