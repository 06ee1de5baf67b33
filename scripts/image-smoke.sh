#!/usr/bin/env bash
# "Build and start the image here": builds Sigil's container image (Dockerfile) with buildah and starts it
# against throwaway Postgres, Redis and Temporal servers: migrate, api, worker, bootstrap, a webhook ping
# delivered by the worker, the image's HEALTHCHECK, and a clean SIGTERM shutdown of both processes.
#
# Run it by hand:  bash scripts/image-smoke.sh [--rebuild-base] [--keep]
# It is NOT part of CI: the first run takes minutes of debootstrap and a ~900 MB vfs build.
#
# What it needs, and why:
#   - root, Debian bookworm, the Debian mirror reachable: missing tools (buildah, debootstrap, postgresql,
#     redis-server, curl) are installed with apt-get.
#   - no Docker daemon and no Docker Hub: Docker Hub is not reachable from machines like this one (no DNS for
#     it), so the Dockerfile's default base `node:20-bookworm-slim` cannot be pulled. Instead the script makes
#     an equivalent local base, localhost/node:20-bookworm-slim: `debootstrap --variant=minbase bookworm` plus
#     the host's node 20 and npm, the host's CA bundle (the npm registry may sit behind a TLS-intercepting
#     proxy; NODE_EXTRA_CA_CERTS is set in that base image, the Dockerfile stays unchanged) and a `node` user
#     (uid 1000) like the official image. It is reused on later runs; --rebuild-base makes it again.
#   - buildah with `--storage-driver vfs` and `--isolation chroot`: overlay mounts and podman's runtime (crun
#     cannot setrlimit here) do not work in this kind of sandbox, so containers are started with
#     `buildah run` on the host network.
#   - node 20 on the host (copied into the base; also the loopback webhook receiver), and
#     .tools/bin/temporal (scripts/install-temporal-cli.sh) for the Temporal dev server.
#
# Every step prints its duration; the script exits non-zero at the first failure, saying what failed, and
# always stops and removes what it started (containers, servers, temp dirs). The images
# localhost/node:20-bookworm-slim and localhost/sigil:smoke are kept (--keep also keeps the temp dir and logs).
set -Eeuo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASE_IMAGE=localhost/node:20-bookworm-slim
IMAGE=localhost/sigil:smoke
BUILDAH=(buildah --storage-driver vfs)
# Heavy work yields to everything else on the machine.
LOW=(nice -n 19 ionice -c3)
REBUILD_BASE=0
KEEP=0
for arg in "$@"; do
  case "$arg" in
    --rebuild-base) REBUILD_BASE=1 ;;
    --keep) KEEP=1 ;;
    -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "unknown argument: $arg" >&2; exit 2 ;;
  esac
done

T0=$(date +%s)
STEP="setup"
STEP_T=$T0
SUMMARY=()
step() { # step NAME: ends the previous step (printing its duration) and starts the next
  end_step
  STEP=$1
  STEP_T=$(date +%s)
  echo "==> $STEP"
}
end_step() {
  if [[ -n "${STEP:-}" && "$STEP" != "setup" ]]; then
    local d=$(($(date +%s) - STEP_T))
    SUMMARY+=("$(printf '%-34s %5ss' "$STEP" "$d")")
    echo "    ok: $STEP (${d}s)"
  fi
  STEP=""
}
exec 3>&2 # fail() reports here even from commands whose stderr is silenced
fail() { echo "FAILED in step '${STEP:-?}': $*" >&3; exit 1; }

