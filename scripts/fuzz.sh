#!/usr/bin/env bash
# fuzz.sh — run native Go fuzz targets for a bounded time each (called by
# `make test-fuzz` with the targets as PKG:FuzzName arguments).
#
# A finding fails the run: Go writes the input under the package's
# testdata/fuzz/<target>/ and prints "Failing input written to". One failure
# is not a finding: Go 1.26's fuzz coordinator can report a bare "context
# deadline exceeded" when -fuzztime ends while a worker is busy (golang/go
# issue 75804, fixed in Go 1.27), with nothing written. Such a run is tried
# once more; a second one fails the run like any other error.
#
# Environment:
#   GO          go command (default go)
#   FUZZ_TIME   time per target (default 20s)
set -euo pipefail

go_cmd=${GO:-go}
fuzz_time=${FUZZ_TIME:-20s}
log=$(mktemp)
on_exit() {
  local status=$?
  rm -f "$log"
  exit "$status"
}
trap on_exit EXIT

# fuzz PKG FN — one run; its output is shown and kept in $log.
fuzz() {
  "$go_cmd" test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzz_time" -fuzzminimizetime 2s "./$1" 2>&1 | tee "$log"
}

# deadline_only — the last run failed only by the coordinator's deadline race.
deadline_only() {
  grep -q 'context deadline exceeded' "$log" && ! grep -qE 'Failing input written|panic:' "$log"
}

for target in "$@"; do
  pkg=${target%%:*}
  fn=${target##*:}
  echo "fuzz $fn in ./$pkg for $fuzz_time"
  if fuzz "$pkg" "$fn"; then
    continue
  fi
  if deadline_only; then
    echo "fuzz $fn: a bare 'context deadline exceeded' with no input written (golang/go#75804); running it once more"
    fuzz "$pkg" "$fn" && continue
  fi
  echo "fuzz $fn in ./$pkg failed" >&2
  exit 1
done
