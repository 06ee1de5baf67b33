#!/usr/bin/env bash
# Builds the Temporal CLI (which carries `temporal server start-dev`) into <repo>/.tools/bin from the Go module
# proxy: no npm or Debian package ships a Temporal server. Idempotent: does nothing when the binary is there.
# v1.5.1 is pinned because later tags carry a `replace` directive that `go install pkg@version` refuses.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin_dir="$repo_root/.tools/bin"
version="v1.5.1"

if [[ -x "$bin_dir/temporal" ]]; then
  echo "temporal CLI already present: $bin_dir/temporal"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "error: Go is not installed, so the Temporal CLI cannot be built." >&2
  echo "Install Go >= 1.25 (https://go.dev/dl/), or put a temporal binary on PATH or in TEMPORAL_CLI_PATH," >&2
  echo "or set TEMPORAL_ADDRESS to a running Temporal server." >&2
  exit 1
fi

mkdir -p "$bin_dir"
echo "building the Temporal CLI $version into $bin_dir with $(go version) (takes a few minutes the first time)..."
# `go install` is silent for minutes: print a heartbeat with the number of packages built so far.
build_log="$(mktemp)"
trap 'rm -f "$build_log"' EXIT
GOBIN="$bin_dir" go install -v "github.com/temporalio/cli/cmd/temporal@$version" 2>"$build_log" &
build_pid=$!
started=$SECONDS
while kill -0 "$build_pid" 2>/dev/null; do
  sleep 1
  if (( (SECONDS - started) % 20 == 0 )) && kill -0 "$build_pid" 2>/dev/null; then
    echo "  ... still building: $((SECONDS - started)) s, $(wc -l <"$build_log") packages so far"
  fi
done
if ! wait "$build_pid"; then
  tail -n 40 "$build_log" >&2
  echo "error: go install failed (GOPROXY=$(go env GOPROXY), GOSUMDB=$(go env GOSUMDB))" >&2
  exit 1
fi
echo "built $(wc -l <"$build_log") packages in $((SECONDS - started)) s"
"$bin_dir/temporal" --version
echo "temporal CLI installed: $bin_dir/temporal"