WORK=$(mktemp -d /tmp/sigil-image-smoke.XXXXXX)
chmod 755 "$WORK"
CONTAINERS=()
PIDS=()
PG_DATA=""
cleanup() {
  local rc=$?
  set +e
  if ((rc != 0)); then
    echo "--- FAILED (exit $rc) in step '${STEP:-?}'; last lines of the logs in $WORK:" >&2
    for f in "$WORK"/*.log "$WORK"/pglog/*.log; do [[ -f "$f" ]] && { echo "--- $f" >&2; tail -n 25 "$f" >&2; }; done
  fi
  echo "==> cleanup"
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null
  done
  [[ -n "$PG_DATA" ]] && runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w stop >/dev/null 2>&1
  for c in "${CONTAINERS[@]}"; do "${BUILDAH[@]}" rm "$c" >/dev/null 2>&1; done
  if ((KEEP)); then echo "    kept $WORK"; else rm -rf "$WORK"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

USED_PORTS=" 55432 6390 7299 8080 " # other work on this machine uses these: never take them
free_port() { # free_port VAR...: sets each VAR to a distinct free loopback port
  local p var
  for var in "$@"; do
    while :; do
      p=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
      [[ "$USED_PORTS" == *" $p "* ]] || break
    done
    USED_PORTS+="$p "
    printf -v "$var" '%s' "$p"
  done
}
wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND until it succeeds
  local secs=$1 what=$2
  shift 2
  local end=$(($(date +%s) + secs))
  until "$@" >/dev/null 2>&1; do
    (($(date +%s) < end)) || fail "timed out after ${secs}s waiting for $what"
    sleep 1
  done
}
alive() { for pid in "$@"; do kill -0 "$pid" 2>/dev/null || fail "process $pid exited early"; done; }
node_child() { # node_child PID: the `node` process running under the `buildah run` with this PID
  local queue=("$1") pid kids
  while ((${#queue[@]})); do
    pid=${queue[0]}
    queue=("${queue[@]:1}")
    if [[ "$pid" != "$1" && "$(cat "/proc/$pid/comm" 2>/dev/null)" == node ]]; then echo "$pid"; return 0; fi
    kids=$(cat /proc/"$pid"/task/*/children 2>/dev/null || true)
    for k in $kids; do queue+=("$k"); done
  done
  return 1
}

