#!/usr/bin/env bash
# Installs Schemathesis (PyPI), the fuzzer test/contract/schemathesis.test.ts runs against a live server from its
# /openapi.json, into a virtual environment of its own at <repo>/.tools/schemathesis, every package at the exact
# version scripts/schemathesis-requirements.txt names. About 15 s the first time (pip downloads some 10 MB).
# Idempotent: an installation of this version is kept; a half-finished one (killed mid-way) is redone.
# Needs python3 with its venv module; Debian ships that apart (python3-venv), which is installed here as root
# (or with sudo without a password) when missing, as scripts/install-redis.sh installs redis-server.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="4.32.5"
requirements="$repo_root/scripts/schemathesis-requirements.txt"
venv="$repo_root/.tools/schemathesis"
# Written last: its presence says the venv is complete and holds this version with these pins.
stamp="$venv/.installed-$version-$(sha256sum "$requirements" | cut -c1-12)"

mkdir -p "$repo_root/.tools"
# Two test runs started at once on a fresh machine would otherwise build the same venv together.
exec 9>"$repo_root/.tools/.schemathesis.lock"
flock 9

if [[ -f "$stamp" && -x "$venv/bin/st" ]]; then
  echo "schemathesis $version already present: $venv/bin/st"
  exit 0
fi

if ! grep -qx "schemathesis==$version" "$requirements"; then
  echo "error: $requirements does not pin schemathesis==$version (the version this script installs)" >&2
  exit 1
fi

if ! command -v python3 >/dev/null 2>&1; then
  echo "error: python3 is not installed (apt-get install python3 python3-venv)." >&2
  exit 1
fi

# Debian's python3 lacks ensurepip until python3-venv is installed; `python3 -m venv` fails without it.
ensure_venv_module() {
  python3 -c 'import ensurepip, venv' >/dev/null 2>&1 && return
  local sudo_cmd=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo_cmd=(sudo -n); else
      echo "error: python3's venv module is not installed; installing it needs root: sudo apt-get install python3-venv" >&2
      exit 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: python3's venv module is not installed and apt-get is not available to install it." >&2
    exit 1
  fi
  echo "installing python3-venv from Debian's packages..."
  export DEBIAN_FRONTEND=noninteractive
  # The test setup may run the deployment tools' installer at the same time: wait for the dpkg lock.
  local apt=("${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=300 -y -q)
  "${apt[@]}" install --no-install-recommends python3-venv >/dev/null 2>&1 \
    || { "${apt[@]}" update >/dev/null && "${apt[@]}" install --no-install-recommends python3-venv >/dev/null; }
}
ensure_venv_module

started=$SECONDS
echo "installing schemathesis $version into $venv with $(python3 --version)..."
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
"$venv/bin/st" --version >/dev/null
touch "$stamp"
echo "schemathesis $version installed in $((SECONDS - started)) s: $venv/bin/st"
