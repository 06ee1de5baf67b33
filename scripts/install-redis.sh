#!/usr/bin/env bash
# Installs redis-server from Debian's packages for `npm test` on a machine without it (the tests need a real
# Redis; no npm package ships its binary). Idempotent: does nothing when redis-server is on PATH. Needs root
# (or sudo without a password) and apt-get; otherwise it says what to do instead.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1; then
  echo "redis-server already present: $(command -v redis-server)"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: redis-server is not installed and apt-get is not available to install it." >&2
  echo "Install Redis with your package manager, or set REDIS_URL to a running Redis." >&2
  exit 1
fi

sudo_cmd=()
if [[ "$(id -u)" != 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo_cmd=(sudo -n)
  else
    echo "error: redis-server is not installed; installing it needs root: sudo apt-get install redis-server" >&2
    echo "(or set REDIS_URL to a running Redis)." >&2
    exit 1
  fi
fi

echo "installing redis-server from Debian's packages (about 30 s the first time)..."
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends redis-server
# The package starts a system service on port 6379 where an init system runs; the tests start their own.
echo "redis-server installed: $(command -v redis-server)"