# --- 1. tools ------------------------------------------------------------------------------------------------
step "tools"
[[ $(id -u) == 0 ]] || fail "run as root (buildah vfs storage, debootstrap, postgres as its own user)"
command -v node >/dev/null || fail "node (v20) is needed on the host"
[[ $(node -p 'process.versions.node.split(".")[0]') == 20 ]] || fail "the host's node is $(node -v), need v20"
[[ -x "$ROOT/.tools/bin/temporal" ]] || fail "missing .tools/bin/temporal (bash scripts/install-temporal-cli.sh)"
missing=()
command -v buildah >/dev/null || missing+=(buildah)
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v redis-server >/dev/null || missing+=(redis-server)
command -v curl >/dev/null || missing+=(curl)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
if ((${#missing[@]})); then
  echo "    installing from Debian: ${missing[*]}"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
PG_BIN=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n1)")
TEMPORAL="$ROOT/.tools/bin/temporal"
echo "    buildah $(buildah --version | awk '{print $3}'), node $(node -v), postgres $("$PG_BIN/postgres" --version | awk '{print $3}')"

# --- 2. base image -----------------------------------------------------------------------------------------
if ((REBUILD_BASE == 0)) && "${BUILDAH[@]}" inspect --type image "$BASE_IMAGE" >/dev/null 2>&1; then
  step "base image (reused)"
  echo "    $BASE_IMAGE exists (--rebuild-base to make it again)"
else
  step "base image: debootstrap"
  ROOTFS="$WORK/rootfs"
  "${LOW[@]}" debootstrap --variant=minbase bookworm "$ROOTFS" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1 ||
    fail "debootstrap (see $WORK/debootstrap.log)"
  step "base image: node, npm, CA bundle"
  NODE_BIN=$(readlink -f "$(command -v node)")
  NPM_DIR=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")") # .../node_modules/npm
  [[ -f "$NPM_DIR/package.json" ]] || fail "cannot find the host's npm (looked at $NPM_DIR)"
  install -D -m 755 "$NODE_BIN" "$ROOTFS/usr/local/bin/node"
  mkdir -p "$ROOTFS/usr/local/lib/node_modules"
  cp -a "$NPM_DIR" "$ROOTFS/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"
  install -D -m 644 /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
  # The official image's `node` user (uid/gid 1000), whom the Dockerfile runs as.
  grep -q '^node:' "$ROOTFS/etc/group" || echo 'node:x:1000:' >>"$ROOTFS/etc/group"
  grep -q '^node:' "$ROOTFS/etc/passwd" || echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$ROOTFS/etc/passwd"
  mkdir -p "$ROOTFS/home/node" && chown 1000:1000 "$ROOTFS/home/node"
  rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
  chroot "$ROOTFS" /usr/local/bin/node -v >/dev/null || fail "node does not run in the new rootfs"
  step "base image: commit"
  ctr=$("${BUILDAH[@]}" from scratch)
  CONTAINERS+=("$ctr")
  "${LOW[@]}" "${BUILDAH[@]}" copy "$ctr" "$ROOTFS" / >/dev/null
  "${BUILDAH[@]}" config --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd node "$ctr"
  "${LOW[@]}" "${BUILDAH[@]}" commit --rm --format docker "$ctr" "$BASE_IMAGE" >/dev/null
  CONTAINERS=()
  rm -rf "$ROOTFS"
fi

# --- 3. image ----------------------------------------------------------------------------------------------
step "build $IMAGE"
(cd "$ROOT" && "${LOW[@]}" "${BUILDAH[@]}" bud --isolation chroot --network host --ulimit nofile=20000:20000 \
  --format docker --build-arg NODE_IMAGE="$BASE_IMAGE" -t "$IMAGE" -f Dockerfile .) >"$WORK/build.log" 2>&1 ||
  fail "buildah bud (see $WORK/build.log)"
echo "    $("${BUILDAH[@]}" images --format '{{.Name}}:{{.Tag}} {{.Size}}' "$IMAGE")"

# --- 4. servers --------------------------------------------------------------------------------------------
step "start postgres, redis, temporal"
free_port PG_PORT REDIS_PORT T_PORT T_UI T_HTTP T_METRICS
PG_DATA="$WORK/pg"
mkdir -p "$PG_DATA" "$WORK/pglog" && chown postgres:postgres "$PG_DATA" "$WORK/pglog"
runuser -u postgres -- "$PG_BIN/initdb" -D "$PG_DATA" -U postgres -A trust >"$WORK/initdb.log" 2>&1 || fail "initdb"
runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$WORK/pglog/postgres.log" -w \
  -o "-p $PG_PORT -k $PG_DATA -c listen_addresses=127.0.0.1" start >/dev/null || fail "pg_ctl start"
runuser -u postgres -- "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres sigil || fail "createdb"
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
"${LOW[@]}" "$TEMPORAL" server start-dev --headless --ip 127.0.0.1 --port "$T_PORT" --ui-port "$T_UI" \
  --http-port "$T_HTTP" --metrics-port "$T_METRICS" --log-level warn >"$WORK/temporal.log" 2>&1 &
PIDS+=($!)
wait_for 30 "redis on $REDIS_PORT" bash -c "exec 3<>/dev/tcp/127.0.0.1/$REDIS_PORT"
wait_for 90 "temporal on $T_PORT" "$TEMPORAL" operator namespace describe --address "127.0.0.1:$T_PORT" --namespace default
echo "    postgres :$PG_PORT, redis :$REDIS_PORT, temporal :$T_PORT"

# --- 5. containers -----------------------------------------------------------------------------------------
step "containers"
free_port API_PORT WORKER_PORT WORKER_API_PORT HOOK_PORT
key() { echo "k1:$(head -c32 /dev/urandom | base64)"; }
ENVS=(
  --env "DATABASE_URL=postgres://postgres@127.0.0.1:$PG_PORT/sigil"
  --env "REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
  --env "TEMPORAL_ADDRESS=127.0.0.1:$T_PORT"
  --env "SIGIL_SEALING_KEYS=$(key)"
  --env "SIGIL_BACKUP_SEALING_KEYS=$(key)"
  --env HOST=127.0.0.1
  --env "SIGIL_WORKER_PORT=$WORKER_PORT"
)
new_container() { # new_container VAR ROLE API_PORT: not in $(...), so that CONTAINERS (for cleanup) keeps it
  local c
  c=$("${BUILDAH[@]}" from --name "sigil-smoke-$2-$$" "$IMAGE")
  CONTAINERS+=("$c")
  "${BUILDAH[@]}" config "${ENVS[@]}" --env "PORT=$3" "$c"
  printf -v "$1" '%s' "$c"
}
in_ctr() { "${BUILDAH[@]}" run --isolation chroot --network host "$@"; }
new_container C_MIGRATE migrate "$API_PORT"
new_container C_API api "$API_PORT"
# The worker gets its own, unused PORT, so that the HEALTHCHECK below really falls back to the worker's port.
new_container C_WORKER worker "$WORKER_API_PORT"
echo "    ${CONTAINERS[*]}"

step "migrate"
"${LOW[@]}" "${BUILDAH[@]}" run --isolation chroot --network host "$C_MIGRATE" -- node bin/sigil.js migrate \
  >"$WORK/migrate.log" 2>&1 || fail "sigil migrate (exit $?)"
tail -n1 "$WORK/migrate.log" | cut -c1-200 | sed 's/^/    /'

step "start api and worker (/readyz)"
in_ctr "$C_API" -- node bin/sigil.js start api >"$WORK/api.log" 2>&1 &
API_PID=$!
PIDS+=("$API_PID")
in_ctr "$C_WORKER" -- node bin/sigil.js start worker >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!
PIDS+=("$WORKER_PID")
ready() { alive "$API_PID" "$WORKER_PID"; curl -fsS "http://127.0.0.1:$1/readyz" >/dev/null; }
wait_for 240 "the api's /readyz on :$API_PORT" ready "$API_PORT"
wait_for 240 "the worker's /readyz on :$WORKER_PORT" ready "$WORKER_PORT"
echo "    api :$API_PORT $(curl -sS "http://127.0.0.1:$API_PORT/readyz" | cut -c1-120)"
echo "    worker :$WORKER_PORT $(curl -sS "http://127.0.0.1:$WORKER_PORT/readyz" | cut -c1-120)"

step "bootstrap --json"
in_ctr "$C_MIGRATE" -- node bin/sigil.js bootstrap --json --email smoke@example.com >"$WORK/bootstrap.json" 2>"$WORK/bootstrap.log" ||
  fail "sigil bootstrap"
read -r ENV_ID TOKEN < <(node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").pop()); console.log(r.environmentId, r.token)' "$WORK/bootstrap.json") ||
  fail "bootstrap printed no JSON: $(cat "$WORK/bootstrap.json")"
echo "    environment $ENV_ID"

step "webhook ping via the worker"
# A loopback receiver that records every request as one JSON line.
node -e '
  const fs = require("fs");
  require("http").createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c)).on("end", () => {
      fs.appendFileSync(process.argv[2], JSON.stringify({ method: req.method, url: req.url, id: req.headers["webhook-id"], body }) + "\n");
      res.end("ok");
    });
  }).listen(Number(process.argv[1]), "127.0.0.1");
' "$HOOK_PORT" "$WORK/hooks.jsonl" >"$WORK/receiver.log" 2>&1 &
PIDS+=($!)
wait_for 20 "the receiver on :$HOOK_PORT" bash -c "exec 3<>/dev/tcp/127.0.0.1/$HOOK_PORT"
API="http://127.0.0.1:$API_PORT/api/v0"
curl -fsS -X POST "$API/environments/$ENV_ID/webhooks" -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \
  -d "{\"url\":\"http://127.0.0.1:$HOOK_PORT/hooks\",\"events\":[\"user.created\"]}" >"$WORK/webhook.json" 2>"$WORK/webhook.log" ||
  fail "POST /webhooks: $(cat "$WORK/webhook.log" "$WORK/webhook.json" 2>/dev/null)"
echo "    created webhook $(node -p 'const w=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); w.webhookId ?? w.id' "$WORK/webhook.json")"
wait_for 120 "the webhook ping at the receiver" grep -q ping "$WORK/hooks.jsonl"
echo "    delivered: $(grep ping "$WORK/hooks.jsonl" | head -n1 | cut -c1-300)"

step "HEALTHCHECK (api and worker)"
mapfile -d '' HC < <("${BUILDAH[@]}" inspect --type image "$IMAGE" | node -e '
  const c = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const t = c.Docker?.config?.Healthcheck?.Test ?? c.Docker?.container_config?.Healthcheck?.Test;
  if (!t || t[0] !== "CMD") { console.error("no exec-form HEALTHCHECK in the image config"); process.exit(1); }
  process.stdout.write(t.slice(1).join("\0") + "\0");')
((${#HC[@]})) || fail "no HEALTHCHECK in $IMAGE (built with --format docker?)"
in_ctr "$C_API" -- "${HC[@]}" || fail "HEALTHCHECK in the api container (exit $?)"
in_ctr "$C_WORKER" -- "${HC[@]}" || fail "HEALTHCHECK in the worker container (exit $?)"
echo "    exit 0 in both"

step "SIGTERM api and worker"
for role in api worker; do
  if [[ $role == api ]]; then pid=$API_PID; else pid=$WORKER_PID; fi
  target=$(node_child "$pid") || target=$pid
  kill -TERM "$target"
  rc=0
  timeout_at=$(($(date +%s) + 60))
  while kill -0 "$pid" 2>/dev/null; do
    (($(date +%s) < timeout_at)) || fail "$role did not exit within 60s of SIGTERM"
    sleep 0.5
  done
  wait "$pid" || rc=$?
  echo "    $role exit code $rc"
  ((rc == 0)) || fail "$role exited $rc after SIGTERM"
done
end_step

echo
echo "=== image smoke passed in $(($(date +%s) - T0))s"
printf '    %s\n' "${SUMMARY[@]}"
for i in "$BASE_IMAGE" "$IMAGE"; do echo "    image $("${BUILDAH[@]}" images --format '{{.Name}}:{{.Tag}} {{.Size}}' "$i" 2>/dev/null)"; done
